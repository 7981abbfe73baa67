"""The SQLite store's vectors and the similar lists made from them (a mixin of ``SQLiteStore``).

Vectors live in ``memory_vectors`` as int8 with a scale (``scaled.py``), one row per chunk, with a change
log (``seq``, ``vector_tombstones``) that lets each process's in-memory index catch up. SQLite has
no k-NN of its own: :meth:`VectorStore.vector_candidates` asks that index. Each memory's similar
list (``memory_similar``: its nearest neighbours, a slot per rank) is kept beside its vectors.
The mixin uses the store's connection helpers (``_run``, ``_run_many``, ``_reads``, ``transaction``,
``_rows_by_ids``) and its ``filter_memory_ids``; store/postgres/vectors.py is its PostgreSQL twin.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from knotwork.domain.models import MemoryFilter
from knotwork.store import filtered
from knotwork.store.sqlite import scaled


class VectorStore:
    _run: Any
    _run_many: Any
    _reads: Any
    _rows_by_ids: Any
    transaction: Any
    location: str
    filter_memory_ids: Any
    filtered_ids: Any

    def vector_candidates(
        self, index: Any, query: Any, k: int, flt: MemoryFilter, at: datetime, min_similarity: float = -1.0,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` memories nearest ``query`` that ``flt`` lets through, from the process's in-memory ``index``.

        SQLite has no k-NN of its own: the index scans its workspace's
        partitions for twice ``k``, and the filter keeps what it lets through. A filter that names a thread or
        tags and lets few memories through (store/filtered.py) has each of them scored instead: ``among`` (the
        memories that hold ``flt``'s tags, from the lexical index's postings) when given and at most
        ``FILTERED_EXACT_MAX``, else the memories the store lists for the filter.
        """
        if among is not None and not flt.thread and len(among) <= filtered.FILTERED_EXACT_MAX:
            return self._nearest_among(index, query, k, flt, at, min_similarity, among)
        if filtered.selective(flt) and (few := self.filtered_ids(flt, at, filtered.FILTERED_EXACT_MAX)) is not None:
            scored = index.similarities(few, query)
            return sorted(((mid, s) for mid, s in scored.items() if s >= min_similarity), key=lambda p: (-p[1], p[0]))[:k]
        hits = [h for h in index.search(query, k * 2, flt.workspace) if h.similarity >= min_similarity]
        allowed = self.filter_memory_ids([h.memory_id for h in hits], flt, at)
        return [(h.memory_id, h.similarity) for h in hits if h.memory_id in allowed][:k]

    def _nearest_among(self, index: Any, query: Any, k: int, flt: MemoryFilter, at: datetime, min_similarity: float,
                       among: Collection[str]) -> list[tuple[str, float]]:
        """The ``k`` nearest of ``among`` that ``flt``'s other conditions (partition, validity, expiry) let
        through: the index ranks ``among`` exactly, the store checks the best, further down while too few pass."""
        take = 2 * k
        while True:
            hits = [h for h in index.search(query, take, flt.workspace, among=among) if h.similarity >= min_similarity]
            allowed = self.filter_memory_ids([h.memory_id for h in hits], flt, at)
            kept = [(h.memory_id, h.similarity) for h in hits if h.memory_id in allowed]
            if len(kept) >= k or len(hits) < take:
                return sorted(kept, key=lambda p: (-p[1], p[0]))[:k]
            take *= 4

    def put_vectors(self, memory_id: str, vectors: Sequence[bytes]) -> None:
        """Replace a memory's vectors (one per chunk)."""
        with self.transaction():
            self._run("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            for chunk, blob in enumerate(vectors):
                self._run(
                    "INSERT INTO memory_vectors (memory_id, chunk, vector) VALUES (?, ?, ?)", (memory_id, chunk, scaled.pack(blob))
                )

    def ann_file(self) -> str | None:
        """Where the vector index keeps its HNSW graph: beside the database file (none in memory)."""
        return None if self.location == ":memory:" else str(Path(self.location).expanduser()) + ".hnsw"

    def vector_marks(self) -> tuple[int, int]:
        """(newest vector seq, newest tombstone seq): cheap change detection for in-memory indexes."""
        with self._reads:
            a = self._run("SELECT coalesce(max(seq), 0) FROM memory_vectors").fetchone()[0]
            b = self._run("SELECT coalesce(max(seq), 0) FROM vector_tombstones").fetchone()[0]
        return a, b

    def vectors_after(self, seq: int, limit: int = 50_000) -> list[tuple[int, str, str, bytes]]:
        """(seq, memory id, workspace, vector blob) of vectors newer than ``seq``."""
        with self._reads:
            rows = self._run(
                "SELECT v.seq, v.memory_id, m.workspace, v.vector FROM memory_vectors v"
                " JOIN memories m ON m.id = v.memory_id WHERE v.seq > ? ORDER BY v.seq LIMIT ?",
                (seq, limit),
            ).fetchall()
        return scaled.unpack_rows(rows, 3)

    def tombstones_after(self, seq: int) -> list[tuple[int, int]]:
        """(tombstone seq, deleted vector seq) newer than ``seq``."""
        with self._reads:
            return self._run(
                "SELECT seq, vector_seq FROM vector_tombstones WHERE seq > ? ORDER BY seq", (seq,)
            ).fetchall()

    def vectors_by_memory(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, list[bytes]]]:
        """Each memory's workspace and chunk vectors (in chunk order), for memories that have vectors."""
        rows = self._rows_by_ids(
            "SELECT v.memory_id, m.workspace, v.vector FROM memory_vectors v JOIN memories m ON m.id = v.memory_id"
            " WHERE v.memory_id IN ({ids}) ORDER BY v.memory_id, v.chunk",
            memory_ids,
        )
        out: dict[str, tuple[str | None, list[bytes]]] = {}
        for mid, workspace, blob in scaled.unpack_rows(rows, 2):
            out.setdefault(mid, (workspace or None, []))[1].append(blob)
        return out

    def similar_floors(self, slots: int) -> dict[str, float]:
        """Memory id -> the score of its list's last slot (``slots``): what a newcomer must beat to enter."""
        with self._reads:
            return dict(self._run("SELECT memory_id, score FROM memory_similar WHERE rank = ?", (slots,)))

    def put_similar(self, slots: Sequence[tuple[str, int, str | None, float]]) -> None:
        """Write similar-list slots: (memory id, rank from 1, neighbour id or None for an empty slot, score)."""
        with self.transaction():
            self._run_many(
                "INSERT INTO memory_similar (memory_id, rank, neighbour_id, score) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (memory_id, rank) DO UPDATE SET neighbour_id = excluded.neighbour_id, score = excluded.score",
                slots,
            )

    def memories_without_similar(self, slots: int, limit: int = 1000) -> list[str]:
        """Ids of memories that have vectors but not all ``slots`` slots of a similar list."""
        with self._reads:
            rows = self._run(
                "SELECT DISTINCT v.memory_id FROM memory_vectors v"
                " WHERE (SELECT count(*) FROM memory_similar s WHERE s.memory_id = v.memory_id) < ? LIMIT ?",
                (slots, limit),
            ).fetchall()
        return [r[0] for r in rows]
