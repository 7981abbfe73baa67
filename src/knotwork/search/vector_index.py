"""In-process exact k-NN over the store's vectors.

Why exact (a NumPy matrix-vector product) rather than an ANN library: at the
sizes one machine's agent memory reaches (10^4-10^5 chunks of 384 floats) a
full scan is one BLAS call of a few milliseconds, recall is perfect, and
the index stays trivially consistent with a store that several processes
write: each query first reads two integers (the newest vector and tombstone
sequence numbers) and, when they moved, loads only what is new. sqlite-vec
does the same scan in SQL without the cross-process cache, and HNSW indexes
(hnswlib, usearch) would need their own persistence and deletion handling
for a gain measured in single milliseconds at this size (bench/RESULTS.md).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from knotwork.domain.models import ALL_WORKSPACES

# One query is one matrix-vector product: BLAS threads only contend for the
# cores. On 2 busy cores a 62k x 384 product took 39 ms with OpenBLAS's
# default threads and 7-10 ms on one (bench/README.md, search latency).
_BLAS = ThreadpoolController()


@dataclass(frozen=True, slots=True)
class VectorHit:
    memory_id: str
    similarity: float


class VectorIndex:
    """Chunk vectors of every memory, kept in step with the store."""

    def __init__(self, store, dim: int) -> None:
        self.store = store
        self.dim = dim
        self._lock = threading.RLock()
        self._matrix = self._buffer = np.zeros((0, dim), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._seqs = np.zeros(0, dtype=np.int64)
        self._memory_ids: list[str] = []
        self._ws_codes = np.zeros(0, dtype=np.int32)
        self._ws_code_of: dict[str, int] = {"": 0}
        self._row_of_seq: dict[int, int] = {}
        self._first_row: dict[str, int] = {}
        self._vector_mark = 0
        self._tomb_mark = 0
        self._dead = 0
        self.generation = 0  # grows when rows are renumbered (compaction): per-row data kept elsewhere is void

    def __len__(self) -> int:
        return int(self._alive.sum())

    def sync(self) -> None:
        """Catch up with vectors added or removed since the last sync (by any process)."""
        with self._lock:
            vec_mark, tomb_mark = self.store.vector_marks()
            if vec_mark == self._vector_mark and tomb_mark == self._tomb_mark:
                return
            while vec_mark > self._vector_mark:
                rows = self.store.vectors_after(self._vector_mark)
                if not rows:
                    break
                self._append(rows)
            if tomb_mark > self._tomb_mark:
                for seq, vector_seq in self.store.tombstones_after(self._tomb_mark):
                    row = self._row_of_seq.pop(vector_seq, None)
                    if row is not None and self._alive[row]:
                        self._alive[row] = False
                        self._dead += 1
                    self._tomb_mark = seq
            self._tomb_mark = max(self._tomb_mark, tomb_mark)
            if self._dead > 1000 and self._dead > len(self._alive) // 4:
                self._compact()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Keep other threads off the index for a block (reentrant).

        A write transaction that reads the index takes it *before* the store's
        transaction: searches take the index, then the store, so every thread
        takes the two in the same order.
        """
        with self._lock:
            yield

    def _append(self, rows: list[tuple[int, str, str, bytes]]) -> None:
        block = np.frombuffer(b"".join(r[3] for r in rows), dtype="<f4").reshape(len(rows), self.dim)
        start = len(self._memory_ids)
        # The rows live in a buffer that doubles when full: a sync after each single write
        # (every write path syncs, see services/similar.py) then costs its new rows, not a copy of all.
        end = start + len(rows)
        if end > len(self._buffer):
            grown = np.empty((max(end, 2 * len(self._buffer)), self.dim), dtype=np.float32)
            grown[:start] = self._matrix
            self._buffer = grown
        self._buffer[start:end] = block
        self._matrix = self._buffer[:end]
        self._alive = np.concatenate([self._alive, np.ones(len(rows), dtype=bool)])
        self._seqs = np.concatenate([self._seqs, np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))])
        codes = np.fromiter(
            (self._ws_code_of.setdefault(r[2], len(self._ws_code_of)) for r in rows), dtype=np.int32, count=len(rows)
        )
        self._ws_codes = np.concatenate([self._ws_codes, codes])
        for offset, (seq, memory_id, _, _) in enumerate(rows):
            self._memory_ids.append(memory_id)
            self._row_of_seq[seq] = start + offset
            self._first_row.setdefault(memory_id, start + offset)
        self._vector_mark = rows[-1][0]

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive)
        self._matrix = self._buffer = self._matrix[keep]
        self._seqs = self._seqs[keep]
        self._memory_ids = [self._memory_ids[i] for i in keep]
        self._ws_codes = self._ws_codes[keep]
        self._alive = np.ones(len(keep), dtype=bool)
        self._row_of_seq = {int(s): i for i, s in enumerate(self._seqs)}
        self._first_row = {}
        for i, mid in enumerate(self._memory_ids):
            self._first_row.setdefault(mid, i)
        self._dead = 0
        self.generation += 1

    def search(self, query: np.ndarray, k: int, workspace: str | None = ALL_WORKSPACES) -> list[VectorHit]:
        """The ``k`` memories whose best chunk is most similar to ``query`` (cosine), best first."""
        self.sync()
        with self._lock:
            if not len(self._memory_ids):
                return []
            with _BLAS.limit(limits=1, user_api="blas"):
                sims = self._matrix @ query.astype(np.float32, copy=False)
            mask = self._alive
            if workspace != ALL_WORKSPACES:
                # A workspace sees itself and the global scope (code 0).
                code = self._ws_code_of.get(workspace or "", 0)
                mask = mask & ((self._ws_codes == 0) | (self._ws_codes == code))
            sims = np.where(mask, sims, -np.inf)
            # Over-fetch chunks, then keep each memory's best chunk.
            take = min(len(sims), k * 4)
            top = np.argpartition(-sims, take - 1)[:take] if take < len(sims) else np.arange(len(sims))
            top = top[np.argsort(-sims[top])]
            out: dict[str, float] = {}
            for row in top:
                score = float(sims[row])
                if score == -np.inf:
                    break
                out.setdefault(self._memory_ids[row], score)
                if len(out) >= k:
                    break
            return [VectorHit(m, s) for m, s in out.items()]

    def vectors_of(self, memory_ids: list[str]) -> dict[str, np.ndarray]:
        """Each memory's first live chunk vector (for MMR)."""
        self.sync()
        out: dict[str, np.ndarray] = {}
        missing = set()
        with self._lock:
            for mid in memory_ids:
                row = self._first_row.get(mid)
                if row is not None and self._alive[row]:
                    out[mid] = self._matrix[row]
                else:
                    missing.add(mid)
            if missing:  # a re-embedded memory whose first row died: find its live row
                for row, mid in enumerate(self._memory_ids):
                    if mid in missing and mid not in out and self._alive[row]:
                        out[mid] = self._matrix[row]
                        self._first_row[mid] = row
        return out

    def row_memory_ids(self, start: int = 0) -> list[str]:
        """The memory of each row from ``start`` on (rows stay put until :attr:`generation` changes)."""
        with self._lock:
            return self._memory_ids[start:]

    def rows_of(self, memory_ids: Collection[str]) -> list[tuple[str, int]]:
        """(memory id, row) of the rows of the given memories: their live rows, and maybe dead ones."""
        out: list[tuple[str, int]] = []
        with self._lock:
            for mid in memory_ids:
                row = self._first_row.get(mid)
                if row is None:
                    continue
                if not self._alive[row]:  # re-embedded: its live rows are further on
                    out += [(mid, r) for r, m in enumerate(self._memory_ids) if m == mid]
                    continue
                while row < len(self._memory_ids) and self._memory_ids[row] == mid:  # chunks are adjacent rows
                    out.append((mid, row))
                    row += 1
        return out

    def neighbours(
        self,
        queries: Sequence[tuple[str, str | None]],
        vectors: np.ndarray,
        starts: Sequence[int],
        k: int,
        exclude: Collection[str] = (),
        backward: int = 0,
        floors: np.ndarray | None = None,
        cells: int = 8_000_000,
    ) -> tuple[list[list[tuple[str, float]]], list[tuple[str, int, float]]]:
        """Memory-to-memory nearest neighbours: one matrix product per block of queries.

        Query ``i`` is memory ``queries[i] = (id, workspace)``, whose chunk
        vectors are ``vectors[starts[i]:starts[i + 1]]``. Two memories are as
        similar as their closest pair of chunks (cosine). A memory sees its
        own workspace and the global scope; a global one sees the global scope.

        Returns ``forward[i]``: the ``k`` indexed memories nearest to query
        ``i`` that it can see (itself and ``exclude`` left out), best first;
        and the backward pairs ``(indexed memory, query, score)``: each of the
        first ``backward`` queries that an indexed memory can see and that
        scores above ``floors[row]`` (the floor of the row's memory, one per
        row: +inf takes nobody). A memory with several chunks may pair with the same
        query more than once. The caller syncs first; ``cells`` bounds how
        many scores are held at once.
        """
        n = len(queries)
        forward: list[list[tuple[str, float]]] = [[] for _ in range(n)]
        pairs: list[tuple[str, int, float]] = []
        with self._lock:
            rows = len(self._memory_ids)
            if not (n and rows):
                return forward, pairs
            usable = self._alive.copy()
            gone = set(exclude) & self._first_row.keys()  # new memories are not indexed yet: nothing to mask
            if gone:
                usable &= ~np.fromiter(map(gone.__contains__, self._memory_ids), dtype=bool, count=rows)
            cols = self._ws_codes
            global_cols = cols == 0
            codes = np.array([self._ws_code_of.get(ws or "", -1) for _, ws in queries])
            bounds = np.asarray(starts)
            step = max(1, cells // rows)
            for q0 in range(0, n, step):
                q1 = min(n, q0 + step)
                sims = vectors[bounds[q0] : bounds[q1]] @ self._matrix.T
                if bounds[q1] - bounds[q0] != q1 - q0:  # a query with several chunks: keep its best per column
                    sims = np.maximum.reduceat(sims, bounds[q0:q1] - bounds[q0], axis=0)
                qc = codes[q0:q1]
                sees = usable & (global_cols | (cols == qc[:, None]))
                self._nearest(np.where(sees, sims, -np.inf), queries, q0, k, forward)
                b = min(q1, backward) - q0
                if b <= 0 or floors is None:
                    continue
                seen = usable & ((qc[:b] == 0)[:, None] | (qc[:b, None] == cols))
                scores = np.where(seen, sims[:b], -np.inf)
                q_at, r_at = np.nonzero(scores > floors)
                pairs += [
                    (self._memory_ids[r], q0 + q, s)
                    for q, r, s in zip(q_at.tolist(), r_at.tolist(), scores[q_at, r_at].tolist())
                ]
        return forward, pairs

    def _nearest(self, scores: np.ndarray, queries: Sequence[tuple[str, str | None]], q0: int, k: int, out: list) -> None:
        """Fill ``out[q0 + i]`` with the ``k`` best memories of score row ``i`` (one per memory, not the query itself).

        ``scores`` is used up. With k small, k + 1 passes of argmax (vectorised,
        sorted as they go) cost a fraction of one argpartition over the rows.
        """
        n, rows = scores.shape
        passes = min(rows, k + 1)  # one more: the query itself may be among the best
        top = np.empty((n, passes), dtype=np.intp)
        top_s = np.empty((n, passes), dtype=scores.dtype)
        every = np.arange(n)
        for j in range(passes):
            best = scores.argmax(axis=1)
            top[:, j], top_s[:, j] = best, scores[every, best]
            scores[every, best] = -np.inf
        for i in range(n):
            own = queries[q0 + i][0]
            found = self._distinct(top[i], top_s[i], own, k)
            if len(found) < k and passes < rows and top_s[i, -1] > -np.inf:
                # several of the best rows were chunks of one memory: rank the whole row
                row = scores[i]
                row[top[i]] = top_s[i]
                order = np.argsort(-row)
                found = self._distinct(order, row[order], own, k)
            out[q0 + i] = list(found.items())

    def _distinct(self, rows: np.ndarray, scores: np.ndarray, own: str, k: int) -> dict[str, float]:
        best: dict[str, float] = {}
        for row, score in zip(rows.tolist(), scores.tolist()):
            if score == -np.inf:
                break
            mid = self._memory_ids[row]
            if mid != own and mid not in best:
                best[mid] = score
                if len(best) == k:
                    break
        return best
