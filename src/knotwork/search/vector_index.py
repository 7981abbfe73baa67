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
        self._lock = threading.Lock()
        self._matrix = np.zeros((0, dim), dtype=np.float32)
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

    def _append(self, rows: list[tuple[int, str, str, bytes]]) -> None:
        block = np.frombuffer(b"".join(r[3] for r in rows), dtype="<f4").reshape(len(rows), self.dim)
        start = len(self._memory_ids)
        self._matrix = np.concatenate([self._matrix, block]) if len(self._matrix) else block.copy()
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
        self._matrix = self._matrix[keep]
        self._seqs = self._seqs[keep]
        self._memory_ids = [self._memory_ids[i] for i in keep]
        self._ws_codes = self._ws_codes[keep]
        self._alive = np.ones(len(keep), dtype=bool)
        self._row_of_seq = {int(s): i for i, s in enumerate(self._seqs)}
        self._first_row = {}
        for i, mid in enumerate(self._memory_ids):
            self._first_row.setdefault(mid, i)
        self._dead = 0

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
