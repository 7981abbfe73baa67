"""A memory's thread and its neighbours in it: one SQL text for both engines, and the mixin that runs it.

A memory's thread is its ``metadata.thread``; a memory that names none belongs to the
stretch of its workspace and partition that names none, in time order. Either way its
neighbours are the memories just before and just after it by (``valid_at``, id), one step
along the ``memories_thread`` index (SQLite migration 0027, PostgreSQL 0015) each.

The engines differ in two pieces only, which each store's ``threads.py`` names in a
:class:`ThreadSQL`: how a row's thread is read (``{t}`` stands for the table's alias) and
how ``m.id`` is tested against a batch of ids (the text the store's ``_rows_by_ids`` fills in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from knotwork.domain.models import MemoryFilter
from knotwork.domain.temporal import from_text

#: Every character Python counts as white space (``str.isspace``), written out: finding them among all code points
#: cost about 45 ms of CPU at each import of this module, so in every process that opens a store (tests/search/test_replies.py
#: checks the list against ``str.isspace``).
WHITE_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
#: What ``str.rstrip()`` strips and the closing marks a question may end in, as SQL literals: ``rtrim`` with them
#: reads :func:`knotwork.search.replies.asks` in SQL.
_SPACES = "'" + WHITE_SPACE + "'"
_CLOSING = "'" + "\"')]»”’".replace("'", "''") + "'"


def _moment(value: datetime | str) -> datetime:
    """A valid_at as the engine returns it: a datetime (PostgreSQL) or its stored text (SQLite)."""
    return value if isinstance(value, datetime) else from_text(value)


def _same(own: str) -> str:
    return f"n.workspace = m.workspace AND n.agent_id = m.agent_id AND {own.format(t='n')} = {own.format(t='m')}"


def _after(own: str) -> str:
    same = _same(own)
    return (
        f"coalesce((SELECT n.id FROM memories n WHERE {same} AND n.valid_at = m.valid_at AND n.id > m.id ORDER BY n.id LIMIT 1),"
        f" (SELECT n.id FROM memories n WHERE {same} AND n.valid_at > m.valid_at ORDER BY n.valid_at, n.id LIMIT 1))"
    )


def _neighbours(thread: str, id_in: str) -> str:
    own = f"coalesce({thread}, '')"
    same = _same(own)
    # One index seek each way: the nearest with the same valid_at (turns of one session often share it), else
    # the nearest with an earlier (later) one. A row-value comparison would scan every row sharing the valid_at.
    before = (
        f"coalesce((SELECT n.id FROM memories n WHERE {same} AND n.valid_at = m.valid_at AND n.id < m.id ORDER BY n.id DESC LIMIT 1),"
        f" (SELECT n.id FROM memories n WHERE {same} AND n.valid_at < m.valid_at ORDER BY n.valid_at DESC, n.id DESC LIMIT 1))"
    )
    return f"SELECT m.id, {own.format(t='m')}, {before}, {_after(own)} FROM memories m WHERE m.id {id_in}"


class Reply(NamedTuple):
    """The memory just after one in its thread (or, when it names none, in its workspace and partition)."""

    thread: str  # the first memory's thread, '' for none
    reply: str  # the id of the memory after it
    seconds: float  # between their valid_at
    asks: bool  # whether the first memory's text ends in a question (search/replies.py asks)
    words: int  # the reply's words, as RankingFacts.words counts them


@dataclass(frozen=True, slots=True)
class ThreadSQL:
    """The reads of :class:`ThreadStore` in one engine's SQL.

    ``thread``: a row's thread, ``{t}`` standing for the table's alias (NULL when it names none), e.g.
    ``json_extract({t}.metadata, '$.thread')``; ``id_in``: the test of ``m.id`` against the batch of ids,
    e.g. ``IN ({ids})`` or ``= ANY(%s)``.
    """

    thread: str
    id_in: str

    @property
    def threads(self) -> str:
        """id, workspace, agent_id and thread of each memory of the batch."""
        return f"SELECT m.id, m.workspace, m.agent_id, {self.thread.format(t='m')} FROM memories m WHERE m.id {self.id_in}"

    @property
    def places(self) -> str:
        """id, workspace, agent_id and thread ('' for none) of each memory of the batch."""
        own = f"coalesce({self.thread}, '')".format(t="m")
        return f"SELECT m.id, m.workspace, m.agent_id, {own} FROM memories m WHERE m.id {self.id_in}"

    def replies(self, where: str) -> str:
        """id, thread ('' for none), the id just after, both valid_at, whether the memory's text ends in a question
        and the words of the one after, of each memory of the batch whose next memory ``where`` (conditions on
        ``m``, the next memory) lets through. The words are counted as the stores' ``ranking_facts`` count them."""
        own = f"coalesce({self.thread}, '')"
        ends = f"rtrim(rtrim(m.content, {_SPACES}), {_CLOSING})"
        words = "length(m.content) - length(replace(replace(m.content, ' ', ''), '\n', '')) + 1"
        return (
            f"SELECT a.id, a.thread, m.id, a.valid_at, m.valid_at, a.asks, {words} FROM"
            f" (SELECT m.id, {own.format(t='m')} AS thread, {_after(own)} AS next, m.valid_at,"
            f" rtrim({ends}, '?？') != {ends} AS asks FROM memories m WHERE m.id {self.id_in}) a"
            f" JOIN memories m ON m.id = a.next WHERE {where}"
        )

    @property
    def neighbours(self) -> str:
        """id, thread ('' for none), the id just before and the id just after, of each memory of the batch."""
        return _neighbours(self.thread, self.id_in)


class ThreadStore:
    """A mixin of a store: it runs its ``_thread_sql`` through the store's ``_rows_by_ids``."""

    _rows_by_ids: Any
    _filtered_rows_by_ids: Any
    _thread_sql: ThreadSQL

    def memory_threads(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory's thread as (workspace, partition, ``metadata.thread``), for those of ``memory_ids`` that
        name one: a thread never spans workspaces or partitions."""
        rows = self._rows_by_ids(self._thread_sql.threads, memory_ids)
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows if r[3] is not None}

    def memory_places(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """Each memory that exists as (workspace, partition, ``metadata.thread`` or '')."""
        rows = self._rows_by_ids(self._thread_sql.places, memory_ids)
        return {r[0]: (r[1], r[2], str(r[3])) for r in rows}

    def memory_replies(self, memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> dict[str, Reply]:
        """For each memory whose next one in its thread (in its workspace and partition when it names none)
        ``flt`` lets through at ``at``: that reply, whether the memory asks and the reply's words. One read."""
        rows = self._filtered_rows_by_ids(self._thread_sql.replies, memory_ids, flt, at)
        return {
            r[0]: Reply(r[1], r[2], (_moment(r[4]) - _moment(r[3])).total_seconds(), bool(r[5]), r[6]) for r in rows
        }

    def thread_neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
        """For each memory that exists: (its thread, '' when it names none; the ids of the memories just
        before and just after it in that thread, or in its workspace and partition when it names none)."""
        rows = self._rows_by_ids(self._thread_sql.neighbours, memory_ids)
        return {r[0]: (r[1], [i for i in (r[2], r[3]) if i is not None]) for r in rows}
