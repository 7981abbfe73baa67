"""What a store holds and how the process serving it is doing: ``get_status`` and ``get_memory_stats``."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from knotwork.domain.models import SNAPSHOT
from knotwork.domain.temporal import now, to_text
from knotwork.services import backlog
from knotwork.services.recall import LATENCIES

if TYPE_CHECKING:
    from knotwork.embed.protocol import Embedder
    from knotwork.store.protocol import Store


class Observed(Protocol):
    """What status and stats read (the ``Knotwork`` facade has it): the store, the embedder, the graph's queue."""

    store: Store
    embedder: Embedder | None

    def enrichment_backlog(self, within: Collection[str] | None = None) -> dict[str, int]: ...

    def write_stats(self) -> dict[str, dict[str, float]]: ...


@dataclass(frozen=True, slots=True)
class Status:
    """Version, store, schema, counts, embedder, recall latency and the write path's stages in this process,
    and the memories not yet read into the knowledge graph."""

    version: str
    store: str
    schema_version: int
    memories: int
    links: int
    vectors: int
    embedder: str
    recall: dict[str, Any]  # count, p50_ms, p95_ms over this process's recent recalls
    graph_backlog: dict[str, int]  # memories not yet read into the knowledge graph: pending, running, failed
    writes: dict[str, dict[str, float]]  # this process's write stages: {stage: {seconds, runs}}
    # Memories whose read-in failed, oldest first ({memory_id, attempts, error, given_up}; the store's owner only)
    graph_failures: list[dict[str, Any]] = field(default_factory=list)
    graph_worker: dict[str, Any] = field(default_factory=dict)  # {process, last_batch} (services/backlog.worker)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Stats:
    """What a health check needs: counts by workspace, partition, tag and category; date range; links; vectors;
    size on disk; embedder; and ``health`` (see :func:`stats`)."""

    memories: int
    retired: int
    by_workspace: dict[str, int]  # '' is the global scope
    by_category: dict[str, int]  # '' is no category
    by_agent: dict[str, int]  # '' is the shared partition
    by_tag: dict[str, int]  # memories per tag key, most used first
    first_valid_at: str | None
    last_valid_at: str | None
    links: int
    links_by_type: dict[str, int]
    embedded_memories: int
    vectors: int
    size_bytes: int
    embedder: str
    health: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status(mem: Observed, within: Collection[str] | None = None) -> Status:
    """``within``: count only the memories of those workspaces ('' for the global scope), the links between
    two of them and their vectors (what a caller limited to them may know)."""
    from knotwork.version import __version__

    store = mem.store
    if within is None:
        memories, links, vectors = store.count_memories(), store.count_links(), store.count_vectors()[1]
    else:
        counted = store.count_within(within, now())
        memories, links, vectors = counted["memories"], counted["links"], counted["vectors"]
    return Status(
        version=__version__,
        store=store.location,
        schema_version=store.schema_version(),
        memories=memories,
        links=links,
        vectors=vectors,
        embedder=mem.embedder.model_id if mem.embedder else "none",
        recall=LATENCIES.summary(),
        graph_backlog=mem.enrichment_backlog(within),
        writes=mem.write_stats(),
        graph_failures=backlog.failures(store) if within is None else [],
        graph_worker=backlog.worker(store),
    )


def stats(mem: Observed) -> Stats:
    """Counts and health. ``health``: duplicates_detected (adds that found their content already stored, or
    near enough to be a NOOP or UPDATE), duplicates_merged (UPDATEs and ``merge``), superseded (memories a
    ``supersedes`` link retired), superseded_on_add, expired (passed, not yet purged), expired_purged,
    snapshots, snapshots_replaced and snapshots_pruned, last_prune, ignored_adds, consolidation_llm_asked and
    consolidation_llm_failed (unclear adds an LLM decided, or failed to), graph_backlog (memories not yet read
    into the knowledge graph: pending, running, failed), and orphaned links, vectors and similar slots (each
    must be 0)."""
    store = mem.store
    at = now()
    embedded, vectors = store.count_vectors()
    counters = store.counters()
    span = store.date_range()
    by_category = store.count_memories_by("category")

    def counter(name: str) -> int:
        return int(counters.get(name, 0))

    health = {
        "duplicates_detected": counter("duplicates_detected"),
        "duplicates_merged": counter("duplicates_merged"),
        "superseded": store.count_superseded(),
        "superseded_on_add": counter("superseded_on_add"),
        "expired": store.count_expired(at),
        "expired_purged": counter("expired_purged"),
        "snapshots": by_category.get(SNAPSHOT, 0),
        "snapshots_replaced": counter("snapshots_replaced"),
        "snapshots_pruned": counter("snapshots_pruned"),
        "last_prune": counters.get("last_prune") or counters.get("last_snapshot_prune"),
        "ignored_adds": counter("ignored_adds"),
        "consolidation_llm_asked": counter("consolidation_llm_asked"),
        "consolidation_llm_failed": counter("consolidation_llm_failed"),
        "graph_backlog": mem.enrichment_backlog(),
        "orphaned": store.count_orphans(),
    }
    return Stats(
        memories=store.count_memories(),
        retired=store.count_retired(at),
        by_workspace=store.count_memories_by("workspace"),
        by_category=by_category,
        by_agent=store.count_memories_by("agent_id"),
        by_tag=store.count_tags(),
        first_valid_at=to_text(span[0]) if span else None,
        last_valid_at=to_text(span[1]) if span else None,
        links=store.count_links(),
        links_by_type=store.count_links_by_type(),
        embedded_memories=embedded,
        vectors=vectors,
        size_bytes=store.size_bytes(),
        embedder=mem.embedder.model_id if mem.embedder else "none",
        health=health,
    )
