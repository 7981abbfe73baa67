"""A hit's score is its relevance: the same for a memory whatever else the store holds or
the query returns, low for a query about nothing stored, and each stage kept in explain."""

from __future__ import annotations

from knotwork import Knotwork

NOTES = [
    "We deploy the billing service with blue-green releases behind the load balancer.",
    "The reports module caches query results in Redis for ten minutes.",
    "Maria prefers oat milk in her coffee.",
    "Our CI pipeline runs the integration tests against a real PostgreSQL.",
]


def test_a_strong_match_scores_high_and_a_query_about_nothing_stored_scores_low(mem: Knotwork) -> None:
    mem.add_many([{"content": n, "workspace": "w"} for n in NOTES])
    strong = mem.search("how do we deploy the billing service", workspace="w")
    assert strong[0].memory.content == NOTES[0] and strong[0].score >= 0.25
    nothing = mem.search("volcanic eruption on the island of Hawaii", workspace="w")
    assert all(h.score < min(0.2, strong[0].score / 2) for h in nothing)
    assert all(0.0 <= h.score <= 1.0 for h in strong)


def test_the_first_hit_does_not_always_score_the_same(mem: Knotwork) -> None:
    mem.add_many([{"content": n, "workspace": "w"} for n in NOTES])
    exact = mem.search("Maria prefers oat milk in her coffee", workspace="w")[0].score
    loose = mem.search("what does Maria drink", workspace="w")[0].score
    assert exact > loose + 0.1


def test_a_memory_scores_alike_whatever_else_is_stored(mem: Knotwork) -> None:
    mem.add_many([{"content": n, "workspace": "w"} for n in NOTES])
    query = "which cache does the reports module use"
    before = mem.search(query, workspace="w")[0]
    mem.add_many([{"content": f"Release {i}: fixed a typo in the changelog of the mobile app.", "workspace": "w"} for i in range(60)])
    after = mem.search(query, workspace="w")[0]
    assert after.memory.id == before.memory.id
    assert abs(after.score - before.score) < 0.1  # idf moves a little with the store's size


def test_explain_keeps_each_stage_and_min_score_filters_on_relevance(mem: Knotwork) -> None:
    mem.add_many([{"content": n, "workspace": "w"} for n in NOTES])
    hits = mem.search("Redis cache for reports", workspace="w", explain=True)
    top = hits[0]
    assert {"bm25", "vector", "fused"} <= set(top.explain)
    assert 0 < top.explain["bm25"] <= 1 and 0 < top.explain["vector"] <= 1
    assert top.score == top.explain["fused"]
    from dataclasses import replace

    from knotwork.search.recipes import RECIPES

    def above(floor: float) -> list[str]:
        recipe = replace(RECIPES["memory_hybrid"], min_score=floor)
        return [h.memory.id for h in mem.search("Redis cache for reports", workspace="w", recipe=recipe)]

    assert above(top.score - 0.01)[0] == top.memory.id
    assert above(top.score + 0.01) == []
