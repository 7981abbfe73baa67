"""The durable queues: memories waiting for the graph's read-in (enrich_*) and for the LLM's extraction (kg_queue*).

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, Protocol

from knotwork.knowledge.models import QueueItem


@dataclass(frozen=True, slots=True)
class EnrichItem:
    """A memory waiting to be read into the knowledge graph, as a worker claimed it."""

    seq: int
    memory_id: str
    rules: bool  # run the offline rules on its text (False: only the caller's input, for a duplicate)
    graph: str | None  # the caller's entities and facts, JSON
    attempts: int  # claims so far, this one included


class Queues(Protocol):
    """The durable queues: memories waiting for the graph's read-in (enrich_*) and for the LLM's extraction (kg_queue*)."""

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

    def kg_claim(self, limit: int, at: datetime, stale_before: datetime) -> list[QueueItem]:
        """Mark up to ``limit`` due pending (or stale running) items as running, counting an attempt; return them."""
        ...

    def kg_enqueue(self, memory_ids: Sequence[str], at: datetime) -> None: ...

    def kg_queue(self, status: str | None = None, limit: int = 1000, memory_ids: Sequence[str] | None = None, exclude: str | None = None) -> list[QueueItem]: ...

    def kg_queue_counts(self) -> dict[str, int]: ...

    def kg_queue_retry_failed(self, at: datetime) -> int:
        """Give every failed item a fresh start (attempts back to 0); returns how many."""
        ...

    def kg_queue_set(self, memory_id: str, status: str, at: datetime, error: str | None = None, available_at: datetime | None = None, attempts: int | None = None) -> None:
        """Set an item's status (``attempts``: its count of attempts too, as a moved store had it)."""
        ...
