"""A memory's thread in search: the rerankers on plain lists, and the store's thread reads on both backends."""

from __future__ import annotations

import pytest

from knotwork import Knotwork
from knotwork.search.rerankers import Candidate, thread_neighbours, thread_score


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def ids(cs: list[Candidate]) -> list[str]:
    return [c.id for c in cs]


def test_thread_score_lifts_the_turns_of_the_best_thread() -> None:
    # a1 matched the words; a2, the answer beside it in the same conversation, matched less than b1.
    out = thread_score(cands(("a1", 0.9), ("b1", 0.5), ("a2", 0.4), ("c1", 0.45)), {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}, weight=0.5)
    assert ids(out) == ["a1", "a2", "b1", "c1"]
    assert out[1].score == pytest.approx(0.5 * 0.4 + 0.5 * 0.9)
    assert out[0].scores["thread_score"] == pytest.approx(0.9)  # a thread's best turn keeps its score
    assert out[2].score == pytest.approx(0.5)


def test_thread_score_members_counts_the_next_best_turns() -> None:
    threads = {"a1": "A", "a2": "A", "b1": "B"}
    out = thread_score(cands(("b1", 0.8), ("a1", 0.7), ("a2", 0.6)), threads, weight=0.5, members=2)
    # A: mean of 0.7 and 0.6 = 0.65; B alone: (0.8 + 0) / 2 = 0.4.
    assert [round(c.score, 4) for c in out] == [0.675, 0.625, 0.6]
    assert ids(out) == ["a1", "a2", "b1"]


def test_thread_score_leaves_memories_without_a_thread_alone() -> None:
    before = cands(("x", 0.9), ("y", 0.3), ("a1", 0.5), ("a2", 0.1))
    out = thread_score(before, {"a1": "A", "a2": "A"}, weight=0.5)
    assert {c.id: c.score for c in out}["x"] == 0.9 and {c.id: c.score for c in out}["y"] == 0.3
    assert [c.score for c in thread_score(before, {}, weight=0.5)] == [0.9, 0.5, 0.3, 0.1]


def test_thread_neighbours_lifts_a_turn_beside_a_strong_one() -> None:
    # u: the user's turn holding the fact; r: the reply that repeats the question's words; x: elsewhere.
    out = thread_neighbours(cands(("r", 0.9), ("x", 0.6), ("u", 0.5)), {"r": ["u"], "u": ["r"], "x": []}, weight=0.3)
    assert ids(out) == ["r", "u", "x"]
    assert out[1].score == pytest.approx(0.5 + 0.3 * 0.9)
    assert out[0].score == pytest.approx(0.9 + 0.3 * 0.5)
    assert out[2].score == pytest.approx(0.6)


def test_thread_neighbours_expand_brings_in_a_neighbour_that_matched_nothing() -> None:
    base = cands(("r", 0.9), ("x", 0.2))
    around = {"r": ["u", "x"], "x": ["r"]}
    assert "u" not in ids(thread_neighbours(base, around, weight=0.3))
    out = thread_neighbours(base, around, weight=0.3, expand=True)
    assert ids(out) == ["r", "x", "u"]
    assert out[2].score == pytest.approx(0.27) and out[2].scores == {"thread_neighbours": pytest.approx(0.27)}
    # A neighbour list of a memory that is not a candidate lifts nothing.
    assert [c.score for c in thread_neighbours(base, {"gone": ["x"]}, weight=0.3)] == [0.9, 0.2]


def test_store_reads_threads_and_neighbours(mem: Knotwork) -> None:
    # Two conversations interleaved in time, each turn of one session sharing its date; memories without a thread.
    def turn(text: str, thread: str | None, at: str) -> str:
        meta = {"thread": thread} if thread else {}
        return mem.add(text, workspace="w", metadata=meta, valid_at=at, force=True).id

    a0 = turn("a zero", "A", "2024-01-01T10:00:00Z")
    b0 = turn("b zero", "B", "2024-01-01T10:00:00Z")
    a1 = turn("a one", "A", "2024-01-01T10:00:00Z")
    n0 = turn("loose zero", None, "2024-01-02T10:00:00Z")
    a2 = turn("a two", "A", "2024-01-03T10:00:00Z")
    n1 = turn("loose one", None, "2024-01-01T09:00:00Z")
    other = mem.add("a three elsewhere", workspace="v", metadata={"thread": "A"}, force=True).id
    assert mem.store.memory_threads([a0, b0, n0, other, "missing"]) == {a0: "A", b0: "B", other: "A"}
    around = mem.store.thread_neighbours([a0, a1, a2, b0, n0, n1, other])
    assert around[a0] == ("A", [a1])
    assert around[a1] == ("A", [a0, a2])  # same date: by id; then the next date
    assert around[a2] == ("A", [a1])
    assert around[b0] == ("B", [])
    assert around[n0] == ("", [n1])  # no thread: time order within the workspace, among those without one
    assert around[n1] == ("", [n0])
    assert around[other] == ("A", [])  # a thread is within its workspace
