"""Memories: insert, read, list, replace and delete them, and what search and recall read of them.

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from knotwork.domain.models import Memory, MemoryBrief, MemoryFilter, RankingFacts
from knotwork.store.threads import Reply


class Memories(Protocol):
    """Memories: insert, read, list, replace and delete them, and what search and recall read of them."""

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

    def fts_candidates(self, terms: Sequence[str], flt: MemoryFilter, limit: int, at: datetime) -> list[tuple[str, float]]:
        """(memory id, BM25 score; higher is better) for memories matching any term."""
        ...

    def content_starts(self, memory_ids: Sequence[str], chars: int) -> dict[str, str]:
        """The first ``chars`` characters of each memory's content."""
        ...

    def data_version(self) -> int:
        """Changes whenever another connection commits to the file (this one's own commits leave it)."""
        ...

    def directive_memories(self, flt: MemoryFilter, limit: int, at: datetime) -> list[Memory]:
        """Standing instructions: memories of a directive-like category or of importance >= 0.8.

        Most important first, then newest. Served by the partial index
        ``memories_directives`` (migration 0011)."""
        ...

    def filter_memory_ids(self, memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> set[str]:
        """The subset of ``memory_ids`` that ``flt`` lets through."""
        ...

    def first_text_change(self) -> int:
        """The oldest memory text change number still kept (0 when none): older ones are pruned."""
        ...

    def get_meta(self, key: str) -> str | None: ...

    def in_transaction(self) -> bool:
        """True while the calling thread has a transaction open (its own writes not yet committed).

        The connection is shared by the process's threads: another thread's open transaction is not this
        thread's (it waits for the write lock, then opens its own)."""
        ...

    def memory_texts(self, rowids: Sequence[int] | None = None) -> list[tuple[int, str, str, str, tuple[str, ...], dict[str, str]]]:
        """(row number, id, workspace, content, names, tags) of the given memories that exist, or of every memory
        (the in-process lexical index keeps both: the names as words, the tags as postings for tag filters)."""
        ...

    def recent_memories(self, workspace: str | None, limit: int, at: datetime) -> list[Memory]:
        """The newest memories valid at ``at`` in ``workspace`` and the global scope, newest first
        (the shared partition, no snapshots, nothing expired).

        One index-ordered read per scope, merged: ``workspace IN ('', ?)``
        with ``ORDER BY id`` would read and sort every memory of both scopes."""
        ...

    def record_surfacing(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def surfaced_counts(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> dict[str, float]:
        """Surfacing counts, halved every ``half_life_hours`` since the last surfacing."""
        ...

    def text_mark(self) -> int:
        """The newest memory text change number: cheap change detection for in-memory lexical indexes."""
        ...

    def texts_changed_after(self, seq: int) -> list[int]:
        """Row numbers of the memories inserted, deleted or given new text since change ``seq``."""
        ...
