"""Vectors in the store: semantic matches, cross-process freshness, model bookkeeping."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

import knotwork
from knotwork import BackendUnavailable, Knotwork


def test_semantic_match_without_shared_words(mem: Knotwork) -> None:
    cat = mem.add("The cat sits on the mat")
    mem.add("Stock markets fell sharply today")
    hits = mem.search("kitten resting upon rugs", recipe="memory_vector")
    assert hits[0].memory.id == cat.id
    assert mem.search("kitten resting upon rugs", recipe="memory_bm25") == []  # no shared word


def test_unrelated_query_finds_nothing_by_vector(mem: Knotwork) -> None:
    mem.add("The cat sits on the mat")
    assert mem.search("zxqv", recipe="memory_vector") == []


def test_index_sees_writes_of_another_connection(db_path: Path) -> None:
    with knotwork.open(db_path) as reader, knotwork.open(db_path) as writer:
        assert reader.search("feline", recipe="memory_vector") == []
        m = writer.add("Our office cat is called Miso")
        assert [h.memory.id for h in reader.search("feline pet name", recipe="memory_vector")] == [m.id]
        writer.update(m.id, content="Our office dog is called Miso")
        writer.delete(m.id)
        assert reader.search("feline pet name", recipe="memory_vector") == []
        assert len(reader.index) == 0


def test_long_memory_tail_is_searchable(mem: Knotwork) -> None:
    filler = " ".join(f"Paragraph {i} talks about invoices, ledgers and quarterly accounting." for i in range(60))
    long = mem.add(filler + " Finally: the backup server lives in the Frankfurt data centre.")
    assert len(mem.embedder.chunks(long.content)) > 1
    hits = mem.search("where is the backup server located?", recipe="memory_vector")
    assert hits and hits[0].memory.id == long.id


def test_other_model_is_refused_until_reembed(db_path: Path) -> None:
    with knotwork.open(db_path) as mem:
        m = mem.add("vectors made by the bundled model")
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE store_meta SET value = 'some-other-model' WHERE key = 'embedding_model'")
    conn.commit()
    conn.close()
    with pytest.raises(BackendUnavailable, match="reembed"):
        knotwork.open(db_path)
    with knotwork.open(db_path, reembed=True) as mem:
        assert mem.reembed() == 1
    with knotwork.open(db_path) as mem:
        assert [h.memory.id for h in mem.search("bundled model vectors", recipe="memory_vector")] == [m.id]


def test_warm_loads_the_model_and_the_index_before_the_first_search(db_path: Path) -> None:
    with knotwork.open(db_path) as writer:
        writer.add_many([{"content": "The cat sits on the mat"}, {"content": "Stock markets fell", "workspace": "w"}])
    with knotwork.open(db_path) as mem:
        assert len(mem.index) == 0  # the model may be shared with the writer; the index is this store's own
        mem.warm()
        assert mem.embedder.loaded and len(mem.index) == 2


def test_chat_turns_recipe_puts_a_newer_restatement_first_unless_the_question_looks_back(mem: Knotwork) -> None:
    from dataclasses import replace

    from knotwork.search.recipes import RECIPES

    old = mem.add("My personal best time in the charity 5K run is 27:12.", valid_at="2023-05-01T10:00:00Z")
    mem.add("Can you suggest a playlist for long drives?", valid_at="2023-05-03T10:00:00Z")
    new = mem.add(
        "Training is going well: my best 5K time in the charity run is now 25:50, a personal record.",
        valid_at="2023-07-01T10:00:00Z",
    )
    question = "What is my personal best time in the charity 5K?"
    hybrid = RECIPES["memory_chat_turns"]
    assert "rerank:restated" in hybrid.stages()
    without = replace(hybrid, rerankers=tuple(r for r in hybrid.rerankers if r.name != "restated"))
    assert [h.memory.id for h in mem.search(question, recipe=without)][:2] == [old.id, new.id]  # the words favour the old one
    assert [h.memory.id for h in mem.search(question, recipe=hybrid)][:2] == [new.id, old.id]
    first = "What was my personal best in the charity 5K at first?"
    assert [h.memory.id for h in mem.search(first, recipe=hybrid)][:2] == [old.id, new.id]


def test_opening_a_store_limits_blas_to_the_configured_threads(tmp_path: Path) -> None:
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas() -> set[int]:
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    import knotwork.search.vector_index  # noqa: F401  (loaded first, as in any long-running process)

    pytest.importorskip("scipy.linalg")  # a second BLAS (SciPy's OpenBLAS), loaded after: it is limited too
    with threadpool_limits(limits=2, user_api="blas"):
        with knotwork.open(tmp_path / "a.db", settings=knotwork.Settings(embedder="none", blas_threads=0)):
            assert blas() == {2}  # 0: left as found
        with knotwork.open(tmp_path / "b.db", settings=knotwork.Settings(embedder="none")):
            assert blas() == {1}  # the default: one


def test_closest_passage_is_the_passage_that_matches_the_query(mem: Knotwork) -> None:
    filler = " ".join(f"Paragraph {i} talks about invoices, ledgers and quarterly accounting." for i in range(12))
    long = mem.add(filler + " Finally: the backup server lives in the Frankfurt data centre.")
    passages = mem.embedder.chunks(long.content)
    assert len(passages) > 2
    query = mem.embedder.embed_query("where is the backup server hosted?")
    found = mem.index.closest_passages([long.id, "no-such-memory"], query)
    assert list(found) == [long.id]
    wanted = next(p for p in passages if "Frankfurt" in p)
    # SQLite keeps vectors as int8 with a scale (store/sqlite/scaled.py): a component moves by half a step (the
    # largest component / 254), and by a little more once the vector is made unit length again
    fresh = mem.embedder.embed([wanted])[0]
    np.testing.assert_allclose(found[long.id], fresh, atol=float(np.abs(fresh).max()) / 127)


def test_memory_current_puts_a_later_memory_about_the_thing_the_query_names_first(mem: Knotwork) -> None:
    from dataclasses import replace

    from knotwork.search.recipes import RECIPES, step

    old = mem.add(
        "Quick update on my side project: my Instagram account has 1,200 followers, mostly from the travel photos.",
        valid_at="2023-05-01T10:00:00Z",
    )
    mem.add("Can you suggest a playlist for long drives?", valid_at="2023-05-03T10:00:00Z")
    new = mem.add(
        "I'd like tips for planning a photo walk in the old town. By the way, Instagram says I'm at 1,500 followers now.",
        valid_at="2023-07-01T10:00:00Z",
    )
    question = "How many followers do I have on Instagram?"
    # The two say it differently (closest passages' cosine ~0.67, under 0.75), but both mention
    # the entity the question names, Instagram (from offline extraction): memory_current needs only 0.4.
    assert [h.memory.id for h in mem.search(question)][:2] == [old.id, new.id]  # the default: not a restatement
    assert [h.memory.id for h in mem.search(question, recipe="memory_current")][:2] == [new.id, old.id]
    current = RECIPES["memory_current"]
    tighter = replace(
        current,
        rerankers=tuple(step("restated", threshold=0.75, topic_threshold=0.7) if r.name == "restated" else r for r in current.rerankers),
    )
    assert [h.memory.id for h in mem.search(question, recipe=tighter)][:2] == [old.id, new.id]


def test_vector_candidates_in_a_small_workspace_are_the_exact_nearest(target: str) -> None:
    """Within a workspace (and the global scope) the k-NN is exact, each memory by its nearest chunk, on both backends."""
    import random

    from knotwork.domain.models import MemoryFilter
    from knotwork.domain.temporal import now
    from tests._fakes import chunky, open_fake

    rng = random.Random(3)
    with open_fake(target) as mem:
        spaces = ["big"] * 8 + ["small", None]
        stored = mem.add_many([{"content": chunky(i), "workspace": rng.choice(spaces)} for i in range(400)], consolidate=False)
        vectors = {m.id: [np.frombuffer(b, dtype="<f4") for b in mem.store.vectors_by_memory([m.id])[m.id][1]] for m in stored}
        for _ in range(5):
            query = np.array([rng.gauss(0, 1) for _ in range(8)], dtype=np.float32)
            query /= np.linalg.norm(query)
            want = sorted(
                ((m.id, max(float(v @ query) for v in vectors[m.id])) for m in stored if m.workspace in (None, "small")),
                key=lambda p: -p[1],
            )[:10]
            got = mem.store.vector_candidates(mem.index, query, 10, MemoryFilter(workspace="small"), now(), -1.0)
            assert [m for m, _ in got] == [m for m, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
