"""Search recipes: frozen, named data saying which sources, which fusion, which rerankers.

Derive a variant with ``dataclasses.replace(RECIPES["memory_hybrid"], limit=5)``;
the registered recipes themselves never change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knotwork.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class Step:
    """One reranker and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


def step(name: str, **params: Any) -> Step:
    return Step(name, tuple(sorted(params.items())))


@dataclass(frozen=True, slots=True)
class Recipe:
    """How one search runs: candidate sources → fusion → rerankers in order → limit."""

    name: str
    sources: tuple[str, ...] = ("bm25", "vector")
    candidates: int = 100
    # Each source's scores scaled to [0, 1] and added. Measured on LongMemEval
    # (bench/README.md): it beat reciprocal rank fusion, whose ranks discard
    # how far ahead of the rest the best matches of a source are.
    fusion: str = "weighted"
    rrf_k: int = 60
    weights: tuple[tuple[str, float], ...] = ()
    rerankers: tuple[Step, ...] = ()
    min_score: float = 0.0
    # Cosine below which a vector candidate is noise, not a match (MiniLM puts
    # unrelated sentences at about -0.1..0.15), so a query about nothing stored
    # finds nothing instead of the least-unrelated memories.
    min_similarity: float = 0.2

    def stages(self) -> list[str]:
        """Every stage this recipe runs, in order (what a trace must show)."""
        return [*(f"source:{s}" for s in self.sources), f"fusion:{self.fusion}", *(f"rerank:{r.name}" for r in self.rerankers)]


#: What every hybrid recipe ranks with after fusion: a length prior (short
#: memories that match say more than long ones that mention the same words),
#: and the time the query names ("two weeks ago"), when it names one.
RANKING = (step("brevity", weight=0.3), step("time_window", boost=0.5))

RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        # MMR last: near-copies of the best hit give way to other evidence
        # (LongMemEval session recall@5 0.838 without it, 0.854 with it).
        Recipe("memory_hybrid", rerankers=(*RANKING, step("mmr", lambda_=0.7), step("restated", threshold=0.75))),
        # For questions about how things are now: later memories about an entity the query
        # names win at a lower similarity. On LongMemEval (bench/RESULTS.md) it puts the
        # current value first in 0.726 of knowledge updates against 0.629, but costs the other
        # questions 0.018 session recall@5, so it is not the default.
        Recipe("memory_current", rerankers=(*RANKING, step("mmr", lambda_=0.7), step("restated", threshold=0.75, topic_threshold=0.4))),
        Recipe("memory_bm25", sources=("bm25",)),
        Recipe("memory_vector", sources=("vector",)),
        Recipe("memory_mmr", rerankers=(*RANKING, step("mmr", lambda_=0.5))),
        Recipe(
            "memory_node_distance",
            sources=("bm25", "vector", "graph"),
            rerankers=(*RANKING, step("node_distance", weight=0.5)),
        ),
        Recipe(
            "ambient",
            rerankers=(
                step("importance", weight=0.5),
                step("freshness", half_life_days=14.0, weight=0.5),
                step("novelty", weight=0.5),
                step("diversity", per_key=1),
            ),
        ),
    )
}
DEFAULT_RECIPE = "memory_hybrid"


def get_recipe(recipe: str | Recipe | None) -> Recipe:
    if recipe is None:
        return RECIPES[DEFAULT_RECIPE]
    if isinstance(recipe, Recipe):
        return recipe
    try:
        return RECIPES[recipe]
    except KeyError:
        raise InvalidInput("recipe", f"unknown recipe {recipe!r}; known: {', '.join(RECIPES)}") from None
