"""Query-side stages on plain lists: pseudo-relevance feedback (dense, lexical) and the spread over threads."""

from __future__ import annotations

import numpy as np
import pytest

from knotwork.search.feedback import expansion_terms, feedback, lexical_feedback, thread_spread
from knotwork.search.rerankers import Candidate


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def ids(cs: list[Candidate]) -> list[str]:
    return [c.id for c in cs]


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_feedback_lifts_what_resembles_the_first_results_more_than_the_query() -> None:
    # The query points along x; the first two results lean toward y; "c" is all y, "d" all -y.
    vectors = {"a": unit(1, 1), "b": unit(1, 0.8), "c": unit(0.1, 1), "d": unit(0.1, -1)}
    before = cands(("a", 0.9), ("b", 0.8), ("d", 0.5), ("c", 0.5))
    out = feedback(before, vectors, unit(1, 0), depth=2, alpha=1.0, weight=0.5)
    assert ids(out).index("c") < ids(out).index("d")  # tied before; the topic of the top two decides
    q2 = unit(1, 0) + (vectors["a"] + vectors["b"]) / 2
    q2 = q2 / np.linalg.norm(q2)
    got = {c.id: c.score for c in out}
    assert got["c"] == pytest.approx(0.5 * 0.5 + 0.5 * float(vectors["c"] @ q2), abs=1e-6)
    assert all(c.scores["feedback"] == c.score for c in out)


def test_feedback_without_a_query_vector_or_weight_changes_nothing() -> None:
    before = cands(("a", 0.9), ("b", 0.5))
    vectors = {"a": unit(1, 0), "b": unit(0, 1)}
    for out in (feedback(before, vectors, None), feedback(before, vectors, unit(0, 1), weight=0.0), feedback(before, {}, unit(1, 0))):
        assert [(c.id, c.score) for c in out] == [("a", 0.9), ("b", 0.5)]


def test_feedback_scores_a_candidate_without_a_vector_as_unrelated() -> None:
    out = {c.id: c.score for c in feedback(cands(("a", 0.8), ("b", 0.8)), {"a": unit(1, 0)}, unit(1, 0), depth=1, weight=0.5)}
    assert out["a"] == pytest.approx(0.4 + 0.5)
    assert out["b"] == pytest.approx(0.4)


def test_expansion_terms_weigh_score_share_and_rarity_and_skip_the_query_and_one_off_words() -> None:
    docs = [(["guitar", "amp", "lesson", "amp"], 1.0), (["amp", "lesson", "tuner"], 0.8), (["lesson", "piano"], 0.1)]
    assert expansion_terms(docs, ["guitar"], lambda t: 1.0, terms=5) == ["amp", "lesson"]  # tuner, piano: one text each
    rare_lesson = {"amp": 0.1, "lesson": 5.0}
    assert expansion_terms(docs, ["guitar"], rare_lesson.__getitem__, terms=1) == ["lesson"]
    assert expansion_terms(docs, ["guitar"], lambda t: 1.0, terms=0) == []
    assert expansion_terms([(["amp"], 0.0), (["amp"], 0.0)], [], lambda t: 1.0) == []  # a result scoring nothing gives nothing


def test_lexical_feedback_blends_the_second_pass() -> None:
    before = cands(("a", 0.9), ("b", 0.6), ("c", 0.5))
    out = lexical_feedback(before, {"c": 1.0, "b": 0.2}, weight=0.5)
    assert ids(out) == ["c", "a", "b"]
    assert {c.id: c.score for c in out} == pytest.approx({"a": 0.45, "b": 0.4, "c": 0.75})
    assert [(c.id, c.score) for c in lexical_feedback(before, {}, weight=0.5)] == [("a", 0.9), ("b", 0.6), ("c", 0.5)]


def test_thread_spread_holds_back_a_threads_extra_turns_from_the_top_only() -> None:
    before = cands(("a1", 0.9), ("a2", 0.8), ("a3", 0.7), ("b1", 0.6), ("x", 0.55), ("a4", 0.5), ("c1", 0.4))
    threads = {"a1": "A", "a2": "A", "a3": "A", "a4": "A", "b1": "B", "c1": "C"}  # "x" has no thread
    out = thread_spread(before, threads, k=4, per_thread=2)
    assert ids(out) == ["a1", "a2", "b1", "x", "a3", "a4", "c1"]
    assert [c.score for c in out][:4] == [0.9, 0.8, 0.6, 0.55]  # scores unchanged, only the order
    assert ids(thread_spread(before, threads, k=4, per_thread=3)) == ids(before)
    assert ids(thread_spread(before, {}, k=3, per_thread=1)) == ids(before)  # no threads: nothing held


def test_thread_spread_leaves_a_thread_that_holds_most_of_the_matches_alone() -> None:
    before = cands(("a1", 0.9), ("a2", 0.8), ("a3", 0.7), ("b1", 0.2), ("c1", 0.1))
    threads = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}  # A holds 2.4 of 2.7
    assert ids(thread_spread(before, threads, k=3, per_thread=2, max_share=0.8)) == ids(before)
    assert ids(thread_spread(before, threads, k=3, per_thread=2, max_share=0.9)) == ["a1", "a2", "b1", "a3", "c1"]


def test_speaker_favours_what_the_named_person_said_over_what_mentions_them() -> None:
    from knotwork.search.speakers import names_in, speaker, speaker_of

    contents = {"said": "Gus: I'm majoring in marine biology", "mentions": "Ava: did Gus tell you about school?",
                "role": "user: Gus and I talked", "plain": "Gus majors in biology"}
    speakers = {cid: speaker_of(text) for cid, text in contents.items()}
    assert speakers == {"said": "gus", "mentions": "ava", "role": None, "plain": None}
    before = cands(("mentions", 0.9), ("said", 0.8), ("role", 0.85), ("plain", 0.7))
    out = speaker(before, speakers, names_in("What did Gus say he is majoring in?"), boost=0.2)
    assert ids(out) == ["said", "mentions", "role", "plain"]
    assert {c.id: c.score for c in out} == pytest.approx({"said": 0.96, "mentions": 0.9, "role": 0.85, "plain": 0.7})
    # A question that names nobody, or a lower-case word that is also a speaker's name, changes nothing.
    for text in ("what is he majoring in?", "what did the user say?"):
        assert [(c.id, c.score) for c in speaker(before, {**speakers, "role": "user"}, names_in(text))] == [
            (c.id, c.score) for c in before]


def test_the_default_lifts_what_the_named_person_said_over_a_closer_mention(mem) -> None:
    from dataclasses import replace

    from knotwork.search.recipes import RECIPES

    mem.add("Ava: Gus says the marine biology course he signed up for starts soon", thread="a")
    mem.add("Gus: the marine biology course starts in May, I signed up last week", thread="b")
    mem.add("Ava: my sister works at the aquarium downtown", thread="c")
    question = "When does the marine biology course Gus signed up for start?"
    without = replace(
        RECIPES["memory_hybrid"], rerankers=tuple(s for s in RECIPES["memory_hybrid"].rerankers if s.name != "speaker")
    )
    # The scenario: without the step, Ava's mention of Gus outranks what Gus said.
    assert mem.search(question, recipe=without, limit=1)[0].memory.content.startswith("Ava: Gus says")
    assert mem.search(question, limit=1)[0].memory.content.startswith("Gus: the marine biology course")
    # A question that names nobody ranks as without the step.
    plain = "When does the marine biology course start?"
    assert [h.memory.id for h in mem.search(plain, limit=3)] == [h.memory.id for h in mem.search(plain, recipe=without, limit=3)]
