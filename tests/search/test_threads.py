"""A memory's thread in search: the rerankers on plain lists, and the store's thread reads on both backends."""

from __future__ import annotations

import pytest

from knotwork import Knotwork
from knotwork.search.recipes import RECIPES
from knotwork.search.rerankers import Candidate, thread_neighbours, thread_score
from tests.search._threads import NO_THREAD_STEPS, QUESTION, THREADS, chat


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def ids(cs: list[Candidate]) -> list[str]:
    return [c.id for c in cs]


def test_thread_score_moves_a_turn_toward_its_threads_best_by_the_threads_share() -> None:
    # a1 matched the words; a2, beside it in the same conversation, matched less than b1.
    threads = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    out = thread_score(cands(("a1", 0.9), ("b1", 0.5), ("c1", 0.45), ("a2", 0.4)), threads)
    share_a = (0.9 + 0.4) / (0.9 + 0.5 + 0.45 + 0.4)
    assert ids(out) == ["a1", "a2", "b1", "c1"]
    assert out[1].score == pytest.approx(0.4 + share_a * (0.9 - 0.4))
    assert out[0].score == 0.9 and out[0].scores["thread_score"] == 0.9  # a thread's best turn keeps its score
    assert {c.id: c.score for c in out}["b1"] == 0.5  # so does a thread's only turn
    half = thread_score(cands(("a1", 0.9), ("b1", 0.5), ("c1", 0.45), ("a2", 0.4)), threads, weight=0.5)
    assert {c.id: c.score for c in half}["a2"] == pytest.approx(0.4 + 0.5 * share_a * 0.5)


def test_thread_score_moves_little_when_the_matches_are_spread_over_many_threads() -> None:
    # The same turn, in a thread holding most of the matches, and in one holding a sliver of them.
    concentrated = thread_score(cands(("a1", 0.9), ("a2", 0.8), ("a3", 0.4), ("b1", 0.5)), {"a1": "A", "a2": "A", "a3": "A", "b1": "B"})
    spread = cands(("a1", 0.9), *((f"o{i}", 0.85) for i in range(20)), ("b1", 0.5), ("a3", 0.4))
    diffuse = thread_score(spread, {"a1": "A", "a3": "A", "b1": "B", **{f"o{i}": f"O{i}" for i in range(20)}})
    lift = {c.id: c.score for c in concentrated}["a3"] - 0.4
    assert lift > 0.3
    assert 0 < {c.id: c.score for c in diffuse}["a3"] - 0.4 < lift / 5
    assert ids(diffuse)[-1] == "a3"  # still below the other threads' turns


def test_thread_score_counts_only_the_first_depth_candidates_and_leaves_unthreaded_alone() -> None:
    before = cands(("x", 0.9), ("a1", 0.5), ("y", 0.3), ("a2", 0.1))
    out = {c.id: c.score for c in thread_score(before, {"a1": "A", "a2": "A"})}
    assert out["x"] == 0.9 and out["y"] == 0.3
    assert out["a2"] == pytest.approx(0.1 + (0.6 / 1.8) * 0.4)
    assert {c.id: c.score for c in thread_score(before, {"a1": "A", "a2": "A"}, depth=2)}["a2"] == 0.1  # after the first depth: kept
    assert [c.score for c in thread_score(before, {})] == [0.9, 0.5, 0.3, 0.1]


def test_thread_neighbours_lifts_a_turn_beside_a_strong_one() -> None:
    # u: the user's turn holding the fact; r: the reply that repeats the question's words; x: elsewhere.
    around = {"r": ("T", ["u"]), "u": ("T", ["r"]), "x": ("X", [])}
    out = thread_neighbours(cands(("r", 0.9), ("x", 0.6), ("u", 0.5)), around, weight=0.3)
    assert ids(out) == ["r", "u", "x"]
    assert out[1].score == pytest.approx(0.5 + 0.3 * 0.9)
    assert out[0].score == pytest.approx(0.9 + 0.3 * 0.5)
    assert out[2].score == pytest.approx(0.6)


def test_thread_neighbours_in_time_only_when_asked() -> None:
    # No thread ('' ): r and u are next to each other in time only.
    around = {"r": ("", ["u"]), "u": ("", ["r"])}
    base = cands(("r", 0.9), ("x", 0.6), ("u", 0.5))
    assert [c.score for c in thread_neighbours(base, around, weight=0.3)] == [0.9, 0.6, 0.5]
    assert ids(thread_neighbours(base, around, weight=0.3, in_time=True)) == ["r", "u", "x"]


