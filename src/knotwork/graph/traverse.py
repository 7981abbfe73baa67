"""Breadth-first traversal over typed links: cycle-safe, each node once at its shortest depth."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knotwork.domain.models import Relationship

DIRECTIONS = ("outgoing", "incoming", "both")


@dataclass(frozen=True, slots=True)
class Step:
    """A node reached at ``depth`` through ``via`` (the link that first reached it)."""

    node: str
    via: Relationship
    depth: int


def bfs(
    start: str,
    expand: Callable[[Sequence[str]], Sequence[Relationship]],
    *,
    max_depth: int,
    direction: str = "both",
    max_nodes: int | None = None,
) -> tuple[list[Step], list[Relationship], bool]:
    """Walk links from ``start`` level by level.

    ``expand(frontier)`` returns the links touching the frontier nodes (one
    query per level). Returns the steps in BFS order, every link seen between
    reached nodes, and whether ``max_nodes`` (which counts ``start``) cut the
    walk short.
    """
    seen = {start}
    steps: list[Step] = []
    edges: dict[str, Relationship] = {}
    frontier = [start]
    truncated = False
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        members = set(frontier)
        nxt: list[str] = []
        for rel in expand(frontier):
            ends = []
            if direction in ("outgoing", "both") and rel.from_id in members:
                ends.append(rel.to_id)
            if direction in ("incoming", "both") and rel.to_id in members:
                ends.append(rel.from_id)
            for other in ends:
                if other in seen:
                    edges.setdefault(rel.id, rel)
                    continue
                if max_nodes is not None and len(seen) >= max_nodes:
                    truncated = True
                    continue
                seen.add(other)
                edges[rel.id] = rel
                steps.append(Step(other, rel, depth))
                nxt.append(other)
        frontier = nxt
    kept = {k: e for k, e in edges.items() if e.from_id in seen and e.to_id in seen}
    return steps, list(kept.values()), truncated
