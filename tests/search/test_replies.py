"""The reply to a question that matched: the step on plain lists, the store's read on both backends, a search end to end."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from knotwork import Knotwork
from knotwork.domain.models import MemoryFilter
from knotwork.search.recipes import RECIPES, step
from knotwork.search.replies import asks, reply_lift
from knotwork.search.rerankers import Candidate


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def test_a_question_lifts_the_turn_after_it_and_a_statement_does_not() -> None:
    before = cands(("q", 0.8), ("s", 0.7), ("x", 0.5), ("r", 0.2), ("t", 0.1))
    after = {"q": ("", "r", 30.0), "s": ("", "t", 30.0)}
    out = {c.id: c.score for c in reply_lift(before, {"q": True, "s": False}, after, weight=0.5)}
    assert out["r"] == pytest.approx(0.2 + 0.5 * 0.8)
    assert out["t"] == 0.1 and out["q"] == 0.8 and out["x"] == 0.5


def test_without_a_thread_only_a_turn_that_came_soon_is_a_reply_and_depth_bounds_the_askers() -> None:
    before = cands(("q", 0.8), ("r", 0.2))
    late = {"q": ("", "r", 3600.0)}
    assert [c.score for c in reply_lift(before, {"q": True}, late, gap_minutes=30)] == [0.8, 0.2]
    in_thread = {"q": ("chat", "r", 3600.0)}  # in a thread the next turn is the reply however late it came
    assert {c.id: c.score for c in reply_lift(before, {"q": True}, in_thread)}["r"] == pytest.approx(0.6)
    deep = cands(("a", 0.9), ("q", 0.8), ("r", 0.2))
    assert {c.id: c.score for c in reply_lift(deep, {"q": True}, {"q": ("", "r", 5.0)}, depth=1)}["r"] == 0.2


def test_a_reply_that_matched_nothing_joins_with_expand() -> None:
    out = reply_lift(cands(("q", 0.8), ("x", 0.3)), {"q": True}, {"q": ("", "new", 5.0)}, weight=0.5)
    assert [(c.id, c.score) for c in out] == [("q", 0.8), ("new", 0.4), ("x", 0.3)]
    kept = reply_lift(cands(("q", 0.8), ("x", 0.3)), {"q": True}, {"q": ("", "new", 5.0)}, expand=False)
    assert [c.id for c in kept] == ["q", "x"]


def test_asks() -> None:
    assert asks("Gus: Flying Sumo, is that a sushi place?") and asks("Ava: really?)  ")
    assert not asks("Eli: In Seattle.") and not asks("What? No, we ship on Thursdays.")


def test_store_reads_the_memory_after_each(mem: Knotwork) -> None:
    def add(text: str, at: str, thread: str | None = None, agent: str | None = None, tags: dict | None = None) -> str:
        return mem.add(text, workspace="w", thread=thread, agent_id=agent, valid_at=at, tags=tags, force=True).id

    q = add("Where did you serve?", "2024-05-01T10:00:00Z")
    other = add("a turn of a chat", "2024-05-01T10:00:30Z", thread="chat")  # in a thread: not next in time
    bot = add("a bot's note", "2024-05-01T10:00:40Z", agent="bot")  # another partition
    r = add("Sao Paulo,\nin Brazil", "2024-05-01T10:01:00Z", tags={"kind": "answer"})
    t2 = add("the chat goes on", "2024-05-02T10:00:30Z", thread="chat")
    now = datetime(2024, 6, 1, tzinfo=UTC)
    replies = mem.store.memory_replies([q, other, r, bot, "missing"], MemoryFilter(workspace="w"), now)
    assert replies[q] == ("", r, 60.0, True, 4)  # words as ranking_facts counts them (a line break splits too)
    assert replies[q].words == mem.store.ranking_facts([r])[r].words
    assert replies[other] == ("chat", t2, 86400.0, False, 4)
    assert r not in replies and bot not in replies  # nothing after them
    # The reply must pass the search's filter: a tag only the answer has keeps the question's row, not the chat's.
    tagged = mem.store.memory_replies([q, other], MemoryFilter(workspace="w", tags={"kind": "answer"}), now)
    assert set(tagged) == {q} and tagged[q].reply == r
    assert mem.store.memory_replies([q, other], MemoryFilter(workspace="elsewhere"), now) == {}
    mem.update(r, invalid_at="2024-05-20T00:00:00Z")  # retired before the search's moment: no longer a reply
    assert q not in mem.store.memory_replies([q], MemoryFilter(workspace="w"), now)
    assert q in mem.store.memory_replies([q], MemoryFilter(workspace="w", include_invalid=True), now)


ENDINGS = [
    "Where did you serve?", "really?)  ", '"Why not?"', "Is it 'fine?'\n", "Is it？", "¿Qué?\u3000", "Why?\u2029",
    "Why?\x1c", "What? No, we ship on Thursdays.", "Done.", "a ?\" ", "a? \"", "", "   ", "?", "»?»", "x?\t)",
]


def test_the_white_space_the_store_trims_is_what_python_strips() -> None:
    from knotwork.store.threads import WHITE_SPACE

    assert WHITE_SPACE == "".join(c for c in map(chr, range(0x110000)) if c.isspace())


def test_the_store_reads_a_question_as_asks_does(mem: Knotwork) -> None:
    """Each memory's 'asks' as the store reads it in SQL is what search/replies.py ``asks`` says of its text."""
    ids = []
    for n, text in enumerate(ENDINGS):
        ids.append(mem.add(f"turn {n}: {text}", workspace="w", thread="t", valid_at=f"2024-05-01T10:{n:02d}:00Z", force=True).id)
    ids.append(mem.add("the last turn", workspace="w", thread="t", valid_at="2024-05-01T11:00:00Z", force=True).id)
    stored = {i: m.content for i, m in mem.store.get_memories(ids).items()}
    replies = mem.store.memory_replies(ids, MemoryFilter(workspace="w"), datetime(2024, 6, 1, tzinfo=UTC))
    assert set(replies) == set(ids[:-1])
    read = {i: replies[i].asks for i in ids[:-1]}
    assert read == {i: asks(stored[i]) for i in ids[:-1]}
    assert sum(read.values()) >= 8 and not all(read.values())  # both kinds are in the set


