"""Tag filters applied where candidates are made: the lexical index's tag postings, BM25 under a tag filter and
the vector index ranking the memories that hold the tags must answer what the tag rows in the database say,
while another process adds memories, changes their tags, rewrites and deletes them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from knotwork import ALL_WORKSPACES, Knotwork
from knotwork.search import lexical_index, vector_index
from knotwork.search.lexical import analyze_query
from tests._sql import query
from tests._fakes import DIM, open_fake

SPACES = [None, "a", "a", "b"]
WORDS = "alpha beta gamma delta deploy retry policy billing cache redis".split()
FILTERS = [  # (tags, mode): a tag most memories hold, one few hold, a key alone, two at once, either of two
    ({"team": "core"}, "all"),
    ({"rare": "yes"}, "all"),
    ({"team": None}, "all"),
    ({"team": "core", "lang": "en"}, "all"),
    ({"rare": "yes", "lang": "fr"}, "any"),
    ({"nobody": "holds"}, "all"),
]


def tags(rng: random.Random) -> dict[str, str]:
    out = {"lang": rng.choice(["en", "en", "fr"])}
    if rng.random() < 0.8:
        out["team"] = rng.choice(["core", "core", "core", "web"])
    if rng.random() < 0.1:
        out["rare"] = "yes"
    return out


def from_rows(target: str, want: dict[str, str | None], mode: str, workspace: str | None) -> set[str]:
    """The memories ``workspace`` sees that hold ``want``, from the tag rows in the database."""
    held: dict[str, tuple[str, set[tuple[str, str]]]] = {}
    for mid, ws, key, value in query(target, "SELECT m.id, m.workspace, t.key, t.value FROM memories m"
                                             " LEFT JOIN memory_tags t ON t.memory_id = m.id"):
        pairs = held.setdefault(mid, (ws, set()))[1]
        if key is not None:
            pairs.add((key, value))

    def holds(pairs: set[tuple[str, str]], key: str, value: str | None) -> bool:
        return any(k == key and (value is None or v == value) for k, v in pairs)

    test = any if mode == "any" else all
    return {mid for mid, (ws, pairs) in held.items()
            if (workspace == ALL_WORKSPACES or ws in ("", workspace or "")) and test(holds(pairs, k, v) for k, v in want.items())}


def assert_filtered(reader: Knotwork, target: str, rng: random.Random) -> None:
    terms = analyze_query(" ".join(rng.sample(WORDS, 3)))
    vector = np.array([rng.gauss(0, 1) for _ in range(DIM)], dtype=np.float32)
    vector /= np.linalg.norm(vector)
    for want, mode in FILTERS:
        for workspace in (ALL_WORKSPACES, None, "a", "b"):
            allowed = from_rows(target, want, mode, workspace)
            among = reader.lexical.tagged(want, mode, workspace)
            if among is None:  # too many hold the tags for the postings to answer: the store's filter does
                assert len(from_rows(target, want, mode, ALL_WORKSPACES)) > lexical_index.TAGGED_MOST
                hits = reader.search(" ".join(terms), workspace=workspace, tags=want, tags_mode=mode, limit=20)
                assert {h.memory.id for h in hits} <= allowed
                continue
            assert set(among) == allowed, (want, mode, workspace)
            # BM25 under the filter: the best of the allowed memories, scored as without the filter
            got = reader.lexical.search(terms, 6, workspace, tags=want, tags_mode=mode)
            every = [h for h in reader.lexical.search(terms, 10**6, workspace) if h.memory_id in allowed]
            assert {h.memory_id for h in got} <= allowed
            assert [h.bm25 for h in got] == pytest.approx([h.bm25 for h in every[:6]], rel=1e-6)
            assert [h.relevance for h in got] == pytest.approx([h.relevance for h in every[:6]], rel=1e-6)
            # the vector index within the tagged memories (a masked scan, or their rows alone when few)
            near = [(h.memory_id, h.similarity) for h in reader.index.search(vector, 5, workspace, among=among)]
            scan = [(h.memory_id, h.similarity) for h in reader.index.search(vector, 10**6, workspace) if h.memory_id in allowed]
            assert [m for m, _ in near] == [m for m, _ in scan[:5]]
            assert [s for _, s in near] == pytest.approx([s for _, s in scan[:5]], abs=1e-6)
            # the whole search: nothing without the tags
            hits = reader.search(" ".join(terms), workspace=workspace, tags=want, tags_mode=mode, limit=20)
            assert {h.memory.id for h in hits} <= allowed


def test_tag_filtered_searches_follow_another_writers_tag_changes(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(13)
    words = lambda: " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))  # noqa: E731
    with open_fake(target) as reader, open_fake(target) as writer:
        live = [m.id for m in writer.add_many(
            [{"content": words(), "workspace": rng.choice(SPACES), "tags": tags(rng)} for _ in range(60)])]
        assert_filtered(reader, target, rng)
        for step in range(5):
            live += [m.id for m in writer.add_many(
                [{"content": words(), "workspace": rng.choice(SPACES), "tags": tags(rng)} for _ in range(rng.randint(1, 8))])]
            for mid in rng.sample(live, 6):  # new tags only: the text and the vectors stay
                writer.update(mid, tags=tags(rng))
            writer.update(rng.choice(live), tags={})
            writer.update(rng.choice(live), content=words())  # new text and vectors, tags kept
            writer.delete(live.pop(rng.randrange(len(live))))
            assert_filtered(reader, target, rng)
        # a filter's answer is kept between searches, and dropped by the next write
        kept = reader.lexical.tagged({"team": "core"}, "all", "a")
        assert reader.lexical.tagged({"team": "core"}, "all", "a") is kept
        moved = next(mid for mid in live if mid in kept)
        writer.update(moved, tags={"team": "web"})
        assert moved not in reader.lexical.tagged({"team": "core"}, "all", "a")
        assert moved in reader.lexical.tagged({"team": "web"}, "all", "a")
        assert moved not in {h.memory.id for h in reader.search(reader.get(moved).content, workspace="a",
                                                                 tags={"team": "core"}, limit=50)}
        # a large index finds the tagged memories' rows from each one's first row instead of one pass over all
        monkeypatch.setattr(vector_index, "AMONG_ISIN_MOST", 0)
        assert_filtered(reader, target, rng)
        # a tag too many memories hold is left to the store's filter (a common one here; the rare one still indexed)
        monkeypatch.setattr(lexical_index, "TAGGED_MOST", 15)
        writer.add("one more cache alpha", workspace="a", tags={"rare": "yes", "team": "core"})
        assert reader.lexical.tagged({"team": "core"}, "all", "a") is None
        assert reader.lexical.tagged({"rare": "yes"}, "all", "a") is not None
        assert_filtered(reader, target, rng)
