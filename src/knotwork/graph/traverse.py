"""Breadth-first traversal over typed links: cycle-safe, each node once at its shortest depth."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

DIRECTIONS = ("outgoing", "incoming", "both")

Expand = Callable[[Sequence[str]], Iterable[tuple[str, Any]]]


class Step(NamedTuple):
    """A node reached at ``depth`` through ``via`` (the link that first reached it)."""

    node: str
    via: Any
    depth: int


def bfs(start: str, expand: Expand, *, max_depth: int, max_nodes: int | None = None) -> tuple[list[Step], bool]:
    """Walk links from ``start`` level by level.

    ``expand(frontier)`` gives ``(node, link)`` for every link the walk may
    follow from a frontier node, ``node`` being the link's other end (see
    :func:`over_links`). Returns the steps in BFS order and whether
    ``max_nodes`` (which counts ``start``) cut the walk short.
    """
    seen = {start}
    steps: list[Step] = []
    frontier = [start]
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        nxt: list[str] = []
        for node, link in expand(frontier):
            if node in seen:
                continue
            if max_nodes is not None and len(seen) >= max_nodes:
                return steps, True
            seen.add(node)
            steps.append(Step(node, link, depth))
            nxt.append(node)
        frontier = nxt
    return steps, False


def ends(links: Iterable[Any], frontier: Sequence[str], direction: str = "both") -> list[tuple[str, Any]]:
    """``(other end, link)`` for each of ``links`` that leaves (outgoing), enters (incoming) or touches (both) ``frontier``."""
    members = set(frontier)
    outgoing, incoming = direction in ("outgoing", "both"), direction in ("incoming", "both")
    out: list[tuple[str, Any]] = []
    for link in links:
        if outgoing and link.from_id in members:
            out.append((link.to_id, link))
        if incoming and link.to_id in members:
            out.append((link.from_id, link))
    return out


def over_links(links: Callable[[Sequence[str]], Iterable[Any]], direction: str = "both") -> Expand:
    """An ``expand`` for :func:`bfs` from a function giving the links (anything with ``from_id`` and ``to_id``)
    that touch a frontier: a store query, say."""
    return lambda frontier: ends(links(frontier), frontier, direction)
