"""Of two current memories that state one attribute with two values, the later ranks first; two memories that can
both hold keep their order (search/later.py): on plain lists, and through search on both backends."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
import numpy as np

from knotwork.search.later import LATER_FRAME, TEXT_CHARS, another_value, later_value, value_change
from knotwork.search.recipes import DEFAULT_RECIPE, RECIPES, step
from knotwork.search.rerankers import Candidate

JAN, MAR, JUN = (datetime(2025, m, 10, 9, tzinfo=UTC) for m in (1, 3, 6))
ES = "Search is powered by Elasticsearch 7."
OS = "Search is powered by OpenSearch 2.11 after the licence review."
K8S = "The orders service runs on Kubernetes."
# a pair consolidation leaves both current (the cosine of the whole texts is under its frame floor, and the key
# reader, hygiene/keys.py, knows no "are forwarded to"; "go to" it reads, and retires the older at the add)
AMP = "Analytics events are forwarded to Amplitude."
HOG = "Analytics events are forwarded to PostHog, self-hosted in our own cluster."
# the default without this step: what the order would be
WITHOUT = replace(RECIPES[DEFAULT_RECIPE],
                  rerankers=tuple(s for s in RECIPES[DEFAULT_RECIPE].rerankers if s.name != "later_value"))

# the default's step with the rules' reading only (no vectors): what the order was before the vector reading
RULES_ONLY = replace(RECIPES[DEFAULT_RECIPE], rerankers=tuple(
    step("later_value") if s.name == "later_value" else s for s in RECIPES[DEFAULT_RECIPE].rerankers))
# a pair no consolidation rule reads as one value changed (both stay current), in two frames that line up
SIZE = "The firmware image size limit is 512 KB."
SIZE2 = "After the flash layout change the image size limit is 768 KB."


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def ids(cs: list[Candidate]) -> list[str]:
    return [c.id for c in cs]


def test_the_later_value_moves_right_above_the_earlier_one_and_nothing_else_moves() -> None:
    texts = {"es": ES, "k8s": K8S, "os": OS}
    dates = {"es": JAN, "k8s": MAR, "os": JUN}
    out = later_value(cands(("es", 0.9), ("k8s", 0.5), ("os", 0.4)), texts, dates)
    assert ids(out) == ["os", "es", "k8s"]
    assert out[0].score == 0.9 and out[0].scores["later_value"] == 0.9  # it takes the place's score
    # already first, or the earlier one dated later (an old note with a new date is not told apart): no move
    assert ids(later_value(cands(("os", 0.9), ("es", 0.5)), texts, dates)) == ["os", "es"]
    assert ids(later_value(cands(("es", 0.9), ("os", 0.5)), texts, {"es": JUN, "os": JAN})) == ["es", "os"]
    # no date, no text, a text too long to be one statement, or the pair below the depth: no move
    assert ids(later_value(cands(("es", 0.9), ("os", 0.5)), texts, {"es": JAN, "os": None})) == ["es", "os"]
    assert ids(later_value(cands(("es", 0.9), ("os", 0.5)), {"es": ES}, dates)) == ["es", "os"]
    long = {"es": ES, "os": OS + " " + "x" * TEXT_CHARS}
    assert ids(later_value(cands(("es", 0.9), ("os", 0.5)), long, dates)) == ["es", "os"]
    assert ids(later_value(cands(("es", 0.9), ("k8s", 0.5), ("os", 0.4)), texts, dates, depth=2)) == ["es", "k8s", "os"]
    assert later_value([], texts, dates) == []


def test_only_a_pair_of_one_scope_moves() -> None:
    texts, dates = {"es": ES, "os": OS}, {"es": JAN, "os": JUN}
    pair = cands(("es", 0.9), ("os", 0.5))
    one = {"es": ("w", "", ""), "os": ("w", "", "t1")}  # the thread is not a scope
    assert ids(later_value(pair, texts, dates, one)) == ["os", "es"]
    for other in (("", "", ""), ("w", "agent-a", "")):  # a global memory, another agent's partition
        assert ids(later_value(pair, texts, dates, {"es": ("w", "", ""), "os": other})) == ["es", "os"]


def test_at_most_the_given_number_of_pairs_is_read() -> None:
    texts = {"es": ES, "k8s": K8S, "os": OS, "es2": "Search is powered by Elasticsearch 8."}
    dates = {"es": JAN, "es2": MAR, "k8s": MAR, "os": JUN}
    ranked = cands(("es", 0.9), ("es2", 0.8), ("os", 0.5))
    assert ids(later_value(ranked, texts, dates)) == ["os", "es2", "es"]
    assert ids(later_value(ranked, texts, dates, pairs=0)) == ["es", "es2", "os"]
    # one reading: es against es2 (the first pair walking down) is a change, es against os is not read
    assert ids(later_value(ranked, texts, dates, pairs=1)) == ["es2", "es", "os"]


def test_a_chain_of_three_values_ends_latest_first() -> None:
    texts = {"a": "The public API rate limit is 100 requests per minute per key.",
             "b": "The public API rate limit is 300 requests per minute per key.",
             "c": "The public API rate limit is 500 requests per minute per key."}
    dates = {"a": JAN, "b": MAR, "c": JUN}
    assert ids(later_value(cands(("a", 0.9), ("b", 0.8), ("c", 0.7)), texts, dates)) == ["c", "b", "a"]
    assert ids(later_value(cands(("b", 0.9), ("a", 0.8), ("c", 0.7)), texts, dates)) == ["c", "b", "a"]


@pytest.mark.parametrize(("first", "second"), [
    ("We use Postgres for orders.", "We use Redis for caching."),
    ("Alice leads platform.", "Marcus leads data."),
    ("Alice Chen is a maintainer of Harbor.", "Marcus Lee is a maintainer of Harbor."),
    ("Priya Nair works at Globex.", "Omar Haddad works at Initech."),
    ("The Ruby SIG meets on Tuesday at 10:00 PT.", "The Rust SIG meets on Tuesday at 09:00 PT."),
])
def test_two_statements_that_both_hold_keep_their_order(first: str, second: str) -> None:
    assert value_change(first, second) is None
    out = later_value(cands(("old", 0.9), ("new", 0.5)), {"old": first, "new": second}, {"old": JAN, "new": JUN})
    assert ids(out) == ["old", "new"]


@pytest.fixture
def smem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


def test_the_default_search_has_the_step() -> None:
    assert "rerank:later_value" in RECIPES[DEFAULT_RECIPE].stages()
    assert len(WITHOUT.rerankers) == len(RECIPES[DEFAULT_RECIPE].rerankers) - 1


def test_search_puts_the_later_of_two_current_values_first(smem: Knotwork) -> None:
    old = smem.add(AMP, workspace="w", valid_at=JAN)
    smem.add(K8S, workspace="w", valid_at=MAR)
    new = smem.add(HOG, workspace="w", valid_at=JUN)
    assert (old.decision, new.decision) == ("ADD", "ADD")  # both current: consolidation does not read this pair
    plain = [h.memory.id for h in smem.search("where do analytics events go?", workspace="w", recipe=WITHOUT)]
    assert plain.index(old.id) < plain.index(new.id)  # the older matches the question's words better
    hits = smem.search("where do analytics events go?", workspace="w", explain=True)
    found = [h.memory.id for h in hits]
    assert found.index(new.id) == found.index(old.id) - 1
    assert "later_value" in hits[0].explain


def test_search_leaves_a_global_value_and_a_workspaces_value_in_their_order(smem: Knotwork) -> None:
    glob = smem.add(ES, valid_at=JAN)  # every workspace's default; the workspace's own later value holds there only
    mine = smem.add(OS, workspace="w", valid_at=JUN)
    plain = [h.memory.id for h in smem.search("what powers search?", workspace="w", recipe=WITHOUT)]
    assert plain.index(glob.id) < plain.index(mine.id)
    assert [h.memory.id for h in smem.search("what powers search?", workspace="w")] == plain


def test_search_keeps_two_compatible_memories_in_their_order(smem: Knotwork) -> None:
    pg = smem.add("We use Postgres for orders.", workspace="w", valid_at=JAN)
    redis = smem.add("We use Redis for caching.", workspace="w", valid_at=JUN)
    plain = [h.memory.id for h in smem.search("what do we use for orders?", workspace="w", recipe=WITHOUT)]
    assert plain.index(pg.id) < plain.index(redis.id)
    later = [h.memory.id for h in smem.search("what do we use for orders?", workspace="w")]
    assert later == plain


def unit(angle: float) -> np.ndarray:
    """A unit vector at ``angle`` radians from (1, 0): two of them have the cosine of the angle between them."""
    return np.array([np.cos(angle), np.sin(angle)], dtype=np.float32)


@pytest.mark.parametrize(("older", "newer", "read"), [
    (SIZE, SIZE2, True),
    ("The serving p99 latency budget is 120 ms.", "The serving p99 latency budget is 80 ms for the ranking model.", True),
    ("Cobalt runs on Zephyr RTOS 3.4.", "Cobalt runs on Zephyr RTOS 3.6 from the 2.4.0 firmware release on.", True),
    # two releases' records, two people, two groups: the opening names two things
    ("Flask 2.0.0: Drop support for Python 3.5.", "Flask 2.3.0: Drop support for Python 3.7.", False),
    ("Alice Chen is a maintainer of Harbor.", "Marcus Lee is a maintainer of Harbor.", False),
    ("The Ruby SIG meets on Tuesday at 10:00 PT.", "The Rust SIG meets on Tuesday at 09:00 PT.", False),
    # a name after a shared name: two groups of one project, one may be in both
    ("Charles Kerr is a member of the Electron API working group.",
     "Charles Kerr is a member of the Electron Releases working group.", False),
    # a subject and its value both other: two releases
    ("The first release of Python 3.9 is dated 2020-10-05.", "The first release of Python 3.7 is dated 2018-06-27.", False),
    # no value on one side, or nothing besides the values to line up, or frames that do not line up
    ("Fay: Okay.", "Fay: Right!", False),
    ("Council votes stay open for five days.", "Members have seven days to vote once a proposal has been seconded.", False),
    ("The test suite runs with nose.", "Switched to the pytest test runner.", False),
    ("The docs team meets every Monday.", "The docs team meets every Monday at noon.", False),
])
def test_another_value_in_one_frame(older: str, newer: str, read: bool) -> None:
    assert another_value(older, newer, LATER_FRAME) is read


def test_alike_vectors_move_a_later_value_the_rules_do_not_read() -> None:
    texts, dates = {"old": SIZE, "new": SIZE2}, {"old": JAN, "new": JUN}
    assert value_change(SIZE, SIZE2) is None  # no consolidation rule reads this pair
    pair = cands(("old", 0.9), ("new", 0.5))
    near = {"old": unit(0.0), "new": unit(0.6)}  # cosine 0.83
    assert ids(later_value(pair, texts, dates, vectors=near, cosine=0.7)) == ["new", "old"]
    # off, or the vectors less alike than asked
    assert ids(later_value(pair, texts, dates, vectors=near)) == ["old", "new"]
    assert ids(later_value(pair, texts, dates, vectors={"old": unit(0.0), "new": unit(1.0)}, cosine=0.7)) == ["old", "new"]
    # one telling: two turns of one thread, or two memories written minutes apart
    one = {"old": ("w", "", "t1"), "new": ("w", "", "t1")}
    assert ids(later_value(pair, texts, dates, one, vectors=near, cosine=0.7)) == ["old", "new"]
    two = {"old": ("w", "", "t1"), "new": ("w", "", "t2")}
    assert ids(later_value(pair, texts, dates, two, vectors=near, cosine=0.7)) == ["new", "old"]
    soon = {"old": JAN, "new": JAN.replace(minute=10)}
    assert ids(later_value(pair, texts, soon, vectors=near, cosine=0.7)) == ["old", "new"]


def test_the_default_reads_vectors() -> None:
    assert dict(next(s for s in RECIPES[DEFAULT_RECIPE].rerankers if s.name == "later_value").kwargs()).get("cosine")


def test_search_puts_the_later_of_two_alike_values_first(smem: Knotwork) -> None:
    old = smem.add(SIZE, workspace="w", valid_at=JAN)
    smem.add(K8S, workspace="w", valid_at=MAR)
    new = smem.add(SIZE2, workspace="w", valid_at=JUN)
    assert (old.decision, new.decision) == ("ADD", "ADD")  # both current
    question = "what is the firmware image size limit?"
    plain = [h.memory.id for h in smem.search(question, workspace="w", recipe=RULES_ONLY)]
    assert plain.index(old.id) < plain.index(new.id)  # the older matches the question's words better
    found = [h.memory.id for h in smem.search(question, workspace="w")]
    assert found.index(new.id) == found.index(old.id) - 1


def test_search_keeps_two_release_records_in_their_order(smem: Knotwork) -> None:
    # alike (cosine 0.97) and one frame with two values, but the openings name two releases: both records hold
    first = smem.add("Flask 2.0.0: Drop support for Python 3.5.", workspace="w", valid_at=JAN)
    later = smem.add("Flask 2.3.0: Drop support for Python 3.7.", workspace="w", valid_at=JUN)
    assert (first.decision, later.decision) == ("ADD", "ADD")
    question = "which Flask release dropped Python 3.5?"
    plain = [h.memory.id for h in smem.search(question, workspace="w", recipe=WITHOUT)]
    assert plain.index(first.id) < plain.index(later.id)
    assert [h.memory.id for h in smem.search(question, workspace="w")] == plain
