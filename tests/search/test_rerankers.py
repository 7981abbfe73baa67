"""Rerankers and fusion on plain lists: no store, no model."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from knotwork.search import fusion, rerankers
from knotwork.search.rerankers import Candidate


def cands(*pairs: tuple[str, float]) -> list[Candidate]:
    return [Candidate(i, s, {"fused": s}) for i, s in pairs]


def ids(cs: list[Candidate]) -> list[str]:
    return [c.id for c in cs]


def test_rrf_rewards_agreement_and_uses_k() -> None:
    ranked = {"bm25": [("a", 9.0), ("b", 5.0), ("c", 1.0)], "vector": [("b", 0.9), ("d", 0.8), ("a", 0.1)]}
    out = fusion.rrf(ranked, k=60)
    assert ids(out)[:2] == ["b", "a"]  # both appear in both lists; b ranks 2+1, a ranks 1+3
    assert out[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert out[0].scores["bm25"] == 5.0 and out[0].scores["vector"] == 0.9
    small_k = fusion.rrf(ranked, k=1)
    assert small_k[0].score == pytest.approx(1 / 3 + 1 / 2)
    vector_only = fusion.rrf(ranked, k=60, weights={"bm25": 0.0})
    assert ids(vector_only)[:3] == ["b", "d", "a"]


def test_weighted_fusion_scales_each_source() -> None:
    ranked = {"bm25": [("a", 100.0), ("b", 50.0), ("c", 0.0)], "vector": [("c", 0.9), ("b", 0.5), ("a", 0.1)]}
    out = {c.id: c.score for c in fusion.weighted(ranked, weights={"bm25": 1.0, "vector": 1.0})}
    assert out["a"] == pytest.approx(1.0 + 0.0)
    assert out["b"] == pytest.approx(0.5 + 0.5)
    assert out["c"] == pytest.approx(0.0 + 1.0)
    out2 = fusion.weighted(ranked, weights={"bm25": 0.0, "vector": 1.0})
    assert ids(out2)[0] == "c"


def test_weighted_fusion_does_not_stretch_a_tiny_gap() -> None:
    # Two nearly equal vector matches: 0.60 and 0.59 must not become 1 and 0.
    out = {c.id: c.score for c in fusion.weighted({"vector": [("a", 0.60), ("b", 0.59)]})}
    assert out["a"] == pytest.approx(1.0)
    assert out["b"] == pytest.approx(1 - 0.01 / 0.30)
    lone = fusion.weighted({"bm25": [("x", 3.0)], "vector": [("y", 0.0)]})
    assert {c.id: c.score for c in lone} == {"x": 1.0, "y": 1.0}
    assert fusion.weighted({"bm25": [("a", 10.0), ("b", 9.0)]}, floor=0.0)[1].score == pytest.approx(0.0)


def test_node_distance_is_multi_hop() -> None:
    cs = cands(("far", 1.0), ("two", 0.9), ("one", 0.8), ("none", 0.95))
    out = rerankers.node_distance(cs, {"one": 1, "two": 2, "far": 4}, weight=0.5)
    score = {c.id: c.score for c in out}
    assert score["one"] == pytest.approx(0.5 * 0.8 + 0.5 / 2)
    assert score["two"] == pytest.approx(0.5 * 0.9 + 0.5 / 3)
    assert score["far"] == pytest.approx(0.5 * 1.0 + 0.5 / 5)
    assert score["none"] == pytest.approx(0.5 * 0.95)
    assert ids(out) == ["one", "two", "far", "none"]
    assert all("node_distance" in c.scores for c in out)


def test_episode_mentions() -> None:
    out = rerankers.episode_mentions(cands(("a", 1.0), ("b", 0.9)), {"b": 10}, weight=0.1)
    assert ids(out) == ["b", "a"]
    assert out[0].score == pytest.approx(0.9 * (1 + 0.1 * math.log(11)))


def test_mmr_prefers_novel_content() -> None:
    v = {"a": np.array([1.0, 0.0]), "a2": np.array([0.999, 0.0447]), "b": np.array([0.0, 1.0])}
    v = {k: x / np.linalg.norm(x) for k, x in v.items()}
    cs = cands(("a", 1.0), ("a2", 0.95), ("b", 0.7))
    assert ids(rerankers.mmr(cs, v, lambda_=1.0)) == ["a", "a2", "b"]  # pure relevance
    assert ids(rerankers.mmr(cs, v, lambda_=0.5)) == ["a", "b", "a2"]  # the near-duplicate waits
    assert ids(rerankers.mmr(cs, v, lambda_=0.5, k=2))[:2] == ["a", "b"]
    after_one = rerankers.mmr(cs, v, lambda_=0.5, k=1)  # past k, the incoming order stands
    assert ids(after_one) == ["a", "a2", "b"] and after_one[1].scores["mmr"] == -math.inf
    # MMR decides the order, not the score: each keeps its relevance
    assert {c.id: c.score for c in rerankers.mmr(cs, v, lambda_=0.5)} == {"a": 1.0, "a2": 0.95, "b": 0.7}
    assert ids(rerankers.mmr(cs, {}, lambda_=0.5)) == ["a", "a2", "b"]  # no vectors: relevance alone
    assert rerankers.mmr([], v) == []


def test_freshness_half_life_and_undated() -> None:
    now = datetime(2026, 1, 31, tzinfo=UTC)
    dates = {"old": now - timedelta(days=30), "new": now - timedelta(days=1), "undated": None}
    out = rerankers.freshness(cands(("old", 1.0), ("new", 0.6), ("undated", 0.5)), dates, now, half_life_days=30)
    score = {c.id: c.score for c in out}
    assert score["old"] == pytest.approx(math.exp(-1))
    assert score["new"] == pytest.approx(0.6 * math.exp(-1 / 30))
    assert score["undated"] == 0.5
    assert ids(out) == ["new", "undated", "old"]


def test_diversity_backfills() -> None:
    keys = {"a": "x.py", "b": "x.py", "c": "y.py", "d": None, "e": "x.py"}
    out = rerankers.diversity(cands(("a", 1.0), ("b", 0.9), ("c", 0.8), ("d", 0.7), ("e", 0.6)), keys)
    assert ids(out) == ["a", "c", "d", "b", "e"]
    out2 = rerankers.diversity(cands(("a", 1.0), ("b", 0.9), ("c", 0.8)), keys, per_key=2)
    assert ids(out2) == ["a", "b", "c"]


def test_novelty_penalises_recently_surfaced() -> None:
    out = rerankers.novelty(cands(("seen", 1.0), ("fresh", 0.7)), {"seen": 2.0}, weight=0.5)
    assert ids(out) == ["fresh", "seen"]
    assert out[1].score == pytest.approx(0.5)


def test_importance_boost() -> None:
    out = rerankers.importance(cands(("low", 1.0), ("high", 0.9)), {"low": 0.0, "high": 1.0}, weight=0.4)
    assert ids(out) == ["high", "low"]
    assert out[0].score == pytest.approx(0.9 * 1.2)
    assert out[1].score == pytest.approx(1.0 * 0.8)


def test_brevity_prefers_the_concise_match_by_a_power_of_relative_length() -> None:
    out = rerankers.brevity(cands(("long", 1.0), ("short", 0.8), ("unknown", 0.5)), {"long": 300, "short": 20}, weight=0.3)
    assert ids(out) == ["short", "long", "unknown"]
    mean = (300 + 20) / 2
    by_id = {c.id: c for c in out}
    assert by_id["short"].score == pytest.approx(0.8 * (20 / mean) ** -0.3)
    assert by_id["long"].score == pytest.approx(1.0 * (300 / mean) ** -0.3)
    assert by_id["unknown"].score == 0.5 and by_id["unknown"].scores["brevity"] == 0.5
    # weight 0 changes nothing; no lengths at all changes nothing
    assert [c.score for c in rerankers.brevity(cands(("a", 1.0), ("b", 0.5)), {"a": 10, "b": 90}, weight=0.0)] == [1.0, 0.5]
    assert ids(rerankers.brevity(cands(("a", 1.0), ("b", 0.5)), {})) == ["a", "b"]


def test_restated_puts_the_later_restatement_above_the_earlier_one() -> None:
    may, june, july = (datetime(2023, m, 1, tzinfo=UTC) for m in (5, 6, 7))
    same = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    close = np.array([0.9, np.sqrt(1 - 0.81), 0.0], dtype=np.float32)  # cosine 0.9 with `same`
    other = np.array([0.0, 0.0, 1.0], dtype=np.float32)
    vectors = {"old": same, "x": other, "new": close, "older": same}
    dates = {"old": june, "x": may, "new": july, "older": may}
    out = rerankers.restated(cands(("old", 1.0), ("x", 0.9), ("older", 0.5), ("new", 0.4)), vectors, dates, threshold=0.75)
    # "new" (July) restates "old" (June) and "older" (May): it goes first and takes old's score; the rest keep their order.
    assert ids(out) == ["new", "old", "x", "older"]
    assert out[0].score == 1.0 and out[0].scores["restated"] == 1.0
    # Below the threshold, or later but not similar, nothing moves.
    assert ids(rerankers.restated(cands(("old", 1.0), ("new", 0.4)), vectors, dates, threshold=0.95)) == ["old", "new"]
    assert ids(rerankers.restated(cands(("x", 1.0), ("new", 0.4)), vectors, dates)) == ["x", "new"]
    # An earlier restatement ranked below stays below; unknown vectors or dates stay put.
    assert ids(rerankers.restated(cands(("new", 1.0), ("old", 0.9)), vectors, dates)) == ["new", "old"]
    assert ids(rerankers.restated(cands(("old", 1.0), ("new", 0.4)), {"old": same}, dates)) == ["old", "new"]
    assert ids(rerankers.restated(cands(("old", 1.0), ("new", 0.4)), vectors, {"old": june, "new": None})) == ["old", "new"]
    assert rerankers.restated([], vectors, dates) == []


def test_restated_needs_less_similarity_between_memories_about_a_thing_the_query_names() -> None:
    may, july = datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC)
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.5, np.sqrt(0.75)], dtype=np.float32)  # cosine 0.5 with a
    vectors, dates = {"old": a, "new": b}, {"old": may, "new": july}
    pair = cands(("old", 1.0), ("new", 0.4))
    assert ids(rerankers.restated(pair, vectors, dates)) == ["old", "new"]  # 0.5 < 0.75: not a restatement
    shared = {"old": {"instagram"}, "new": {"instagram"}}
    # same named thing: 0.5 >= 0.4
    assert ids(rerankers.restated(pair, vectors, dates, topics=shared, topic_threshold=0.4)) == ["new", "old"]
    assert ids(rerankers.restated(pair, vectors, dates, topics=shared, topic_threshold=0.6)) == ["old", "new"]
    assert ids(rerankers.restated(pair, vectors, dates, topics=shared)) == ["old", "new"]  # no allowance by default
    apart = {"old": {"instagram"}, "new": {"tiktok"}}
    assert ids(rerankers.restated(pair, vectors, dates, topics=apart, topic_threshold=0.4)) == ["old", "new"]


def test_source_leaders_moves_each_sources_best_up_to_the_place() -> None:
    incoming = [
        Candidate("both", 0.9, {"bm25": 0.5, "vector": 0.3}),
        Candidate("mid", 0.8, {"bm25": 0.4, "vector": 0.4}),
        Candidate("third", 0.7, {"bm25": 0.3}),
        Candidate("words", 0.5, {"bm25": 0.9}),  # BM25's best, buried by a weak vector match
        Candidate("meaning", 0.2, {"vector": 0.8}),  # the vectors' best, with none of the query's words
    ]
    out = rerankers.source_leaders(incoming, sources=("bm25", "vector"), place=2)
    # BM25's leader goes to the 2nd place, then the vectors' leader above it.
    assert ids(out) == ["both", "meaning", "words", "mid", "third"]
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)
    assert out[1].score == pytest.approx(0.8) and out[1].scores["source_leaders"] == pytest.approx(0.8)
    assert out[3].score == pytest.approx(0.8) and out[4].score == pytest.approx(0.7)  # the rest keep their scores
    # A leader already at the place or higher stays; a source nobody scored above 0 moves nothing.
    assert ids(rerankers.source_leaders(incoming, sources=("bm25",), place=4)) == ["both", "mid", "third", "words", "meaning"]
    assert ids(rerankers.source_leaders(incoming, sources=("graph",), place=1)) == ids(incoming)
    assert rerankers.source_leaders([], place=3) == []
