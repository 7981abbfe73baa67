"""Each memory's vectors and its similar-list slots, and the change log the in-process vector index follows.

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, Protocol

from knotwork.domain.models import Memory, MemoryFilter


class Vectors(Protocol):
    """Each memory's vectors and its similar-list slots, and the change log the in-process vector index follows."""

    def similar_pairs(self, min_score: float) -> list[tuple[str, str, float]]:
        """Similar-list slots scoring at least ``min_score``: (memory id, neighbour id, score)."""
        ...

    def count_without_vectors(self) -> int:
        """Memories that have no vector."""
        ...

    def ann_file(self) -> str | None:
        """Where the process's vector index may keep its approximate (HNSW) graph; None: nowhere."""
        ...

    def vector_candidates(
        self, index: Any, query: Any, k: int, flt: MemoryFilter, at: datetime, min_similarity: float = -1.0,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(memory id, cosine of its best chunk to ``query``; higher is better) of the ``k`` nearest memories ``flt`` lets through.

        ``index`` is the process's in-memory vector index
        (:class:`~knotwork.search.vector_index.VectorIndex`): a store with no
        k-NN of its own scans it; one that has its own (pgvector) ignores it.
        Hits below ``min_similarity`` are left out. ``among``: the memories that hold ``flt``'s tags (the
        lexical index's postings, :meth:`~knotwork.search.lexical_index.LexicalIndex.tagged`), which a store
        that scans ``index`` may rank instead of listing the filter's memories itself.
        """
        ...

    def clear_vectors(self) -> None:
        """Remove every vector, and the similar lists made from them."""
        ...

    def count_vectors(self) -> tuple[int, int]:
        """(memories with at least one vector, vector rows)."""
        ...

    def memories_without_similar(self, slots: int, limit: int = 1000) -> list[str]:
        """Ids of memories that have vectors but not all ``slots`` slots of a similar list."""
        ...

    def memories_without_vectors(self, limit: int = 1000) -> list[Memory]: ...

    def put_similar(self, slots: Sequence[tuple[str, int, str | None, float]]) -> None:
        """Write similar-list slots: (memory id, rank from 1, neighbour id or None for an empty slot, score)."""
        ...

    def put_vectors(self, memory_id: str, vectors: Sequence[bytes]) -> None:
        """Replace a memory's vectors (one per chunk)."""
        ...

    def similar_floors(self, slots: int) -> dict[str, float]:
        """Memory id -> the score of its list's last slot (``slots``): what a newcomer must beat to enter."""
        ...

    def similar_lists(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        """Each memory's stored neighbours (id, score), nearest first; empty slots left out."""
        ...

    def similar_referrers(self, neighbour_ids: Sequence[str]) -> set[str]:
        """Memories whose similar list names any of ``neighbour_ids``."""
        ...

    def tombstones_after(self, seq: int) -> list[tuple[int, int]]:
        """(tombstone seq, deleted vector seq) newer than ``seq``."""
        ...

    def vector_marks(self) -> tuple[int, int]:
        """(newest vector seq, newest tombstone seq): cheap change detection for in-memory indexes."""
        ...

    def vectors_after(self, seq: int, limit: int = 50000) -> list[tuple[int, str, str, bytes]]:
        """(seq, memory id, workspace, vector blob) of vectors newer than ``seq``."""
        ...

    def vectors_by_memory(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, list[bytes]]]:
        """Each memory's workspace and chunk vectors (in chunk order), for memories that have vectors."""
        ...
