"""The SQLite store's thread reads: which conversation a memory belongs to, and its neighbours in it.

A mixin of ``SQLiteStore`` (like ``HygieneStore``): it uses the store's ``_rows_by_ids``.
A memory's thread is its ``metadata.thread``; a memory that names none belongs to the
stretch of its workspace and partition that names none, in time order. Either way its
neighbours are the memories just before and just after it by (``valid_at``, id), one step
along the ``memories_thread`` index (migration 0027) each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knotwork.domain.temporal import from_text

_THREAD = "coalesce(json_extract({t}.metadata, '$.thread'), '')"
_SAME = "n.workspace = m.workspace AND n.agent_id = m.agent_id AND " + _THREAD.format(t="n") + " = " + _THREAD.format(t="m")
# One index seek each way: the nearest with the same valid_at (turns of one session often share it), else
# the nearest with an earlier (later) one. A row-value comparison would scan every row sharing the valid_at.
_BEFORE = (
    f"coalesce((SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at = m.valid_at AND n.id < m.id ORDER BY n.id DESC LIMIT 1),"
    f" (SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at < m.valid_at ORDER BY n.valid_at DESC, n.id DESC LIMIT 1))"
)
_AFTER = (
    f"coalesce((SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at = m.valid_at AND n.id > m.id ORDER BY n.id LIMIT 1),"
    f" (SELECT n.id FROM memories n WHERE {_SAME} AND n.valid_at > m.valid_at ORDER BY n.valid_at, n.id LIMIT 1))"
)
_AFTER_ONE = (
    f"SELECT m.id, {_THREAD.format(t='m')}, n.id, m.valid_at, n.valid_at FROM memories m JOIN memories n ON n.id = {_AFTER}"
    " WHERE m.id IN ({ids})"
)
_NEIGHBOURS = f"SELECT m.id, {_THREAD.format(t='m')}, {_BEFORE}, {_AFTER} FROM memories m WHERE m.id IN ({{ids}})"


class ThreadStore:
    _rows_by_ids: Any

    def memory_threads(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory's thread as (workspace, partition, ``metadata.thread``), for those of ``memory_ids`` that
        name one: a thread never spans workspaces or partitions."""
        rows = self._rows_by_ids(
            "SELECT id, workspace, agent_id, json_extract(metadata, '$.thread') FROM memories WHERE id IN ({ids})", memory_ids
        )
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows if r[3] is not None}

    def memory_places(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory that exists as (workspace, partition, ``metadata.thread`` or '')."""
        rows = self._rows_by_ids(
            f"SELECT id, workspace, agent_id, {_THREAD.format(t='m')} FROM memories m WHERE id IN ({{ids}})", memory_ids
        )
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows}

    def memories_after(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, float]]:
        """For each memory that has one: (its thread or ''; the memory just after it there; the seconds between)."""
        rows = self._rows_by_ids(_AFTER_ONE, memory_ids)
        return {r[0]: (r[1], r[2], (from_text(r[4]) - from_text(r[3])).total_seconds()) for r in rows}

    def thread_neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
        """For each memory that exists: (its thread, '' when it names none; the ids of the memories just
        before and just after it in that thread, or in its workspace and partition when it names none)."""
        rows = self._rows_by_ids(_NEIGHBOURS, memory_ids)
        return {r[0]: (r[1], [i for i in (r[2], r[3]) if i is not None]) for r in rows}
