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

Rows are kept in one partition per scope (each workspace, and the global
scope), each a contiguous matrix: a search within a workspace sees only that
workspace and the global scope, so it multiplies only those two partitions
and the cost follows the workspace's size, not the store's. Rows keep their
numbers in the order they were added (``row`` below): partitions only say
where each row's vector lives.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import ThreadpoolController

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.errors import InvalidInput

if TYPE_CHECKING:
    from knotwork.search.ann_index import AnnIndex

# One query is one matrix-vector product: BLAS threads only contend for the
# cores. On 2 busy cores a 62k x 384 product took 39 ms with OpenBLAS's
# default threads and 7-10 ms on one (bench/README.md, search latency).
_BLAS = ThreadpoolController()

ANN_STEP = 2000  # rows a graph build adds between two looks at the lock (~1 s on one core)
ANN_CLOSE_WAIT = 30.0  # seconds closing waits for a graph build's step under way (see VectorIndex.close)
ANN_INLINE = 2000  # new rows a search adds to a ready graph itself; more are added by a build thread
ANN_MOST = 4096  # the longest list a graph search asks for (its walk grows with it); longer: the exact scan
ANN_SAVE_EVERY = 5000  # rows a ready graph holds beyond its file before a build thread saves it (and 1/10 more)
_COMPACT_FROM = 1000  # dead rows (and a quarter of all) past which the rows are renumbered (a new generation)
AMONG_ISIN_MOST = 200_000  # rows up to which a set of memories' rows are found in one pass over every row


def limit_blas_threads(threads: int) -> None:
    """Let NumPy's BLAS use at most ``threads`` threads in this process, from now on.

    Besides the scan (limited above for its own call), search runs small
    products (MMR, passages closest to the query); with OpenBLAS's default
    threads each woke a worker that then spun on the other core, ~25 ms of
    CPU per search that the search's own two threads needed (pool search
    p50 34 -> 30 ms, CPU 64 -> 39 ms; bench/README.md). ``Settings.blas_threads``. A controller made now, not
    the module's: a BLAS loaded since this module was imported (SciPy's own OpenBLAS) is limited too.
    """
    ThreadpoolController().limit(limits=threads, user_api="blas")


@dataclass(frozen=True, slots=True)
class VectorHit:
    memory_id: str
    similarity: float


