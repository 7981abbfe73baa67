"""Knowing when nothing matches: a search whose best hit scores below a floor answers with nothing.

Trigger: ``knotwork search "zxqvbnm"`` returned a memory at 0.04 and "kubernetes helm chart" (never mentioned)
a person at 0.04, while right answers scored 0.19-0.23. Why: the default fusion is a weighted mean of absolute
scores (BM25 relevance over what the query could score, cosine), so a query whose words match nothing still
brings the least-unrelated memories by their vectors, each at a fifth of a cosine just above the noise floor.
A hit list that is there whatever is asked tells the reader nothing. Outcome: when the best hit of a search
scores below ``Settings.search_floor``, the search returns no hit at all. The floor never reorders nor cuts a
list whose best hit passes it: a right answer at rank 4 stays there. It applies to fusions whose score means
the same in every query (``convex``); a relative fusion (``rrf``, ``weighted``) ranks within one query only,
and is left as it is, as are a search around a ``center`` and one that names a memory by an identifier (the
``names`` source): those say what they want. The figures behind the default: bench/nothing.py, bench/RESULTS.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from knotwork.search.fusion import RELATIVE_FUSIONS
from knotwork.search.recipes import Recipe
from knotwork.search.rerankers import Candidate


def above_floor(recipe: Recipe, candidates: Sequence[Candidate], floor: float, center: str | None = None) -> list[Candidate]:
    """``candidates`` as they are, or none when the best scores below ``floor`` (see the module)."""
    if not candidates or floor <= 0 or center or recipe.fusion in RELATIVE_FUSIONS:
        return list(candidates)
    if any("names" in c.scores for c in candidates):
        return list(candidates)
    return list(candidates) if candidates[0].score >= floor else []
