"""Every link of a store, held in memory by the memories it joins, kept in step with the store.

Why: ``related`` and ``graph`` walk links level by level. Asked of SQLite,
each level was a query plus the decoding of every link row it returned, and
the links handed back were decoded again; on the 100k-memory, 300k-link store
of bench/graph.py that was most of a walk's time. In memory a level is a few
dict lookups per node. The price is the links' size in memory (about 60 MB
for 300k links, loaded at the first walk).

The copy stays correct when other processes write the same file, the way the
vector index does: every insert and delete of a link leaves a numbered row in
``link_changes`` (a trigger), and each walk first reads the newest number;
when it moved, only the links changed since are read again. Link ids are never
reused and links never change, so a changed link is simply present or gone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from knotwork.domain.models import Relationship


def detached(rel: Relationship) -> Relationship:
    """A copy of a held link whose metadata a caller may change without changing the copy held here."""
    return Relationship(rel.id, rel.from_id, rel.to_id, rel.type, rel.workspace, rel.created_at, dict(rel.metadata))


class Adjacency:
    """The links of one store by memory: loaded at the first walk, then caught up before each."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._links: dict[str, Relationship] | None = None  # link id -> link
        self._touching: dict[str, list[Relationship]] = {}  # memory id -> links that leave or enter it
        self._mark = 0

    def __len__(self) -> int:
        return len(self._links or ())

    def sync(self) -> None:
        """Catch up with links inserted or deleted since the last sync (by any process)."""
        with self._lock:
            mark = self.store.link_mark()  # read before the links, so nothing newer is missed
            if self._links is None:
                self._links, self._touching = {}, {}
                for rel in self.store.all_links():
                    self._add(rel)
            elif mark != self._mark:
                changed = self.store.links_changed_after(self._mark)
                for link_id in changed:
                    self._remove(link_id)
                for rel in self.store.get_links(changed).values():
                    self._add(rel)
            self._mark = mark

    def _add(self, rel: Relationship) -> None:
        self._links[rel.id] = rel
        self._touching.setdefault(rel.from_id, []).append(rel)
        self._touching.setdefault(rel.to_id, []).append(rel)

    def _remove(self, link_id: str) -> None:
        rel = self._links.pop(link_id, None)
        if rel is None:
            return
        for end in {rel.from_id, rel.to_id}:
            rest = [r for r in self._touching[end] if r.id != link_id]
            if rest:
                self._touching[end] = rest
            else:
                del self._touching[end]

    def expander(self, direction: str = "both", types: Sequence[str] | None = None) -> Callable[[Sequence[str]], list[Relationship]]:
        """For one walk: frontier -> the links leaving (outgoing), entering (incoming) or touching (both) it.

        Served from the copy, caught up now; the links are the held ones
        (pass what a caller keeps through :func:`detached`). Inside an open
        write transaction this connection would also read its own uncommitted
        links, which a rollback could take back while the copy kept them:
        there the links come from the store instead.
        """
        if self.store.in_transaction():
            return lambda frontier: self.store.links_touching(frontier, direction, types)
        self.sync()
        kinds = set(types) if types else None
        outgoing, incoming = direction in ("outgoing", "both"), direction in ("incoming", "both")

        def expand(frontier: Sequence[str]) -> list[Relationship]:
            out: dict[str, Relationship] = {}
            with self._lock:
                for node in frontier:
                    for r in self._touching.get(node, ()):
                        if (kinds is None or r.type in kinds) and ((outgoing and r.from_id == node) or (incoming and r.to_id == node)):
                            out[r.id] = r
            return list(out.values())

        return expand
