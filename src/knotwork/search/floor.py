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

A floor alone leaves off-topic questions that share a common word with some memory answered; the learned rule
of :mod:`~knotwork.search.answerable` (``Settings.search_answerable``, on by default) judges the best hit on
more than its score, under the same conditions (:func:`answered`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from knotwork.domain.models import names_of
from knotwork.search.fusion import RELATIVE_FUSIONS
from knotwork.search.recipes import Recipe
from knotwork.search.rerankers import Candidate

if TYPE_CHECKING:
    from knotwork.search.baseline import Baselines


def _judged(recipe: Recipe, candidates: Sequence[Candidate], center: str | None) -> bool:
    """Whether a search's hits may be judged at all: an absolute fusion, no center, no memory named."""
    if not candidates or center or recipe.fusion in RELATIVE_FUSIONS:
        return False
    return not any("names" in c.scores for c in candidates)


#: The sources the rule was fitted on (bench/nothing.py: the default recipe with the bundled embedder): a search
#: without one of them (``memory_bm25``, ``memory_vector``, a store without an embedder) would read its scores as
#: zeros, so it is left as it is.
MEASURED_SOURCES = frozenset({"bm25", "vector"})


#: The fewest memories a search must see to be judged: the rule was fitted on workspaces of 11 to 4,163
#: memories. In fewer, how much of a query the store holds (``known``, ``unknown_terms``) says little: a store of
#: two memories holds no word of "where should we eat?" and its answer "Prefers vegetarian restaurants" alike.
FEWEST = 10


def document(memory: Any) -> str:
    """A memory's text as BM25 reads it: its content, then its names (evidence ids, artifacts, tag values): a
    memory found by a word of its artifact path ("ledger" for ``src/billing/ledger.py``) holds that word."""
    return " ".join([memory.content, *names_of(memory.tags, memory.artifacts, memory.evidence)])


def above_floor(recipe: Recipe, candidates: Sequence[Candidate], floor: float, center: str | None = None) -> list[Candidate]:
    """``candidates`` as they are, or none when the best scores below ``floor`` (see the module)."""
    if floor <= 0 or not _judged(recipe, candidates, center):
        return list(candidates)
    return list(candidates) if candidates[0].score >= floor else []


def answered(recipe: Recipe, candidates: Sequence[Candidate], contents: Mapping[str, Any], text: str, workspace: str | None,
             lexical: Any, on: bool, measure: bool = False, center: str | None = None,
             tops: Mapping[str, float] | None = None, at: Any = None,
             baseline: Baselines | None = None) -> tuple[list[Candidate], dict[str, float] | None]:
    """``candidates`` as they are, or none when ``on`` and the learned rule says the best hit answers nothing
    (:mod:`~knotwork.search.answerable`); with the numbers the rule read (None: not judged; computed only when
    ``on`` or ``measure``, for a recipe with both :data:`MEASURED_SOURCES`; the caller passes ``on`` false when
    the store has no embedder; a search that sees fewer than :data:`FEWEST` memories is measured, never cut). ``contents`` maps a candidate's id to its memory; ``tops`` each source's best score;
    ``at`` when the question is asked; ``baseline(workspace, live)`` what off-topic probes score in the
    workspace (:mod:`~knotwork.search.baseline`): computed at the first search whose weights read it, then
    kept; a search that only measures (``explain``) shows it when it is known and never asks a probe."""
    if not (on or measure) or not _judged(recipe, candidates, center) or not MEASURED_SOURCES <= set(recipe.sources):
        return list(candidates), None
    from knotwork.search.answerable import (TOP, answerable, features, query_df, reads_relative, reads_together,
                                             relative)

    best = candidates[0]
    df, live = query_df(lexical, text, workspace)
    memory = contents[best.id]
    top = [document(contents[c.id]) for c in candidates[:TOP] if c.id in contents] if measure or reads_together() else ()
    values = features(text, best.scores, best.score, document(memory), df, live, tops, at, memory.valid_at, top)
    if baseline is not None and (measure or reads_relative()):  # asked when the weights read it; ``explain`` shows it once known
        base = baseline(workspace, live) if reads_relative() else baseline.known(workspace, live)
        if base is not None:
            values.update(relative(values, base))
    keep = not on or live < FEWEST or answerable(values)
    return (list(candidates) if keep else []), values
