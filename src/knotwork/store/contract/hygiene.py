"""Counts, snapshots, expiry, health checks and backups: what keeps a store clean and says how it is.

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from pathlib import Path
from typing import Protocol

from knotwork.domain.models import MemoryFilter


class Hygiene(Protocol):
    """Counts, snapshots, expiry, health checks and backups: what keeps a store clean and says how it is."""

    def count_memory_refs(self, ref: str, workspaces: Collection[str] | None = None) -> int: ...

    def count_memories(self, flt: MemoryFilter | None = None, at: datetime | None = None) -> int: ...

    def snapshot_rows(
        self, workspace: str | None = None, agent_id: str | None = None, key: str | None = None, everywhere: bool = False
    ) -> list[tuple[str, str | None, str | None, str, datetime]]:
        """(id, workspace, agent_id, key, valid_at) of keyed snapshots: of one key, or all; oldest first."""
        ...

    def expired_memory_ids(self, at: datetime, limit: int = 1000) -> list[str]: ...

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

    def backup(self, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
        """A consistent copy of the database in the new file ``target``, taken online; a server backend
        without a file copy raises InvalidInput naming its own tool (e.g. pg_dump)."""
        ...

    def count_memories_by(self, column: str) -> dict[str, int]:
        """How many memories each value of ``column`` (workspace, category or agent_id) holds; '' is none."""
        ...

    def count_retired(self, at: datetime) -> int:
        """Memories whose ``invalid_at`` has passed."""
        ...

    def size_bytes(self) -> int:
        """Bytes the database takes: its pages, plus the write-ahead log when there is one."""
        ...
