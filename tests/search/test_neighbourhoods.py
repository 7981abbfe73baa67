"""Neighbourhoods in time for memories without a thread: the step on plain lists, the store's read on both backends,
and a search end to end."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from knotwork import Knotwork
from knotwork.search.neighbourhoods import neighbourhood_score, neighbourhoods
from knotwork.search.recipes import step
from knotwork.search.rerankers import Candidate, thread_score
from tests.search._threads import QUESTION, THREADS, chat

T0 = datetime(2024, 5, 1, 10, 0)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def test_neighbourhoods_chain_memories_whose_times_follow_closely_within_one_workspace_and_partition() -> None:
    places = {
        "a": ("w", "", ""), "b": ("w", "", ""), "c": ("w", "", ""),  # 0, 20, 45 minutes: one chain at 30
        "d": ("w", "", ""),  # two hours later
        "p": ("w", "bot", ""),  # another partition, same minute as a
        "v": ("v", "", ""),  # another workspace
        "t": ("w", "", "x"), "u": ("w", "", "x"),  # a thread: kept, whatever the times
    }
    dates = {"a": at(0), "b": at(20), "c": at(45), "d": at(165), "p": at(0), "v": at(1), "t": at(0), "u": at(600)}
    keys = neighbourhoods(places, dates, 30)
    assert keys["a"] == keys["b"] == keys["c"]
    assert len({keys["a"], keys["d"], keys["p"], keys["v"]}) == 4
    assert keys["t"] == keys["u"] == ("thread", "w", "", "x")
    assert neighbourhoods(places, dates, 15)["b"] != neighbourhoods(places, dates, 15)["c"]  # 25 minutes apart
    same = {"e": ("w", "", ""), "f": ("w", "", "")}
    assert neighbourhoods(same, {"e": at(0), "f": at(0)}, 30)["e"] == neighbourhoods(same, {"e": at(0), "f": at(0)}, 30)["f"]
    apart = neighbourhoods(same, {"e": at(0), "f": at(0)}, 30, same_time=False)
    assert apart["e"] != apart["f"]


def test_neighbourhood_score_lifts_a_turn_of_the_conversation_that_holds_the_match() -> None:
    # q: the turn that says the question's words; r: the reply beside it; x, y: turns of other days.
    places = {i: ("w", "", "") for i in "qrxy"}
    dates = {"q": at(0), "r": at(1), "x": at(60 * 24), "y": at(60 * 48)}
    before = cands(("q", 0.9), ("x", 0.5), ("y", 0.45), ("r", 0.4))
    out = neighbourhood_score(before, places, dates, gap_minutes=30)
    share = (0.9 + 0.4) / (0.9 + 0.5 + 0.45 + 0.4)
    assert [c.id for c in out] == ["q", "r", "x", "y"]
    assert out[1].score == pytest.approx(0.4 + share * 0.5) and out[1].scores["neighbourhood_score"] == out[1].score
    assert "thread_score" not in out[1].scores
    # Exactly thread_score when the store names every thread.
    threaded = {i: ("w", "", i.upper()) for i in "qrxy"} | {"r": ("w", "", "Q")}
    same = neighbourhood_score(before, threaded, dates, gap_minutes=30)
    expected = thread_score(before, {i: p for i, p in threaded.items()})
    assert [(c.id, c.score) for c in same] == [(c.id, c.score) for c in expected]
    # Nothing close in time: nothing moves.
    far = {"q": at(0), "r": at(600), "x": at(60 * 24), "y": at(60 * 48)}
    assert [c.score for c in neighbourhood_score(before, places, far, gap_minutes=30)] == [0.9, 0.5, 0.45, 0.4]


def test_a_neighbourhood_that_holds_every_match_keeps_its_order() -> None:
    # Thirty notes written in one sitting, all matching: the share is 1 and every note rises to the best score.
    # They must tie exactly and keep the order the search gave them, not be reordered by rounding.
    scores = [0.36363637445798275] + [0.007645442680818432 - 1e-6 * i for i in range(29)]  # one note says "0"
    before = cands(*[(f"n{i}", s) for i, s in enumerate(scores)])
    places = {c.id: ("w", "", "") for c in before}
    dates = {c.id: at(i / 10) for i, c in enumerate(before)}
    out = neighbourhood_score(before, places, dates, gap_minutes=30)
    assert [c.id for c in out] == [c.id for c in before]
    assert {c.score for c in out} == {max(scores)} and out[0].id == "n0"
    # A share below 1 moves every note toward the best and still keeps their order.
    partly = neighbourhood_score(before, places, dates, gap_minutes=30, weight=0.5)
    assert [c.id for c in partly] == [c.id for c in before]


def test_a_search_over_notes_written_in_one_sitting_finds_each_by_its_own_words(mem: Knotwork) -> None:
    ids = [mem.add(f"worker note {i} on the payment retries").id for i in range(30)]
    for i, mid in enumerate(ids):
        assert mid in [h.memory.id for h in mem.search(f"worker note {i} payment retries", limit=3)]


def test_store_reads_each_memorys_place(mem: Knotwork) -> None:
    a = mem.add("a turn of a chat", workspace="w", thread="chat", force=True).id
    b = mem.add("a loose note", workspace="w", agent_id="bot", force=True).id
    c = mem.add("a global note", force=True).id
    assert mem.store.memory_places([a, b, c, "missing"]) == {a: ("w", "", "chat"), b: ("w", "bot", ""), c: ("", "", "")}


NEIGHBOURHOODS = replace(THREADS, name="neighbourhoods", rerankers=(step("neighbourhood_score", gap_minutes=30), *THREADS.rerankers[1:]))


def test_without_thread_keys_the_turns_of_one_sitting_are_scored_together(mem: Knotwork) -> None:
    ids = chat(mem, thread=False)  # the trip chat's turns a minute apart; the Porto chat two days later
    plain = [h.memory.id for h in mem.search(QUESTION, workspace="w", recipe=THREADS)]
    assert plain.index(ids["porto"]) < plain.index(ids["answer"])  # thread_score: words alone, no thread to go by
    hits = mem.search(QUESTION, workspace="w", recipe=NEIGHBOURHOODS, explain=True)
    after = [h.memory.id for h in hits]
    assert mem.last_trace is not None and mem.last_trace.names() == NEIGHBOURHOODS.stages()
    assert after.index(ids["answer"]) < after.index(ids["porto"])
    answer = hits[after.index(ids["answer"])].explain
    assert answer["neighbourhood_score"] > answer["fused"]
    default = [h.memory.id for h in mem.search(QUESTION, workspace="w")]  # the default has the step
    assert default.index(ids["answer"]) < default.index(ids["porto"])
    assert "rerank:neighbourhood_score" in mem.last_trace.names()
