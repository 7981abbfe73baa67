"""The storage protocol every backend implements.

Methods are named after capabilities, not tables. Every method that writes is
atomic on its own; ``transaction()`` groups several into one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from knotwork.domain.models import Memory, MemoryBrief, MemoryFilter, RankingFacts
from knotwork.store.threads import Reply

Tracer = Callable[[str, Sequence[Any]], None]


@dataclass(frozen=True, slots=True)
class EnrichItem:
    """A memory waiting to be read into the knowledge graph, as a worker claimed it."""

    seq: int
    memory_id: str
    rules: bool  # run the offline rules on its text (False: only the caller's input, for a duplicate)
    graph: str | None  # the caller's entities and facts, JSON
    attempts: int  # claims so far, this one included


@runtime_checkable
class Store(Protocol):
    """A place to keep memories."""

    location: str
    # True when a read on one thread never waits for another thread's open write transaction (and reads
    # only what is committed); False when reads share the writer's lock (an in-memory SQLite database).
    concurrent_reads: bool

    def close(self) -> None: ...

    def settle(self) -> None:
        """Make the files hold every committed write on their own, so that a process killed from now on
        leaves nothing to replay (SQLite: the write-ahead log merged and emptied); a no-op where there is
        nothing to do. Safe at any time; closing does it too."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group writes: all of them land, or none (nests)."""
        ...

    def schema_version(self) -> int: ...

    # -- memories ---------------------------------------------------------
    def insert_memories(self, memories: Sequence[Memory]) -> list[Memory]:
        """Insert new memories, in order, in one transaction.

        A memory whose (workspace, agent_id, content_hash) already exists is
        not inserted: the stored one comes back with ``duplicate=True``.
        """
        ...

    def get_memory(self, memory_id: str) -> Memory | None: ...

    def get_memories(self, memory_ids: Sequence[str]) -> dict[str, Memory]: ...

    def memory_briefs(self, memory_ids: Sequence[str]) -> dict[str, MemoryBrief]:
        """:meth:`get_memories` with only the fields of a :class:`MemoryBrief`: cheaper by the hundred."""
        ...

    def ranking_facts(self, memory_ids: Sequence[str]) -> dict[str, RankingFacts]:
        """What search's rerankers read of each memory that exists (dates, importance, length, first artifact)."""
        ...

    def memory_threads(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory's thread (its conversation) as (workspace, partition, ``metadata.thread``), for those of
        ``memory_ids`` that name one: a thread never spans workspaces or partitions."""
        ...

    def memory_places(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Where each memory that exists sits among others: (workspace, partition, ``metadata.thread`` or '')."""
        ...

    def filtered_ids(self, flt: MemoryFilter, at: datetime, most: int) -> list[str] | None:
        """The ids of the memories ``flt`` lets through at ``at``, or None when there are more than ``most``
        (store/filtered.py: what the vector source scores one by one under a thread or tag filter)."""
        ...

    def memory_replies(self, memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> dict[str, Reply]:
        """For each memory whose next one ``flt`` lets through at ``at``: (its thread or ''; the id of the memory
        just after it by (valid_at, id) in that thread, or, when it names none, among the memories of its
        workspace and partition that name none; the seconds between their valid_at; whether the memory's text
        ends in a question, as search/replies.py ``asks`` reads it; the next memory's words, as
        ``RankingFacts.words``). One read."""
        ...

    def thread_neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
        """For each memory that exists: (its thread, '' when it names none; the ids of the memories just before
        and just after it by (valid_at, id) in that thread, or, when it names none, among the memories of its
        workspace and partition that name none)."""
        ...

    def resolve_memory_ref(self, ref: str, limit: int = 11, workspaces: Collection[str] | None = None) -> list[str]:
        """Full ids of memories whose id is, starts or ends with ``ref`` (upper-case); with ``workspaces``
        (names, '' for the global scope), of those workspaces only."""
        ...

    def count_memory_refs(self, ref: str, workspaces: Collection[str] | None = None) -> int: ...

    def find_memory_by_hash(self, workspace: str | None, agent_id: str | None, content_hash: str) -> Memory | None: ...

    def replace_memory(self, old: Memory, new: Memory) -> Memory:
        """Store ``new`` over ``old`` (same id) and keep ``old`` as a past version."""
        ...

    def delete_memory(self, memory_id: str) -> bool: ...

    def list_memories(
        self, flt: MemoryFilter, limit: int, before_id: str | None = None, at: datetime | None = None
    ) -> list[Memory]:
        """Newest first (by id); ``before_id`` continues after a cursor; ``at`` is "now" for validity."""
        ...

    def memory_versions(self, memory_id: str) -> list[Memory]:
        """Earlier versions of a memory, oldest first (the current one excluded)."""
        ...

    def import_memory(self, memory: Memory, past_versions: Sequence[Memory]) -> bool:
        """Insert a memory exactly as given (id, times, versions); False if its id exists."""
        ...

    def iter_memories(self, batch: int = 500) -> Iterator[Memory]:
        """Every memory, oldest first."""
        ...

    def count_memories(self, flt: MemoryFilter | None = None, at: datetime | None = None) -> int: ...

    # -- hygiene (snapshots, expiry, duplicates, counters, health) --------
    def snapshot_rows(
        self, workspace: str | None = None, agent_id: str | None = None, key: str | None = None, everywhere: bool = False
    ) -> list[tuple[str, str | None, str | None, str, datetime]]:
        """(id, workspace, agent_id, key, valid_at) of keyed snapshots: of one key, or all; oldest first."""
        ...

    def expired_memory_ids(self, at: datetime, limit: int = 1000) -> list[str]: ...

    def similar_pairs(self, min_score: float) -> list[tuple[str, str, float]]:
        """Similar-list slots scoring at least ``min_score``: (memory id, neighbour id, score)."""
        ...

    def counters(self) -> dict[str, str]: ...

    def bump_counter(self, name: str, by: int = 1) -> None: ...

    def set_counter(self, name: str, value: str) -> None: ...

    def count_tags(self, limit: int = 20) -> dict[str, int]: ...

    def date_range(self) -> tuple[datetime, datetime] | None: ...

    def count_expired(self, at: datetime) -> int: ...

    def count_superseded(self) -> int: ...

    def count_within(self, workspaces: Collection[str], at: datetime) -> dict[str, int]:
        """Counts limited to ``workspaces`` (names, '' for the global scope): ``memories``, ``retired`` (at
        ``at``), ``links`` (both ends among those memories), ``embedded`` (memories with a vector), ``vectors``."""
        ...

    def count_orphans(self) -> dict[str, int]:
        """Links, vectors and similar slots that point at a memory that is gone (each must be 0)."""
        ...

    def integrity_problems(self) -> list[str]:
        """What the database's own checks find wrong, its full-text index included (empty: nothing)."""
        ...

    def rebuild_text_index(self) -> None:
        """Build the full-text index again from the memories."""
        ...

    def count_without_vectors(self) -> int:
        """Memories that have no vector."""
        ...

    def backup(self, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
        """A consistent copy of the database in the new file ``target``, taken online; a server backend
        without a file copy raises InvalidInput naming its own tool (e.g. pg_dump)."""
        ...

    # -- the enrichment queue (memories waiting for the knowledge graph) -------------
    def enrich_enqueue(self, items: Sequence[tuple[str, bool, str | None]], at: datetime) -> None:
        """Queue (memory id, run the rules?, caller's graph JSON) rows; inside the memories' own transaction."""
        ...

    def enrich_claim(self, owner: str, limit: int, at: datetime, stale_before: datetime, max_attempts: int) -> list[EnrichItem]:
        """Hold up to ``limit`` items in the order their memories hold in time (valid_at, then arrival): free ones and
        claims older than ``stale_before``, one tried before alone; one attempt each."""
        ...

    def enrich_held(self, owner: str, seqs: Collection[int]) -> set[int]:
        """Of ``seqs``, those ``owner`` still holds."""
        ...

    def enrich_done(self, seqs: Collection[int]) -> None:
        """Delete completed items, inside the transaction that wrote their graph."""
        ...

    def enrich_release(self, seqs: Collection[int], error: str | None = None) -> None:
        """Give items back to the queue, noting ``error``."""
        ...

    def enrich_release_others(self, owner: str, error: str) -> int:
        """Free every claim not ``owner``'s, noting ``error`` (its holder holds the ``drain`` lock); how many."""
        ...

    def enrich_lock(self, name: str) -> Any:
        """The store's lock ``name`` ("drain", "worker") across every process that opens it, taken without waiting:
        a ``locks.Held``, or None when another holds it. A holder's death drops it."""
        ...

    def enrich_owners(self) -> list[str]:
        """Every worker that holds a claim now."""
        ...

    def enrich_release_owner(self, owner: str) -> int:
        """Free every claim of a worker known to be dead; how many."""
        ...

    def enrich_counts(self, max_attempts: int, within: Collection[str] | None = None) -> dict[str, int]:
        """{pending, running, failed}: free items, claimed ones, those tried ``max_attempts`` times (``within``: those workspaces')."""
        ...

    def enrich_failed(self, limit: int = 20) -> list[tuple[str, int, str | None]]:
        """(memory id, attempts, last error) of items that failed at least once and are not held."""
        ...

    def enrich_items(self) -> list[EnrichItem]:
        """Every queued item, oldest first."""
        ...

    def enrich_retry(self) -> int:
        """Attempts back to 0 for every free item tried before; how many."""
        ...

    # -- retrieval --------------------------------------------------------
    def fts_candidates(self, terms: Sequence[str], flt: MemoryFilter, limit: int, at: datetime) -> list[tuple[str, float]]:
        """(memory id, BM25 score; higher is better) for memories matching any term."""
        ...

    def ann_file(self) -> str | None:
        """Where the process's vector index may keep its approximate (HNSW) graph; None: nowhere."""
        ...

    def vector_candidates(
        self, index: Any, query: Any, k: int, flt: MemoryFilter, at: datetime, min_similarity: float = -1.0
    ) -> list[tuple[str, float]]:
        """(memory id, cosine of its best chunk to ``query``; higher is better) of the ``k`` nearest memories ``flt`` lets through.

        ``index`` is the process's in-memory vector index
        (:class:`~knotwork.search.vector_index.VectorIndex`): a store with no
        k-NN of its own scans it; one that has its own (pgvector) ignores it.
        Hits below ``min_similarity`` are left out.
        """
        ...
