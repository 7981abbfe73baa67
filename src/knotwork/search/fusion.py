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


def weighted(ranked: Mapping[str, Sequence[tuple[str, float]]], weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """Weighted sum of each source's scores, min-max scaled to [0, 1] within the source."""
    total: dict[str, float] = {}
    scores: dict[str, dict[str, float]] = {}
    for source, items in ranked.items():
        if not items:
            continue
        w = (weights or {}).get(source, 1.0)
        values = [s for _, s in items]
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        for cid, raw in items:
            scaled = (raw - low) / span if high > low else 1.0
            total[cid] = total.get(cid, 0.0) + w * scaled
            scores.setdefault(cid, {})[source] = raw
    return _candidates(total, scores, "weighted")


def _candidates(total: dict[str, float], scores: dict[str, dict[str, float]], stage: str) -> list[Candidate]:
    out = [Candidate(cid, s, {**scores[cid], stage: s}) for cid, s in total.items()]
    out.sort(key=lambda c: (-c.score, c.id))
    return out


FUSIONS = {"rrf": rrf, "weighted": weighted}
