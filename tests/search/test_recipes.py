"""Recipes are frozen data, and a search runs exactly the stages its recipe names."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from knotwork import InvalidInput, Knotwork
from knotwork.search.recipes import RECIPES, Recipe, step


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_runs_exactly_its_stages(mem: Knotwork, name: str) -> None:
    a = mem.add("the reports module caches results in redis", artifacts=["src/reports.py"])
    b = mem.add("redis runs on port 6379 in staging")
    mem.link(a.id, b.id, "references")
    hits = mem.search("redis", recipe=name, center=a.id, explain=True)
    assert mem.last_trace is not None
    assert mem.last_trace.names() == RECIPES[name].stages()
    for hit in hits:
        assert set(hit.explain) >= {"fused", *(s.name for s in RECIPES[name].rerankers)}


def test_recipes_are_frozen_and_variants_are_copies() -> None:
    base = RECIPES["memory_hybrid"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.rrf_k = 1  # type: ignore[misc]
    variant = dataclasses.replace(base, rrf_k=10, rerankers=(step("importance", weight=1.0),))
    assert RECIPES["memory_hybrid"].rrf_k == 60 and variant.rrf_k == 10
    assert variant.stages()[-1] == "rerank:importance"


def test_custom_recipe_object_and_unknown_name(mem: Knotwork) -> None:
    mem.add("alpha beta")
    custom = Recipe("mine", sources=("bm25",), rerankers=(step("novelty", weight=1.0),))
    assert [h.memory.content for h in mem.search("alpha", recipe=custom)] == ["alpha beta"]
    assert mem.last_trace.names() == ["source:bm25", "fusion:convex", "rerank:novelty"]
    with pytest.raises(InvalidInput, match="unknown recipe"):
        mem.search("alpha", recipe="nope")


def test_novelty_rotates_results_and_is_persisted_per_workspace(mem: Knotwork) -> None:
    for i in range(4):
        mem.add(f"deploy note {i} about the release train", workspace="w")
    recipe = Recipe("rotate", sources=("bm25",), rerankers=(step("novelty", weight=5.0),))
    first = mem.search("deploy release", workspace="w", limit=2, recipe=recipe)
    second = mem.search("deploy release", workspace="w", limit=2, recipe=recipe)
    assert not {h.memory.id for h in first} & {h.memory.id for h in second}
    at = datetime.now(UTC)
    counts = mem.store.surfaced_counts("w", [h.memory.id for h in first], at)
    assert all(v > 0.9 for v in counts.values()) and len(counts) == 2
    assert mem.store.surfaced_counts("other", [h.memory.id for h in first], at) == {}


def test_filters_any_all_artifact_and_valid_range(mem: Knotwork) -> None:
    a = mem.add("cache policy one", tags={"x": "1"}, artifacts=["a.py"], valid_at="2025-01-01")
    b = mem.add("cache policy two", tags={"y": "1"}, artifacts=["b.py"], valid_at="2026-01-01")
    assert {h.memory.id for h in mem.search("cache", tags=["x", "y"], tags_mode="any")} == {a.id, b.id}
    assert mem.search("cache", tags=["x", "y"]) == []
    assert [h.memory.id for h in mem.search("cache", artifact="b.py")] == [b.id]
    assert [h.memory.id for h in mem.search("cache", valid_before="2025-06-01")] == [a.id]
    assert [h.memory.id for h in mem.search("cache", valid_after="2025-06-01")] == [b.id]
    with pytest.raises(InvalidInput, match="tags_mode"):
        mem.search("cache", tags_mode="some")