def test_thread_neighbours_expand_brings_in_a_neighbour_that_matched_nothing() -> None:
    base = cands(("r", 0.9), ("x", 0.2))
    around = {"r": ("T", ["u", "x"]), "x": ("T", ["r"])}
    assert "u" not in ids(thread_neighbours(base, around, weight=0.3))
    out = thread_neighbours(base, around, weight=0.3, expand=True)
    assert ids(out) == ["r", "x", "u"]
    assert out[2].score == pytest.approx(0.27) and out[2].scores == {"thread_neighbours": pytest.approx(0.27)}
    # A neighbour list of a memory that is not a candidate lifts nothing.
    assert [c.score for c in thread_neighbours(base, {"gone": ("T", ["x"])}, weight=0.3)] == [0.9, 0.2]


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
    threads = mem.store.memory_threads([a0, b0, n0, other, "missing"])
    assert threads == {a0: ("w", "", "A"), b0: ("w", "", "B"), other: ("v", "", "A")}
    assert threads[a0] != threads[other]  # the same name in another workspace is another thread
    around = mem.store.thread_neighbours([a0, a1, a2, b0, n0, n1, other])
    assert around[a0] == ("A", [a1])
    assert around[a1] == ("A", [a0, a2])  # same date: by id; then the next date
    assert around[a2] == ("A", [a1])
    assert around[b0] == ("B", [])
    assert around[n0] == ("", [n1])  # no thread: time order within the workspace, among those without one
    assert around[n1] == ("", [n0])
    assert around[other] == ("A", [])  # a thread is within its workspace


# -- end to end, on both backends ---------------------------------------------------------------------------------


def test_the_answer_of_the_fitting_thread_outranks_a_same_words_turn_of_another(mem: Knotwork) -> None:
    ids = chat(mem, thread=True)
    before = [h.memory.id for h in mem.search(QUESTION, workspace="w", recipe=NO_THREAD_STEPS)]
    assert before.index(ids["porto"]) < before.index(ids["answer"])  # the words alone put the other trip first
    hits = mem.search(QUESTION, workspace="w", recipe=THREADS, explain=True)
    after = [h.memory.id for h in hits]
    assert after.index(ids["answer"]) < after.index(ids["porto"])
    assert mem.last_trace is not None and mem.last_trace.names() == THREADS.stages()
    assert "rerank:thread_score" in mem.last_trace.names()
    answer = hits[after.index(ids["answer"])].explain
    assert answer["thread_score"] > answer["fused"]
    assert hits[0].explain["thread_score"] == hits[0].explain["fused"]  # the best turn keeps its score


def test_without_a_thread_key_thread_score_leaves_the_order_and_neighbours_in_time_count_on_request(mem: Knotwork) -> None:
    ids = chat(mem, thread=False)
    plain = mem.search(QUESTION, workspace="w", recipe=THREADS, explain=True)
    assert [h.memory.id for h in plain] == [h.memory.id for h in mem.search(QUESTION, workspace="w", recipe=NO_THREAD_STEPS)]
    assert all(h.explain["thread_score"] == h.explain["fused"] for h in plain)  # no thread: nothing to score it by
    hits = mem.search(QUESTION, workspace="w", recipe="memory_threads", explain=True)
    after = [h.memory.id for h in hits]
    assert mem.last_trace is not None and mem.last_trace.names() == RECIPES["memory_threads"].stages()
    answer = hits[after.index(ids["answer"])].explain
    assert answer["thread_neighbours"] > answer["reply_lift"]  # the turn before it, in time, matched (the step before: reply_lift)
    assert after.index(ids["answer"]) < after.index(ids["porto"])


def test_neighbours_come_from_the_thread_not_from_the_turn_next_in_time(mem: Knotwork) -> None:
    # Two conversations interleaved minute by minute: the answer's neighbour in time is another thread's turn.
    def add(text: str, thread: str, minute: int) -> str:
        return mem.add(text, workspace="w", metadata={"thread": thread}, valid_at=f"2024-05-01T10:{minute:02d}:00Z", force=True).id

    booked = add("User: We finally booked the flights for our anniversary trip.", "t1", 0)
    add("User: The printer on floor two is jammed again.", "t2", 1)
    answer = add("User: Lisbon, five nights in October.", "t1", 2)
    add("User: Ordered a new toner cartridge for the printer.", "t2", 3)
    around = mem.store.thread_neighbours([answer])[answer]
    assert around == ("t1", [booked])
    hits = {h.memory.id: h.explain for h in mem.search(QUESTION, workspace="w", recipe="memory_threads", explain=True)}
    lifted = hits[answer]
    assert lifted["thread_neighbours"] == pytest.approx(lifted["reply_lift"] + 0.2 * hits[booked]["reply_lift"])
