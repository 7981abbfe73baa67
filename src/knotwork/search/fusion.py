"""Fusion: many ranked candidate lists in, one scored list out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from knotwork.search.rerankers import Candidate


def rrf(ranked: Mapping[str, Sequence[tuple[str, float]]], k: int = 60, weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """Reciprocal rank fusion: ``Σ w_s / (k + rank_s)`` over the sources a candidate appears in."""
    total: dict[str, float] = {}
    scores: dict[str, dict[str, float]] = {}
    for source, items in ranked.items():
        w = (weights or {}).get(source, 1.0)
        for rank, (cid, raw) in enumerate(items, 1):
            total[cid] = total.get(cid, 0.0) + w / (k + rank)
            scores.setdefault(cid, {})[source] = raw
    return _candidates(total, scores, "rrf")


def weighted(
    ranked: Mapping[str, Sequence[tuple[str, float]]], weights: Mapping[str, float] | None = None, floor: float = 0.5
) -> list[Candidate]:
    """Weighted sum of each source's scores, each scaled so its best candidate scores 1.

    A source's scores are min-max scaled, except that the range counts as at
    least ``floor`` × the best score: among a few candidates that score
    nearly alike (a small store, or vectors 0.60 and 0.59), a tiny gap is not
    stretched into the whole scale. Scaled scores stay in [0, 1].
    """
    total: dict[str, float] = {}
    scores: dict[str, dict[str, float]] = {}
    for source, items in ranked.items():
        if not items:
            continue
        w = (weights or {}).get(source, 1.0)
        values = [s for _, s in items]
        high = max(values)
        span = max(high - min(values), floor * abs(high))
        for cid, raw in items:
            scaled = (raw - (high - span)) / span if span > 0 else 1.0
            total[cid] = total.get(cid, 0.0) + w * scaled
            scores.setdefault(cid, {})[source] = raw
    return _candidates(total, scores, "weighted")


def convex(ranked: Mapping[str, Sequence[tuple[str, float]]], weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """A weighted mean of the sources' own scores, which must already mean the same for every query.

    Each source scores in [0, 1] on an absolute scale (lexical relevance:
    BM25 over the most the query could score; vectors: cosine), so the
    fused score is comparable across queries and stores: a query about
    nothing stored scores low. Weights default to equal and are divided by
    their sum; a candidate a source did not return gets 0 from it.
    """
    w = {s: (weights or {}).get(s, 1.0) for s in ranked}
    total_w = sum(w.values()) or 1.0
    total: dict[str, float] = {}
    scores: dict[str, dict[str, float]] = {}
    for source, items in ranked.items():
        for cid, raw in items:
            total[cid] = total.get(cid, 0.0) + w[source] / total_w * max(0.0, raw)
            scores.setdefault(cid, {})[source] = raw
    return _candidates(total, scores, "convex")


def _candidates(total: dict[str, float], scores: dict[str, dict[str, float]], stage: str) -> list[Candidate]:
    out = [Candidate(cid, s, {**scores[cid], stage: s}) for cid, s in total.items()]
    out.sort(key=lambda c: (-c.score, c.id))
    return out


FUSIONS = {"rrf": rrf, "weighted": weighted, "convex": convex}
#: Fusions whose scores compare candidates of one query only (ranks; per-query min-max).
RELATIVE_FUSIONS = frozenset({"rrf", "weighted"})
