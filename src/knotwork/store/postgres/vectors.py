"""The vector half of the PostgreSQL store (a mixin of ``PostgresStore``): pgvector.

Vectors live in ``memory_vectors.vector``, a pgvector ``vector`` of any
dimension; the HNSW index (cosine) over ``vector::vector(dim)`` is made the
first time vectors of a dimension are written. k-NN runs in the database
(:meth:`VectorStore.vector_candidates`); the change log (``seq``, tombstones)
lets each process's in-memory index (similar lists, MMR) catch up, as on SQLite.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from knotwork.domain.models import ALL_WORKSPACES, Memory, MemoryFilter
from knotwork.store import filtered
from knotwork.store.memory_sql import COLUMNS
from knotwork.store.postgres.rows import WORKSPACE_OF_MEMORY, memory_row, where_sql

VECTOR_OVERFETCH = 4  # chunks read per memory asked for (a memory may have several chunks)
HNSW_EF_MAX = 1000  # pgvector's largest hnsw.ef_search
# A search within scopes (a workspace and the global scope) holding at most this many vectors
# scans them exactly, by the workspace key, instead of walking the HNSW graph of the whole
# table: the walk reads the nearest chunks of every workspace and keeps the few of this one,
# so a workspace with a tenth of the rows needed two or three walks and then the scan anyway
# (bench/load_search.py; bench/RESULTS.md, "PostgreSQL right after a bulk load").
EXACT_SCOPE_MAX = 20_000


def _blob(vector: Any) -> bytes:
    """A pgvector value as the float32 little-endian bytes the rest of knotwork passes vectors in."""
    return np.asarray(vector.to_numpy(), dtype="<f4").tobytes()



# Whether the memory of vector row {v} passes the filter: a probe of the memories' primary key per row.
# LATERAL with LIMIT 1 keeps that plan whatever the planner's statistics say: right after a bulk load,
# before anything analyzed the tables, a plain join was planned as a scan of the filtered memories
# rematched against every vector row (566k comparisons for 1,000 rows; bench/RESULTS.md).
_PASSES = (
    "(SELECT 1 FROM memories m WHERE m.workspace = {v}.workspace AND m.id = {v}.memory_id AND {where} LIMIT 1) AS passes"
)


class VectorStore:
    """Mixed into ``PostgresStore``: relies on its ``_run``, ``_connection``, ``_rows_by_ids``, ``transaction``."""

    _run: Any
    _connection: Any
    _rows_by_ids: Any
    filtered_ids: Any
    _dims: set[int]
    tracer: Any
    transaction: Any
    _wrote: Any

    def vector_candidates(
        self, index: Any, query: np.ndarray, k: int, flt: MemoryFilter, at: datetime, min_similarity: float = -1.0,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` memories whose best chunk is nearest ``query`` (cosine), among those ``flt`` lets through.

        pgvector's HNSW index answers; ``index`` (the process's in-memory
        copy) is not needed. HNSW filters after the walk, so the nearest
        chunks are read first and filtered, and read again with a larger
        beam when too few memories passed; when the beam is at its largest
        and still too few passed (a small workspace in a large store), the
        filtered rows are scanned exactly. Rows come nearest first, so once
        one falls below ``min_similarity`` no wider beam can add a memory above
        it: the search stops there (an off-topic query costs one walk, not
        three and a scan). ``among`` (the memories holding the filter's tags, from the process's lexical index)
        is not needed either: the database lists the filter's memories itself.
        """
        dim = len(query)
        vec = f"v.vector::vector({dim})"
        q = np.asarray(query, dtype=np.float32)
        if filtered.selective(flt) and (few := self.filtered_ids(flt, at, filtered.FILTERED_EXACT_MAX)) is not None:
            # A thread or tags that let few memories through: their chunks are scored one by one (store/filtered.py).
            rows = self._run(
                f"SELECT v.memory_id, max(1 - ({vec} <=> %s)) AS s FROM memory_vectors v WHERE v.memory_id = ANY(%s)"
                f" AND vector_dims(v.vector) = {dim} GROUP BY v.memory_id ORDER BY s DESC, v.memory_id LIMIT %s",
                (q, few, k),
            ).fetchall()
            return list(self._best(rows, k, min_similarity)[0].items())
        where, params = where_sql(flt, at)
        if flt.workspace != ALL_WORKSPACES:
            scopes = sorted({"", flt.workspace or ""})
            held = self._run(
                "SELECT count(*) FROM (SELECT 1 FROM memory_vectors WHERE workspace = ANY(%s) LIMIT %s) AS few",
                (scopes, EXACT_SCOPE_MAX + 1),
            ).fetchone()[0]
            if held <= EXACT_SCOPE_MAX:
                return self._exact(q, vec, dim, k, where, params, min_similarity, scopes)
        fetch = max(VECTOR_OVERFETCH * k, 40)
        while True:
            sql = (
                f"WITH near AS (SELECT v.workspace, v.memory_id, {vec} <=> %s AS d FROM memory_vectors v"
                f" WHERE vector_dims(v.vector) = {dim} ORDER BY {vec} <=> %s LIMIT %s)"
                f" SELECT near.memory_id, 1 - near.d FROM near CROSS JOIN LATERAL {_PASSES.format(v='near', where=where)}"
                " ORDER BY near.d"
            )
            if self.tracer:
                self.tracer(sql, (q, q, fetch, *params))
            with self._connection() as conn, conn.transaction():  # SET LOCAL needs a transaction (a savepoint in a write's)
                conn.execute(f"SET LOCAL hnsw.ef_search = {min(fetch, HNSW_EF_MAX)}")
                rows = conn.execute(sql, (q, q, fetch, *params)).fetchall()
            best, floored = self._best(rows, k, min_similarity)
            if len(best) >= k or floored or fetch >= HNSW_EF_MAX:
                break
            fetch = min(fetch * 4, HNSW_EF_MAX)
        if len(best) < k and not floored and fetch >= HNSW_EF_MAX:
            return self._exact(q, vec, dim, k, where, params, min_similarity)
        return list(best.items())

    def _exact(
        self, q: np.ndarray, vec: str, dim: int, k: int, where: str, params: list[Any], min_similarity: float,
        scopes: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The exact k-NN among the filtered rows (of ``scopes`` only, read by the workspace key, when given):
        each memory by its nearest chunk, so that no memory of many chunks crowds out the others.

        Ordering by an aggregate keeps the planner off the HNSW index: its beam is what fell short, or what a
        small scope does not need.
        """
        within = "v.workspace = ANY(%s) AND " if scopes is not None else ""
        rows = self._run(
            f"SELECT v.memory_id, max(1 - ({vec} <=> %s)) AS s FROM memory_vectors v CROSS JOIN LATERAL {_PASSES.format(v='v', where=where)}"
            f" WHERE {within}vector_dims(v.vector) = {dim} GROUP BY v.memory_id ORDER BY s DESC LIMIT %s",
            (q, *params, *([scopes] if scopes is not None else []), k),
        ).fetchall()
        best, _ = self._best(rows, k, min_similarity)
        return list(best.items())

    @staticmethod
    def _best(rows: Sequence[tuple[str, float]], k: int, min_similarity: float) -> tuple[dict[str, float], bool]:
        """The first ``k`` memories of ``rows`` (nearest first) at ``min_similarity`` or above, and whether a
        row below it was reached."""
        best: dict[str, float] = {}
        for mid, sim in rows:
            if sim < min_similarity:
                return best, True
            best.setdefault(mid, float(sim))
            if len(best) >= k:
                break
        return best, False

    def _ensure_vector_index(self, dim: int) -> None:
        """The HNSW index (cosine) over vectors of ``dim`` dimensions, created the first time one is written."""
        if dim in self._dims:
            return
        self._run(
            f"CREATE INDEX IF NOT EXISTS memory_vectors_hnsw_{dim} ON memory_vectors"
            f" USING hnsw ((vector::vector({dim})) vector_cosine_ops) WHERE vector_dims(vector) = {dim}"
        )
        self._dims.add(dim)

    def put_vectors(self, memory_id: str, vectors: Sequence[bytes]) -> None:
        """Replace a memory's vectors (one per chunk)."""
        arrays = [np.frombuffer(blob, dtype="<f4") for blob in vectors]
        with self.transaction():
            for dim in {len(a) for a in arrays}:
                self._ensure_vector_index(dim)
            if not arrays:
                self._run("DELETE FROM memory_vectors WHERE memory_id = %s", (memory_id,))
                return
            self._wrote(len(arrays))
            # One round trip: the delete and the insert in one statement (the CTE's delete
            # does not see the rows the insert adds).
            self._run(
                f"WITH gone AS (DELETE FROM memory_vectors WHERE memory_id = %s), ws AS {WORKSPACE_OF_MEMORY}"
                " INSERT INTO memory_vectors (workspace, memory_id, chunk, vector)"
                f" VALUES {', '.join(['((TABLE ws), %s, %s, %s)'] * len(arrays))}",
                [memory_id, memory_id, *(v for chunk, a in enumerate(arrays) for v in (memory_id, chunk, a))],
            )

    def ann_file(self) -> str | None:
        """None: pgvector's own HNSW answers k-NN, the process's vector index keeps no graph file."""
        return None

    def vector_marks(self) -> tuple[int, int]:
        row = self._run(
            "SELECT (SELECT coalesce(max(seq), 0) FROM memory_vectors), (SELECT coalesce(max(seq), 0) FROM vector_tombstones)"
        ).fetchone()
        return row[0], row[1]

    def vectors_after(self, seq: int, limit: int = 50_000) -> list[tuple[int, str, str, bytes]]:
        rows = self._run(
            "SELECT v.seq, v.memory_id, v.workspace, v.vector FROM memory_vectors v WHERE v.seq > %s ORDER BY v.seq LIMIT %s",
            (seq, limit),
        ).fetchall()
        return [(s, mid, ws, _blob(v)) for s, mid, ws, v in rows]

    def tombstones_after(self, seq: int) -> list[tuple[int, int]]:
        return self._run("SELECT seq, vector_seq FROM vector_tombstones WHERE seq > %s ORDER BY seq", (seq,)).fetchall()

    def memories_without_vectors(self, limit: int = 1000) -> list[Memory]:
        rows = self._run(
            f"SELECT {COLUMNS} FROM memories m WHERE NOT EXISTS"
            " (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id) ORDER BY m.id LIMIT %s",
            (limit,),
        )
        return [memory_row(r) for r in rows]

    def vectors_by_memory(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, list[bytes]]]:
        rows = self._rows_by_ids(
            "SELECT v.memory_id, v.workspace, v.vector FROM memory_vectors v WHERE v.memory_id = ANY(%s) ORDER BY v.memory_id, v.chunk",
            memory_ids,
        )
        out: dict[str, tuple[str | None, list[bytes]]] = {}
        for mid, workspace, vector in rows:
            out.setdefault(mid, (workspace or None, []))[1].append(_blob(vector))
        return out
