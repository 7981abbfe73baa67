"""Every link of a store, held in memory by the memories it joins, kept in step with the store.

Why: ``related`` and ``graph`` walk links level by level. Asked of SQLite,
each level was a query plus the decoding of every link row it returned, and
the links handed back were decoded again; on the 100k-memory, 300k-link store
of bench/graph.py that was most of a walk's time. In memory a level is a few
dict lookups per node. Links are held as the store keeps them
(:class:`~knotwork.domain.models.StoredLink`: a tuple of strings, repeated
values shared), which is cheaper to load and to hold than decoded ones; a walk
decodes only the links it returns. The price is memory: ~120 MB for the 300k
links of that store, loaded at the first walk (~2-2.5 s there, a third of it
the garbage collector's full passes over the growing copy).

The copy stays correct when other processes write the same file, the way the
vector index does: every insert and delete of a link leaves a numbered row in
``link_changes`` (a trigger), and each walk first reads the newest number;
when it moved, only the links changed since are read again. Link ids are never
reused and links never change, so a changed link is simply present or gone.
The log keeps only its newest changes; a copy older than all of them is
loaded again whole.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from knotwork.domain.models import StoredLink
from knotwork.graph.traverse import Expand, over_links


class Adjacency:
    """The links of one store by memory: loaded at the first walk, then caught up before each."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._links: dict[str, StoredLink] | None = None  # link id -> link
        self._out: defaultdict[str, list[StoredLink]] = defaultdict(list)  # memory id -> links that leave it
        self._in: defaultdict[str, list[StoredLink]] = defaultdict(list)  # memory id -> links that enter it
        self._mark = 0

    def __len__(self) -> int:
        return len(self._links or ())

    def sync(self) -> None:
        """Catch up with links inserted or deleted since the last sync (by any process)."""
        with self._lock:
            mark = self.store.link_mark()  # read before the links, so nothing newer is missed
            if self._links is not None and mark != self._mark:
                changed = self.store.links_changed_after(self._mark)
                # Only the newest changes are kept, and pruning takes the oldest first: read after
                # the changes, a first kept change just after ours means none of ours was pruned.
                if self.store.first_link_change() > self._mark + 1:
                    self._links = None  # fell too far behind: load everything again
                else:
                    for link_id in changed:
                        self._remove(link_id)
                    self._add(self.store.stored_links(changed))
            if self._links is None:
                self._links, self._out, self._in = {}, defaultdict(list), defaultdict(list)
                self._add(self.store.stored_links())
            self._mark = mark

    def _add(self, links: Iterable[StoredLink]) -> None:
        held, out, into = self._links, self._out, self._in
        for link in links:
            held[link.id] = link
            out[link.from_id].append(link)
            into[link.to_id].append(link)

    def _remove(self, link_id: str) -> None:
        link = self._links.pop(link_id, None)
        if link is None:
            return
        for by_memory, end in ((self._out, link.from_id), (self._in, link.to_id)):
            rest = [x for x in by_memory[end] if x.id != link_id]
            if rest:
                by_memory[end] = rest
            else:
                del by_memory[end]

    def expander(self, direction: str = "both", types: Sequence[str] | None = None) -> Expand:
        """For one walk: frontier -> (other end, link) for the links leaving (outgoing), entering (incoming)
        or touching (both) it, as :func:`~knotwork.graph.traverse.bfs` takes them.

        Served from the copy, caught up now. Inside an open write transaction
        this connection would also read its own uncommitted links, which a
        rollback could take back while the copy kept them: there the links
        come from the store instead.
        """
        if self.store.in_transaction():
            return over_links(lambda frontier: self.store.stored_links_touching(frontier, direction, types), direction)
        self.sync()
        kinds = frozenset(types) if types else None
        outgoing, incoming = direction in ("outgoing", "both"), direction in ("incoming", "both")

        def expand(frontier: Sequence[str]) -> list[tuple[str, StoredLink]]:
            pairs: list[tuple[str, StoredLink]] = []
            with self._lock:
                for node in frontier:
                    if outgoing:
                        pairs += [(x.to_id, x) for x in self._out.get(node, ()) if kinds is None or x.type in kinds]
                    if incoming:
                        pairs += [(x.from_id, x) for x in self._in.get(node, ()) if kinds is None or x.type in kinds]
            return pairs

        return expand