class _Partition:
    """The rows of one scope: their vectors in one contiguous matrix, and each one's row number."""

    __slots__ = ("buffer", "matrix", "rows")

    def __init__(self, dim: int) -> None:
        self.buffer = self.matrix = np.zeros((0, dim), dtype=np.float32)
        self.rows = np.zeros(0, dtype=np.int64)

    def append(self, block: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Add vectors (rows ``rows``); returns where each sits in :attr:`matrix`."""
        start, end = len(self.rows), len(self.rows) + len(rows)
        # The buffer doubles when full: a sync after each single write (every write
        # path syncs, see services/similar.py) then costs its new rows, not a copy of all.
        if end > len(self.buffer):
            grown = np.empty((max(end, 2 * len(self.buffer)), self.buffer.shape[1]), dtype=np.float32)
            grown[:start] = self.matrix
            self.buffer = grown
        self.buffer[start:end] = block
        self.matrix = self.buffer[:end]
        self.rows = np.concatenate([self.rows, rows])
        return np.arange(start, end)


class VectorIndex:
    """Chunk vectors of every memory, kept in step with the store."""

    def __init__(
        self,
        store,
        dim: int,
        *,
        ann_path: str | None = None,
        ann_min_rows: int = 0,
        model: str = "",
        ann_required: bool = False,
    ) -> None:
        self.store = store
        self.dim = dim
        # From ``ann_min_rows`` rows in the scanned partitions on, search asks an HNSW graph first (0: never).
        self.ann_min_rows = ann_min_rows
        if ann_min_rows and importlib.util.find_spec("hnswlib") is None:
            if ann_required:  # asked for by name: say what is missing
                raise InvalidInput("vector_ann_min_rows", "needs hnswlib, which is not installed: pip install 'knotwork[ann]'")
            # Trigger: the default threshold on an install without the `ann` extra (its sdist needs a C++ compiler).
            # Why: the exact scan answers the same, only slower past the threshold. Outcome: always the exact scan.
            self.ann_min_rows = 0
        self._ann_path = ann_path
        self._model = model
        self._ann: AnnIndex | None = None  # a graph ready for searches (only ever touched under the lock)
        self._builder: threading.Thread | None = None  # builds or catches up a graph that searches do not see yet
        self._closing = threading.Event()
        self._lock = threading.RLock()
        self._parts: list[_Partition] = [_Partition(dim)]  # by scope code; 0 is the global scope
        self._slots = np.zeros(0, dtype=np.int64)  # where each row sits in its partition's matrix
        self._alive = np.zeros(0, dtype=bool)
        self._seqs = np.zeros(0, dtype=np.int64)
        self._memory_ids: list[str] = []
        self._ws_codes = np.zeros(0, dtype=np.int32)
        self._ws_code_of: dict[str, int] = {"": 0}
        self._row_of_seq: dict[int, int] = {}
        self._first_row: dict[str, int] = {}
        # Each row's memory as a number (``_owner_of``), for finding a set of memories' rows in one call; and the
        # rows found last, kept while the rows and the set stay the same (see :meth:`_among`).
        self._owners = np.zeros(0, dtype=np.int64)
        self._owner_of: dict[str, int] = {}
        self._among_rows: tuple[Collection[str], int, int, np.ndarray] | None = None
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
                killed = []
                for seq, vector_seq in self.store.tombstones_after(self._tomb_mark):
                    row = self._row_of_seq.pop(vector_seq, None)
                    if row is not None and self._alive[row]:
                        self._alive[row] = False
                        self._dead += 1
                        killed.append(vector_seq)
                    self._tomb_mark = seq
                if self._ann is not None and killed:
                    self._ann.mark_deleted(killed)
            self._tomb_mark = max(self._tomb_mark, tomb_mark)
            if self._dead > _COMPACT_FROM and self._dead > len(self._alive) // 4:
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

    def _code(self, workspace: str) -> int:
        code = self._ws_code_of.setdefault(workspace, len(self._ws_code_of))
        if code == len(self._parts):
            self._parts.append(_Partition(self.dim))
        return code

    def _append(self, rows: list[tuple[int, str, str, bytes]]) -> None:
        mark = rows[-1][0]
        # Trigger: a vector of another width than the index's (written by a process of a version that stored
        # another format, e.g. float16 before SQLite migration 0030, or by another model). Why: one such row made
        # every search of the process fail (a reshape error); PostgreSQL's k-NN reads only rows of the query's
        # width. Outcome: it is left out, as there, and named in the log; ``knotwork reembed`` writes it again.
        fitting = [r for r in rows if len(r[3]) == 4 * self.dim]
        if len(fitting) < len(rows):
            odd = [r[1] for r in rows if len(r[3]) != 4 * self.dim]
            logging.getLogger("knotwork.search").warning(
                "%d vectors are not %d-wide and are left out of vector search (memories %s); knotwork reembed writes"
                " them again", len(odd), self.dim, ", ".join(odd[:5]))
        if fitting:
            self._take(fitting)
        self._vector_mark = mark

    def _take(self, rows: list[tuple[int, str, str, bytes]]) -> None:
        block = np.frombuffer(b"".join(r[3] for r in rows), dtype="<f4").reshape(len(rows), self.dim)
        start = len(self._memory_ids)
        numbers = np.arange(start, start + len(rows))
        codes = np.fromiter((self._code(r[2]) for r in rows), dtype=np.int32, count=len(rows))
        slots = np.empty(len(rows), dtype=np.int64)
        for code in np.unique(codes).tolist():
            mine = codes == code
            slots[mine] = self._parts[code].append(block[mine], numbers[mine])
        self._slots = np.concatenate([self._slots, slots])
        self._alive = np.concatenate([self._alive, np.ones(len(rows), dtype=bool)])
        self._seqs = np.concatenate([self._seqs, np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))])
        self._ws_codes = np.concatenate([self._ws_codes, codes])
        owner_of = self._owner_of
        for offset, (seq, memory_id, _, _) in enumerate(rows):
            self._memory_ids.append(memory_id)
            self._row_of_seq[seq] = start + offset
            self._first_row.setdefault(memory_id, start + offset)
        owners = [owner_of.setdefault(r[1], len(owner_of)) for r in rows]
        self._owners = np.concatenate([self._owners, np.asarray(owners, dtype=np.int64)])

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive)
        renumber = np.full(len(self._alive), -1, dtype=np.int64)
        renumber[keep] = np.arange(len(keep))
        self._slots = np.empty(len(keep), dtype=np.int64)
        for part in self._parts:
            live = self._alive[part.rows]
            part.matrix = part.buffer = part.matrix[live]
            part.rows = renumber[part.rows[live]]
            self._slots[part.rows] = np.arange(len(part.rows))
        self._seqs = self._seqs[keep]
        self._memory_ids = [self._memory_ids[i] for i in keep]
        self._ws_codes = self._ws_codes[keep]
        self._alive = np.ones(len(keep), dtype=bool)
        self._row_of_seq = {int(s): i for i, s in enumerate(self._seqs)}
        self._first_row = {}
        for i, mid in enumerate(self._memory_ids):
            self._first_row.setdefault(mid, i)
        self._owner_of = {}
        self._owners = np.fromiter((self._owner_of.setdefault(m, len(self._owner_of)) for m in self._memory_ids),
                                   dtype=np.int64, count=len(self._memory_ids))
        self._among_rows = None
        self._dead = 0
        self.generation += 1

    def _vector(self, row: int) -> np.ndarray:
        return self._parts[self._ws_codes[row]].matrix[self._slots[row]]

    def _scan(self, codes: Sequence[int], query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, similarity of each to ``query``) over the partitions ``codes``."""
        parts = [self._parts[c] for c in codes]
        with _BLAS.limit(limits=1, user_api="blas"):
            sims = [p.matrix @ query for p in parts]
        if len(parts) == 1:
            return parts[0].rows, sims[0]
        return np.concatenate([p.rows for p in parts]), np.concatenate(sims)

    def _among(self, memory_ids: Collection[str]) -> np.ndarray:
        """The rows (live or not) of ``memory_ids``, in order; the last answer is kept while neither the rows nor
        the set (the same object: the lexical index hands out one per tag filter until a write) change."""
        kept = self._among_rows
        if kept is not None and kept[0] is memory_ids and kept[1] == len(self._owners) and kept[2] == self.generation:
            return kept[3]
        if len(self._owners) <= AMONG_ISIN_MOST:  # one pass over every row's memory number
            get = self._owner_of.get
            wanted = np.fromiter((o for m in memory_ids if (o := get(m)) is not None), dtype=np.int64)
            rows = np.flatnonzero(np.isin(self._owners, wanted))
        else:  # a large index: each memory's rows from its first (chunks are adjacent rows)
            rows = np.sort(np.fromiter((r for _, r in self.rows_of(memory_ids)), dtype=np.int64))
        self._among_rows = (memory_ids, len(self._owners), self.generation, rows)
        return rows

    def search(self, query: np.ndarray, k: int, workspace: str | None = ALL_WORKSPACES,
               among: Collection[str] | None = None) -> list[VectorHit]:
        """The ``k`` memories whose best chunk is most similar to ``query`` (cosine), best first; with ``among``,
        of those memories only (always by the exact scan: callers pass a few thousand memories at most)."""
        self.sync()
        with self._lock:
            if not len(self._memory_ids):
                return []
            if workspace == ALL_WORKSPACES:
                codes: Sequence[int] = range(len(self._parts))
            else:  # a workspace sees itself and the global scope (code 0)
                codes = sorted({0, self._ws_code_of.get(workspace or "", 0)})
            query = query.astype(np.float32, copy=False)
            if among is not None:
                return self._search_among(codes, query, k, among)
            if self.ann_min_rows and sum(len(self._parts[c].rows) for c in codes) >= self.ann_min_rows:
                found = self._ann_search(codes, query, k)
                if found is not None:
                    return found
            rows, sims = self._scan(codes, query)
            sims = np.where(self._alive[rows], sims, -np.inf)
            return self._ranked(rows, sims, k)

    def _search_among(self, codes: Sequence[int], query: np.ndarray, k: int, among: Collection[str]) -> list[VectorHit]:
        """:meth:`search` within the memories ``among`` (called with the lock held).

        Trigger: a search under a tag filter (store/filtered.py). Why: scoring the filter's memories one by one
        gathers their vectors first; where they hold much of the scope (a LangGraph namespace of 500 memories in
        a 500-memory store: 3,300 chunks) that copy cost several times the scan of the whole scope (4.2 ms against
        0.6; bench/RESULTS.md). Outcome: when the memories' live rows are at least a quarter of the scope's, the
        scope is scanned and the other rows masked; fewer are gathered and scored alone. Same scores either way.
        """
        wanted = self._among(among)
        wanted = wanted[self._alive[wanted]]
        if len(codes) < len(self._parts):
            wanted = wanted[np.isin(self._ws_codes[wanted], list(codes))]
        if not len(wanted):
            return []
        if 4 * len(wanted) >= sum(len(self._parts[c].rows) for c in codes):
            keep = np.zeros(len(self._alive), dtype=bool)
            keep[wanted] = True
            rows, sims = self._scan(codes, query)
            sims = np.where(keep[rows], sims, -np.inf)
        else:
            rows = wanted
            with _BLAS.limit(limits=1, user_api="blas"):
                sims = self._vectors_at(rows) @ query
        return self._ranked(rows, sims, k)

    def _ranked(self, rows: np.ndarray, sims: np.ndarray, k: int) -> list[VectorHit]:
        """The ``k`` best memories of ``rows`` scored ``sims`` (-inf: left out), by their best chunk."""
        # Over-fetch chunks, then keep each memory's best chunk; fetch more
        # when the best chunks belonged to too few memories.
        take = k * 4
        while True:
            out, exhausted = self._best_memories(rows, sims, min(take, len(sims)), k)
            if len(out) >= k or exhausted or take >= len(sims):
                break
            take *= 4
        return [VectorHit(m, s) for m, s in out.items()]

    def _ann_ready(self) -> AnnIndex | None:
        """The HNSW graph holding every live row, or None while one is built (called with the lock held, after a sync).

        Trigger: the first search past the threshold, or a graph many rows behind
        (another process's bulk load). Why: building takes minutes at a million
        rows, and a search must not wait for it. Outcome: a thread builds (or reads,
        then catches up) the graph while searches answer by the exact scan; a few
        new rows are added by the search itself.
        """
        if self._builder is not None:
            if self._builder.is_alive():
                return None
            self._builder = None
        ann = self._ann
        if ann is not None:
            behind = len(self._seqs) - int(np.searchsorted(self._seqs, ann.mark, side="right"))
            unsaved = len(ann) + behind - ann.saved_count
            if behind <= ANN_INLINE and (ann.path is None or unsaved < max(ANN_SAVE_EVERY, ann.saved_count // 10)):
                block, seqs, upto = self._fresh(ann.mark)
                ann.add(block, seqs, upto)
                return ann
        if self._closing.is_set():
            return None
        self._ann = None  # the thread has it now
        self._builder = threading.Thread(target=self._build, args=(ann,), name="knotwork-hnsw", daemon=True)
        self._builder.start()
        return None

    def _fresh(self, mark: int, limit: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """(vectors, seqs) of the live rows newer than ``mark`` (the next ``limit`` rows), and the seq they reach."""
        start = int(np.searchsorted(self._seqs, mark, side="right"))
        end = len(self._seqs) if limit is None else min(len(self._seqs), start + limit)
        if end <= start:
            return np.zeros((0, self.dim), dtype=np.float32), np.zeros(0, dtype=np.int64), mark
        rows = start + np.flatnonzero(self._alive[start:end])
        block = np.stack([self._vector(int(r)) for r in rows]) if len(rows) < 64 else self._vectors_at(rows)
        return block.reshape(len(rows), self.dim), self._seqs[rows], int(self._seqs[end - 1])

    def _build(self, ann: AnnIndex | None) -> None:
        """Read or build the graph file, catch it up with the rows, save it, then hand it to searches (a thread)."""
        from knotwork.search.ann_index import AnnIndex, build_lock  # hnswlib: the `ann` extra, loaded only when asked for

        try:
            with build_lock(self._ann_path):  # another process building the same file: wait, then read what it saved
                if ann is None:
                    self.sync()
                    ann = AnnIndex(self._ann_path, self.dim, self._model)
                    if not ann.load(self._vector_mark):
                        ann.reset(len(self._seqs))
                while not self._closing.is_set():
                    with self._lock:  # a step at a time: searches take the lock between steps
                        block, seqs, upto = self._fresh(ann.mark, ANN_STEP)
                    if upto == ann.mark:
                        break
                    ann.add(block, seqs, upto)  # hnswlib lets go of the GIL while it adds
                if self._closing.is_set():
                    return  # a short-lived process (a CLI call) neither waits for the graph nor writes half of it
                if len(ann) != ann.saved_count:
                    ann.save()
            with self._lock:
                if self._closing.is_set():
                    return
                self.sync()
                block, seqs, upto = self._fresh(ann.mark)
                ann.add(block, seqs, upto)
                # rows deleted since the file was written, or while the thread worked (the file's own
                # deleted labels are among them: a deleted vector never comes back)
                dead = np.setdiff1d(ann.labels(), self._seqs[self._alive]).tolist()
                ann.mark_deleted(dead)
                ann.deleted = len(dead)
                self._ann = ann
        except Exception:  # noqa: BLE001 -- a graph that cannot be built must not break search
            if not self._closing.is_set():  # (closing: the store may be gone under the thread)
                logging.getLogger("knotwork.search").warning("HNSW graph not built; searching by the exact scan", exc_info=True)
            self.ann_min_rows = 0

    def wait_for_ann(self, timeout: float | None = None) -> bool:
        """Wait for a graph being built to be ready; True when searches past the threshold now ask a graph."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        with self._lock:
            return self._ann is not None

    def _vectors_at(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(rows), self.dim), dtype=np.float32)
        codes = self._ws_codes[rows]
        for code in np.unique(codes).tolist():
            mine = codes == code
            out[mine] = self._parts[code].matrix[self._slots[rows[mine]]]
        return out

    def _ann_search(self, codes: Sequence[int], query: np.ndarray, k: int) -> list[VectorHit] | None:
        """The ``k`` best memories of partitions ``codes`` by the HNSW graph; None when there is no graph ready
        or over-fetching found too few."""
        ann = self._ann_ready()
        if ann is None:
            return None
        allowed = np.zeros(len(self._parts), dtype=bool)
        allowed[list(codes)] = True
        scope_rows = sum(len(self._parts[c].rows) for c in codes)
        share = len(self._seqs) / max(scope_rows, 1)  # a scope holding a tenth of the rows: 10
        # Chunks asked for per memory wanted: 4 covers memories of several chunks (bench/RESULTS.md, "Search
        # speed, round 2": on the LongMemEval pool 8 cost twice the walk for no change in the answers). Within
        # a scope, twice that, times the share: the walk crosses other scopes' rows on the way. The share as it
        # is, not rounded up: the walk's length is most of a graph search's time, and a scope of two thirds of
        # the rows walked 2x instead of 1.5x for a recall@200 higher by 0.0002 (bench/RESULTS.md, "Scale, round 3").
        take = k * 4 if share <= 1 else math.ceil(k * 8 * share)
        if take > ANN_MOST:  # a walk that long costs more than scanning the scope (many asked, or a small share)
            return None
        while True:
            try:
                seqs, sims = ann.search(query, take)
            except RuntimeError:  # hnswlib found fewer than `take` live entries in its walk: the scan answers
                return None
            out: dict[str, float] = {}
            for seq, sim in zip(seqs.tolist(), sims.tolist()):
                row = self._row_of_seq.get(seq)  # deleted vectors have left this map
                if row is None or not allowed[self._ws_codes[row]]:
                    continue
                out.setdefault(self._memory_ids[row], float(sim))
                if len(out) >= k:
                    return [VectorHit(m, s) for m, s in out.items()]
            if take >= len(ann) or take >= ANN_MOST:
                return None  # a small scope among many rows: the exact scan of its partitions answers
            take *= 4

    def save_ann(self) -> None:
        """Write the HNSW graph to its file, when there is one and it holds rows the file lacks."""
        with self._lock:
            if self._ann is not None and len(self._ann) != self._ann.saved_count:
                self._ann.save()

    def close(self) -> None:
        """Save the graph searches use, if its file lacks rows; a build under way stops after its current step
        without saving.

        Trigger: a build under way when the process closes the store (a CLI call on a large store without its
        graph file). Why: a thread still inside hnswlib when the interpreter exits aborts the whole process
        (exit 134, "terminate called without an active exception"), after the call had answered. Outcome: closing
        waits for the step under way (``ANN_STEP`` rows, about a second on one core), at most ``ANN_CLOSE_WAIT``.
        """
        self._closing.set()
        builder = self._builder
        if builder is not None and builder is not threading.current_thread():
            builder.join(ANN_CLOSE_WAIT)
        self.save_ann()

    def _best_memories(self, rows: np.ndarray, sims: np.ndarray, take: int, k: int) -> tuple[dict[str, float], bool]:
        """Up to ``k`` memories among the ``take`` best entries of ``sims`` (and whether a masked entry was reached)."""
        out: dict[str, float] = {}
        if not take:
            return out, True
        top = np.argpartition(-sims, take - 1)[:take] if take < len(sims) else np.arange(len(sims))
        top = top[np.argsort(-sims[top])]
        for at in top.tolist():
            score = float(sims[at])
            if score == -np.inf:
                return out, True
            out.setdefault(self._memory_ids[rows[at]], score)
            if len(out) >= k:
                break
        return out, False

    def vectors_of(self, memory_ids: list[str]) -> dict[str, np.ndarray]:
        """Each memory's first live chunk vector (for MMR)."""
        self.sync()
        out: dict[str, np.ndarray] = {}
        missing = set()
        with self._lock:
            for mid in memory_ids:
                row = self._first_row.get(mid)
                if row is not None and self._alive[row]:
                    out[mid] = self._vector(row)
                else:
                    missing.add(mid)
            if missing:  # a re-embedded memory whose first row died: find its live row
                for row, mid in enumerate(self._memory_ids):
                    if mid in missing and mid not in out and self._alive[row]:
                        out[mid] = self._vector(row)
                        self._first_row[mid] = row
        return out

    def closest_passages(self, memory_ids: Collection[str], query: np.ndarray) -> dict[str, np.ndarray]:
        """Each memory's live passage vector most similar to ``query`` (the one its search score came from)."""
        self.sync()
        best: dict[str, tuple[float, np.ndarray]] = {}
        with self._lock:
            for mid, row in self.rows_of(memory_ids):
                if self._alive[row]:
                    vector = self._vector(row)
                    score = float(vector @ query)
                    if mid not in best or score > best[mid][0]:
                        best[mid] = (score, vector)
        return {mid: vector for mid, (_, vector) in best.items()}

    def similarities(self, memory_ids: Collection[str], query: np.ndarray) -> dict[str, float]:
        """Each memory's best similarity to ``query`` over its live chunks (as :meth:`search` scores it), for
        those of ``memory_ids`` that have vectors: a search within a few known memories, without a scan or a walk."""
        self.sync()
        with self._lock:
            pairs = [(mid, row) for mid, row in self.rows_of(memory_ids) if self._alive[row]]
            if not pairs:
                return {}
            rows = np.fromiter((row for _, row in pairs), dtype=np.int64, count=len(pairs))
            with _BLAS.limit(limits=1, user_api="blas"):
                sims = self._vectors_at(rows) @ query.astype(np.float32, copy=False)
        best: dict[str, float] = {}
        for (mid, _), sim in zip(pairs, sims.tolist()):
            if sim > best.get(mid, -np.inf):
                best[mid] = sim
        return best

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
        """Memory-to-memory nearest neighbours: per block of queries, one matrix product per partition it touches.

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
            codes = np.array([self._ws_code_of.get(ws or "", -1) for _, ws in queries])
            bounds = np.asarray(starts)
            step = max(1, cells // rows)
            for code in np.unique(codes).tolist():
                # A query sees the global scope and its own workspace; a global query is
                # seen by every row, a workspace's query by that workspace's rows.
                sees = [0] if code <= 0 else [0, code]
                seen_by = range(len(self._parts)) if code == 0 else [code] if code > 0 else []
                group = np.flatnonzero(codes == code)
                for g0 in range(0, len(group), step):
                    block = group[g0 : g0 + step]
                    chunks = np.concatenate([vectors[bounds[i] : bounds[i + 1]] for i in block.tolist()])
                    heads = np.concatenate([[0], np.cumsum(bounds[block + 1] - bounds[block])])
                    sims = {c: self._product(chunks, heads, c) for c in sees}
                    cols = np.concatenate([self._parts[c].rows for c in sees])
                    scores = np.where(usable[cols], np.concatenate([sims[c] for c in sees], axis=1), -np.inf)
                    self._nearest(scores, cols, block, [queries[i][0] for i in block.tolist()], k, forward)
                    b = int(np.searchsorted(block, backward))  # the block's fresh queries come first
                    if b == 0 or floors is None:
                        continue
                    for c in seen_by:
                        near = sims[c][:b] if c in sims else self._product(chunks[: heads[b]], heads[: b + 1], c)
                        own = self._parts[c].rows
                        near = np.where(usable[own], near, -np.inf)
                        q_at, r_at = np.nonzero(near > floors[own])
                        pairs += [
                            (self._memory_ids[own[r]], int(block[q]), s)
                            for q, r, s in zip(q_at.tolist(), r_at.tolist(), near[q_at, r_at].tolist())
                        ]
        return forward, pairs

    def _product(self, chunks: np.ndarray, heads: np.ndarray, code: int) -> np.ndarray:
        """Each query's similarity to each row of partition ``code``: its best chunk's, per row."""
        sims = chunks @ self._parts[code].matrix.T
        if len(chunks) != len(heads) - 1:  # a query with several chunks: keep its best per column
            sims = np.maximum.reduceat(sims, heads[:-1], axis=0)
        return sims

    def _nearest(self, scores: np.ndarray, cols: np.ndarray, at: np.ndarray, owners: list[str], k: int, out: list) -> None:
        """Fill ``out[at[i]]`` with the ``k`` best memories of score row ``i`` (one per memory, not ``owners[i]``).

        Column ``j`` of ``scores`` is row ``cols[j]``; ``scores`` is used up. With k
        small, k + 1 passes of argmax (vectorised, sorted as they go) cost a
        fraction of one argpartition over the rows.
        """
        n, width = scores.shape
        passes = min(width, k + 1)  # one more: the query itself may be among the best
        top = np.empty((n, passes), dtype=np.intp)
        top_s = np.empty((n, passes), dtype=scores.dtype)
        every = np.arange(n)
        for j in range(passes):
            best = scores.argmax(axis=1)
            top[:, j], top_s[:, j] = best, scores[every, best]
            scores[every, best] = -np.inf
        for i in range(n):
            found = self._distinct(cols[top[i]], top_s[i], owners[i], k)
            if len(found) < k and passes < width and top_s[i, -1] > -np.inf:
                # several of the best rows were chunks of one memory: rank the whole row
                row = scores[i]
                row[top[i]] = top_s[i]
                order = np.argsort(-row)
                found = self._distinct(cols[order], row[order], owners[i], k)
            out[int(at[i])] = list(found.items())

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
