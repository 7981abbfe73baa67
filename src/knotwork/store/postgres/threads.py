"""The PostgreSQL store's thread reads: the same as store/sqlite/threads.py.

A mixin of ``PostgresStore``: it uses the store's ``_rows_by_ids``. A memory's
neighbours are one step each way along the ``memories_thread`` index (migration 0015).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_THREAD = "coalesce({t}.metadata::jsonb ->> 'thread', '')"
_SAME = "n.workspace = m.workspace AND n.agent_id = m.agent_id AND " + _THREAD.format(t="n") + " = " + _THREAD.format(t="m")
# One index seek each way, as in SQLite: the nearest with the same valid_at, else the nearest before (after) it.
_BEFORE = (
    f"coalesce((SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at = m.valid_at AND n.id < m.id ORDER BY n.id DESC LIMIT 1),"
    f" (SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at < m.valid_at ORDER BY n.valid_at DESC, n.id DESC LIMIT 1))"
)
_AFTER = (
    f"coalesce((SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at = m.valid_at AND n.id > m.id ORDER BY n.id LIMIT 1),"
    f" (SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at > m.valid_at ORDER BY n.valid_at, n.id LIMIT 1))"
)
_AFTER_ONE = (
    f"SELECT m.id, {_THREAD.format(t='m')}, n.id, extract(epoch FROM n.valid_at - m.valid_at)"
    f" FROM memories m JOIN memories n ON n.id = {_AFTER} WHERE m.id = ANY(%s)"
)
_NEIGHBOURS = f"SELECT m.id, {_THREAD.format(t='m')}, {_BEFORE}, {_AFTER} FROM memories m WHERE m.id = ANY(%s)"


class ThreadStore:
    _rows_by_ids: Any

    def memory_threads(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory's thread as (workspace, partition, ``metadata.thread``), for those of ``memory_ids`` that
        name one: a thread never spans workspaces or partitions."""
        rows = self._rows_by_ids(
            "SELECT id, workspace, agent_id, metadata::jsonb ->> 'thread' FROM memories WHERE id = ANY(%s)", memory_ids
        )
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows if r[3] is not None}

    def memory_places(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory that exists as (workspace, partition, ``metadata.thread`` or '')."""
        rows = self._rows_by_ids(
            f"SELECT id, workspace, agent_id, {_THREAD.format(t='m')} FROM memories m WHERE id = ANY(%s)", memory_ids
        )
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows}

    def memories_after(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, float]]:
        """For each memory that has one: (its thread or ''; the memory just after it there; the seconds between)."""
        rows = self._rows_by_ids(_AFTER_ONE, memory_ids)
        return {r[0]: (r[1], r[2], float(r[3])) for r in rows}

    def thread_neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
        """For each memory that exists: (its thread, '' when it names none; the ids of the memories just
        before and just after it in that thread, or in its workspace and partition when it names none)."""
        rows = self._rows_by_ids(_NEIGHBOURS, memory_ids)
        return {r[0]: (r[1], [i for i in (r[2], r[3]) if i is not None]) for r in rows}
