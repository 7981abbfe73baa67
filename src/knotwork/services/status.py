"""What a store holds and how the process serving it is doing: ``get_status`` and ``get_memory_stats``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from knotwork.domain.temporal import now
from knotwork.services.recall import LATENCIES

if TYPE_CHECKING:
    from knotwork.service import Knotwork


@dataclass(frozen=True, slots=True)
class Status:
    """Version, store, schema, counts, embedder, and recall latency in this process."""

    version: str
    store: str
    schema_version: int
    memories: int
    links: int
    vectors: int
    embedder: str
    recall: dict[str, Any]  # count, p50_ms, p95_ms over this process's recent recalls

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Stats:
    """Counts by workspace, category and agent; links by type; vectors; size on disk."""

    memories: int
    retired: int
    by_workspace: dict[str, int]  # '' is the global scope
    by_category: dict[str, int]  # '' is no category
    by_agent: dict[str, int]  # '' is the shared partition
    links: int
    links_by_type: dict[str, int]
    embedded_memories: int
    vectors: int
    size_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status(mem: Knotwork) -> Status:
    from knotwork import __version__

    store = mem.store
    return Status(
        version=__version__,
        store=store.location,
        schema_version=store.schema_version(),
        memories=store.count_memories(),
        links=store.count_links(),
        vectors=store.count_vectors()[1],
        embedder=mem.embedder.model_id if mem.embedder else "none",
        recall=LATENCIES.summary(),
    )


def stats(mem: Knotwork) -> Stats:
    store = mem.store
    embedded, vectors = store.count_vectors()
    return Stats(
        memories=store.count_memories(),
        retired=store.count_retired(now()),
        by_workspace=store.count_memories_by("workspace"),
        by_category=store.count_memories_by("category"),
        by_agent=store.count_memories_by("agent_id"),
        links=store.count_links(),
        links_by_type=store.count_links_by_type(),
        embedded_memories=embedded,
        vectors=vectors,
        size_bytes=store.size_bytes(),
    )