QUESTION = "Where did Eli serve his mission?"


def test_the_answer_after_the_question_comes_up(mem: Knotwork) -> None:
    turns = [
        ("Gia: It just made itself comfortable! Where did you serve your mission?", "2024-05-01T10:00:00Z"),
        ("Eli: Sao Paulo south in Brazil. Have you served?", "2024-05-01T10:00:40Z"),
        ("Gia: Not yet, I leave for Ohio in June.", "2024-05-01T10:01:30Z"),
        ("Eli: My brother talks about his mission all the time.", "2024-05-03T09:00:00Z"),
        ("Eli: The mission office called twice today.", "2024-05-04T09:00:00Z"),
    ]
    ids = [mem.add(text, workspace="w", valid_at=at, force=True).id for text, at in turns]
    plain = [h.memory.id for h in mem.search(QUESTION, workspace="w", recipe=replace(RECIPES["memory_hybrid"], rerankers=()))]
    assert plain.index(ids[3]) < plain.index(ids[1])  # the words alone: another mission turn first
    recipe = replace(RECIPES["memory_hybrid"], name="replies", rerankers=(step("reply_lift", weight=0.5),))
    hits = mem.search(QUESTION, workspace="w", recipe=recipe, explain=True)
    after = [h.memory.id for h in hits]
    assert mem.last_trace is not None and mem.last_trace.names() == recipe.stages()
    assert after.index(ids[1]) < after.index(ids[3])
    answer = hits[after.index(ids[1])].explain
    assert answer["reply_lift"] > answer["fused"]


def test_with_max_words_a_long_reply_is_left_alone() -> None:
    before = cands(("q", 0.8), ("r", 0.2), ("long", 0.1))
    after = {"q": ("t", "r", 5.0)}
    short = {c.id: c.score for c in reply_lift(before, {"q": True}, after, lengths={"r": 4}, max_words=40)}
    assert short["r"] == pytest.approx(0.6)
    long = {c.id: c.score for c in reply_lift(before, {"q": True}, {"q": ("t", "long", 5.0)}, lengths={"long": 41}, max_words=40)}
    assert long["long"] == 0.1
