"""The ``similar`` meta-relation: each memory's nearest memories by vector, kept current on every write.

Why stored lists rather than a k-NN query per read: ``relations`` and the
compact relation blocks of search results ask for the neighbours of many
memories at once, and a stored list answers that with one indexed read.
Keeping them current costs one extra matrix product per write batch (the new
memories against the vector index) plus the reverse side, done
incrementally: a new memory enters an existing list only when it beats that
list's last slot, and only the lists that named a deleted or changed memory
are computed again.

Every write path of the service runs inside :meth:`SimilarLists.transaction`
and calls :meth:`SimilarLists.refresh` once. Without an embedder both do
nothing but the transaction, and there are no similar relations.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
import threading
from contextlib import contextmanager
from itertools import repeat
from typing import Any

import numpy as np

from knotwork.domain.models import Memory, MemoryFilter, MetaRelation
from knotwork.domain.temporal import now
from knotwork.search.vector_index import VectorIndex

SLOTS = 5  # neighbours kept per memory
PREVIEW_CHARS = 80
REPAIR_BATCH = 256

EMPTY = -1.0  # the score of an empty slot: any neighbour beats it
Embedded = tuple[str, "str | None", Sequence[bytes]]  # memory id, workspace, chunk vectors (float32 blobs)
Slot = tuple[str, int, "str | None", float]  # memory id, rank (1 = nearest), neighbour id (None: empty), score


def _best(pairs: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """The ``SLOTS`` best (id, score) pairs, one per id, best first."""
    top: dict[str, float] = {}
    for mid, score in pairs:
        if score > top.get(mid, -np.inf):
            top[mid] = score
    return sorted(top.items(), key=lambda p: -p[1])[:SLOTS]


def _slots(memory_id: str, neighbours: list[tuple[str, float]], before: list[tuple[str, float]] | None = None) -> list[Slot]:
    """The slots of a list (empty ones padded) that differ from ``before`` (all of them when None)."""
    padded = [*neighbours, *[(None, EMPTY)] * (SLOTS - len(neighbours))]
    old = [*before, *[(None, EMPTY)] * (SLOTS - len(before))] if before is not None else [None] * SLOTS
    return [(memory_id, rank + 1, n, s) for rank, (n, s) in enumerate(padded) if old[rank] != (n, s)]


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS] + "…"


class SimilarLists:
    """The similar lists of one store, computed against its vector index (None: no embedder, no lists)."""

    def __init__(self, store: Any, index: VectorIndex | None) -> None:
        self.store = store
        self.index = index
        self._repaired = False
        # Every list's floor (the score of its last slot), read once and then kept in step with
        # this object's own writes; reread when another connection has committed meanwhile.
        # _row_floors holds them per index row, as the index takes them (+inf: no list yet).
        self._floors: dict[str, float] | None = None
        self._row_floors: np.ndarray | None = None
        self._row_generation = -1
        self._version: int | None = None
        self._depth = 0  # how deep this object's own transactions are nested (under the store's write lock)
        self._writing = threading.RLock()  # this object's writers, when the index need not be held (see transaction)
        # Memories deleted since the index last synced: the index still holds their rows until the next sync (a
        # transaction's own deletes are not committed, so it cannot drop them), and a later refresh in the same
        # transaction must not put them in a list (a snapshot that replaces one replaced earlier in its batch).
        self._gone: set[str] = set()

    def _forget_floors(self) -> None:
        self._floors = self._row_floors = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The store's write transaction, with the vector index caught up before anything is written.

        Syncing under the write lock, before this transaction's own writes,
        means the index holds exactly the committed vectors: no other process
        can add one meanwhile, and nothing uncommitted (which a rollback would
        take back) gets into the index. The index is held first, in the same
        order as a search takes the two locks. Nested in a caller's open
        transaction, the index is used as last synced (the caller's own
        uncommitted writes must not get into it), and the floors are dropped
        at the end since the caller may still roll back, unless the caller is
        this object's own transaction, which drops them if it rolls back.
        """
        if self.index is None:
            with self.store.transaction():
                yield
            return
        nested = self.store.in_transaction()
        own = False
        # Trigger: a store whose reads do not wait for its writer (``concurrent_reads``). Why: holding the
        # index for the whole write transaction made every search wait for it. A search's sync reads only
        # what is committed, and nothing is committed while this transaction holds the write lock, so the
        # index stays as synced here. Outcome: writers queue on this object's own lock, searches go on; a
        # store whose reads share the writer's lock (in-memory SQLite) holds the index first, as searches do.
        hold = self._writing if self.store.concurrent_reads else self.index.held()
        try:
            with hold, self.store.transaction():
                own = self._depth > 0
                self._depth += 1
                if not nested:
                    self.index.sync()
                    self._gone.clear()
                version = self.store.data_version()
                if version != self._version:  # another connection committed: its lists may have moved
                    self._forget_floors()
                    self._version = version
                if not self._repaired:
                    self._repair()
                    self._repaired = True
                try:
                    yield
                finally:
                    self._depth -= 1
        except BaseException:
            self._forget_floors()  # the rollback takes back the floors this transaction wrote
            raise
        if nested and not own:
            self._forget_floors()

    def refresh(self, embedded: Sequence[Embedded] = (), removed: Collection[str] = ()) -> None:
        """Bring the lists up to date after a write, inside :meth:`transaction`.

        ``embedded``: memories whose vectors are new or changed (already
        stored, not yet in the index); ``removed``: memories being deleted
        (still stored). Lists that named any of them are computed again.
        """
        if self.index is None or not (embedded or removed):
            return
        stale = {mid for mid, _, _ in embedded} | set(removed)
        self._gone.update(removed)
        queries = [(mid, ws) for mid, ws, _ in embedded]
        chunks = [list(blobs) for _, _, blobs in embedded]
        redo = self.store.similar_referrers(sorted(stale)) - stale
        for mid, (ws, blobs) in self.store.vectors_by_memory(sorted(redo)).items():
            queries.append((mid, ws))
            chunks.append(blobs)
        if not queries:
            return
        flat = [b for blobs in chunks for b in blobs]
        matrix = np.frombuffer(b"".join(flat), dtype="<f4").reshape(len(flat), self.index.dim)
        starts = np.concatenate([[0], np.cumsum([len(blobs) for blobs in chunks])])
        fresh = len(embedded)
        forward, pairs = self.index.neighbours(
            queries, matrix, starts, SLOTS, exclude=stale | self._gone, backward=fresh, floors=self._floors_by_row()
        )
        if fresh:  # the new vectors are not in the index yet: every query meets them here
            self._meet_fresh(matrix, starts, queries, fresh, forward)
        slots = [slot for i, (mid, _) in enumerate(queries) for slot in _slots(mid, forward[i])]
        slots += self._entered(pairs, queries, skip={mid for mid, _ in queries})
        self.store.put_similar(slots)
        self._set_floors({mid: score for mid, rank, _, score in slots if rank == SLOTS}, removed)

    def _floors_by_row(self) -> np.ndarray:
        """The floor of each index row's memory: rebuilt when the rows were renumbered, else extended."""
        if self._floors is None:
            self._floors = self.store.similar_floors(SLOTS)
        if self._row_floors is None or self._row_generation != self.index.generation:
            self._row_generation = self.index.generation
            self._row_floors = np.zeros(0)
        new = self.index.row_memory_ids(len(self._row_floors))
        if new:
            more = np.fromiter(map(self._floors.get, new, repeat(np.inf)), dtype=np.float64, count=len(new))
            self._row_floors = np.concatenate([self._row_floors, more])
        return self._row_floors

    def _set_floors(self, changed: dict[str, float], removed: Collection[str]) -> None:
        for gone in removed:
            self._floors.pop(gone, None)
            changed[gone] = np.inf
        self._floors.update((mid, f) for mid, f in changed.items() if f != np.inf)
        for mid, row in self.index.rows_of(changed):  # rows of memories not indexed yet come with the next sync
            if row < len(self._row_floors):
                self._row_floors[row] = changed[mid]

    def _meet_fresh(self, matrix: np.ndarray, starts: np.ndarray, queries: list[tuple[str, str | None]], fresh: int, forward: list) -> None:
        """Merge into each query's list the fresh memories (the first ``fresh`` queries) it can see."""
        sims = matrix @ matrix[: starts[fresh]].T
        if len(matrix) != len(queries):  # several chunks per memory: keep the best pair
            sims = np.maximum.reduceat(np.maximum.reduceat(sims, starts[:-1], axis=0), starts[:fresh], axis=1)
        code_of: dict[str | None, int] = {None: 0}
        codes = np.array([code_of.setdefault(ws, len(code_of)) for _, ws in queries])
        sees = (codes[None, :fresh] == 0) | (codes[:, None] == codes[None, :fresh])
        sees[np.arange(fresh), np.arange(fresh)] = False  # not itself
        sims = np.where(sees, sims, -np.inf)
        top = np.argpartition(-sims, SLOTS - 1, axis=1)[:, :SLOTS] if fresh > SLOTS else np.broadcast_to(np.arange(fresh), sims.shape)
        for i, row in enumerate(top):
            met = [(queries[j][0], float(sims[i, j])) for j in row.tolist() if sims[i, j] > -np.inf]
            if met:
                forward[i] = _best([*forward[i], *met])

    def _entered(self, pairs: list[tuple[str, int, float]], queries: list[tuple[str, str | None]], skip: Collection[str]) -> list[Slot]:
        """The slots that change in indexed memories' lists when the queries paired with them enter."""
        entering: dict[str, list[tuple[str, float]]] = {}
        for mid, q, score in pairs:
            if mid not in skip:
                entering.setdefault(mid, []).append((queries[q][0], score))
        current = self.store.similar_lists(sorted(entering))
        out: list[Slot] = []
        for mid, new in entering.items():
            old = current.get(mid, [])
            out += _slots(mid, _best([*old, *new]), old)
        return out

    def _repair(self) -> None:
        """Give a full list to every embedded memory without one: a store made before similar lists
        existed, or a neighbour deleted by a process without an embedder (its slot went with it)."""
        while missing := self.store.memories_without_similar(SLOTS, REPAIR_BATCH):
            found = self.store.vectors_by_memory(missing)
            self.refresh([(mid, ws, blobs) for mid, (ws, blobs) in found.items()])

    def relations(self, memory_ids: Sequence[str], read: Mapping[str, Memory] | None = None) -> dict[str, list[MetaRelation]]:
        """Each memory's ``similar`` meta-relations: neighbour id, score and the start of its content.

        A neighbour is named only while a read of the memory's own workspace and partition would show it:
        current (not retired, not expired), not a snapshot, not in another partition. The stored lists
        keep every neighbour (a retired one may come back when its link goes); the read leaves them out.
        """
        if self.index is None:
            return {}
        lists = self.store.similar_lists(memory_ids)
        wanted = [mid for mid, pairs in lists.items() if pairs]
        if read is not None and all(mid in read for mid in wanted):  # the caller read them a moment ago
            owners = {mid: read[mid] for mid in wanted}
        else:
            owners = self.store.get_memories(wanted)
        at = now()
        seen: dict[tuple[str | None, str | None], set[str]] = {}
        for m in owners.values():
            reader = (m.workspace, m.agent_id)
            if reader not in seen:
                neighbours = {n for mid, pairs in lists.items() if mid in owners
                              and (owners[mid].workspace, owners[mid].agent_id) == reader for n, _ in pairs}
                flt = MemoryFilter(workspace=m.workspace, agent_id=m.agent_id)
                seen[reader] = self.store.filter_memory_ids(sorted(neighbours), flt, at)
        shown = {
            mid: [(n, s) for n, s in pairs if n in seen.get((owners[mid].workspace, owners[mid].agent_id), ())]
            for mid, pairs in lists.items() if mid in owners
        }
        shown.update({mid: [] for mid in lists if mid not in shown})
        starts = self.store.content_starts(sorted({n for pairs in shown.values() for n, _ in pairs}), PREVIEW_CHARS * 2)
        return {
            mid: [MetaRelation("similar", "memory", n, round(s, 4), _preview(starts.get(n, ""))) for n, s in pairs]
            for mid, pairs in shown.items()
        }
