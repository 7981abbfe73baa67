"""A memory filter as SQL conditions, once for both engines, which differ only in their dialect.

:data:`SQLITE` and :data:`POSTGRES` say what differs: the placeholder (``?`` against ``%s``), how a time is
bound (ISO-8601 text against a ``timestamptz``) and read back, how the JSON columns are read (``json_each`` /
``json_extract`` against ``jsonb``), the empty condition (``1`` against ``TRUE``), how a list is gathered
into one column (``group_concat`` against ``array_agg``), how a text's end is compared, where NULLs
sort, the first element of a JSON array, a character by its code point, a column tested against a batch of
ids or a set of workspaces, a conditional count, and the memories' row number column. Each engine's store binds its dialect (``sqlite/store.py``'s ``_where``, ``postgres/rows.py``'s
``where_sql``, and both stores' ``_dialect``, which the queries written once in ``memory_sql.py``,
``knowledge_sql.py`` and ``hygiene_sql.py`` read).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from knotwork.domain.models import ALL_PARTITIONS, ALL_WORKSPACES, SNAPSHOT, MemoryFilter
from knotwork.domain.temporal import from_text, to_text


@dataclass(frozen=True, slots=True)
class Dialect:
    mark: str  # a parameter's placeholder
    time: Callable[[datetime], Any]  # a time as the driver binds it
    artifact: str  # ``{a}`` the memories' alias, ``{mark}`` the placeholder: the memory names the artifact
    thread: str  # the expression of the memories_thread index, ``{a}`` the alias
    true: str  # a condition that always holds
    read_time: Callable[[Any], datetime]  # a stored time (never NULL) as a datetime
    gather: str  # ``{col}``'s values of a group as one column, read back with ``split``
    split: Callable[[Any], list[str]]  # the values ``gather`` made (not NULL)
    ends: str  # ``{col}`` ends with the parameter ``{mark}`` (bound twice)
    nulls_first: str  # after ``ORDER BY x``: NULLs first, as SQLite sorts them
    bytewise: str  # after a text column in ORDER BY: compared byte by byte, as SQLite's BINARY does
    in_list: Callable[[str, list[Any]], tuple[str, list[Any]]]  # ``column`` is one of these values: SQL, parameters
    first: str  # the first element of the JSON array in column ``{col}``, as text
    char: str  # the character of a code point: ``{char}(10)`` is a line break
    text_times: bool  # a stored time comes back as text (read it with ``read_time``), else as a datetime already
    ids_in: str  # after a column: it is one of a batch of ids (``{ids}``: the placeholders ``_rows_by_ids`` fills in)
    count_if: str  # how many rows of a group meet the condition ``{cond}``
    rowno: str  # the memories' row number column (``memory_changes`` names it ``memory_`` and the same)
    within: Callable[..., tuple[str, list[Any]]]  # ``AND <column> IN`` a set of workspaces, or nothing for None

    def opt_time(self, value: datetime | None) -> Any:
        """A time that may be None, as the driver binds it."""
        return self.time(value) if value else None

    def read_opt(self, value: Any) -> datetime | None:
        """A stored time that may be NULL."""
        return self.read_time(value) if value else None


def _within_sqlite(workspaces: Collection[str] | None, column: str = "workspace") -> tuple[str, list[Any]]:
    """`` AND <column> IN (...)`` for a set of workspaces ('' is the global scope); nothing for None."""
    if workspaces is None:
        return "", []
    names = sorted(workspaces)
    return (f" AND {column} IN ({', '.join('?' * len(names))})", list(names)) if names else (" AND 0", [])


def _within_postgres(workspaces: Collection[str] | None, column: str = "workspace") -> tuple[str, list[Any]]:
    """`` AND <column> = ANY(...)`` for a set of workspaces ('' is the global scope); nothing for None."""
    if workspaces is None:
        return "", []
    return f" AND {column} = ANY(%s)", [sorted(workspaces)]


SQLITE = Dialect(
    mark="?",
    time=to_text,
    artifact="EXISTS (SELECT 1 FROM json_each({a}.artifacts) a WHERE a.value = {mark})",
    thread="coalesce(json_extract({a}.metadata, '$.thread'), '')",  # migration 0027
    true="1",
    read_time=from_text,
    gather="group_concat({col}, char(31))",
    split=lambda text: text.split("\x1f"),
    ends="substr({col}, -length({mark})) = {mark}",
    nulls_first="",
    bytewise="",
    in_list=lambda column, values: (f"{column} IN ({', '.join('?' * len(values)) or 'NULL'})", values),
    first="json_extract({col}, '$[0]')",
    char="char",
    text_times=True,
    ids_in="IN ({ids})",  # one batch of placeholders at a time, under SQLite's bound-parameter limit
    count_if="coalesce(sum({cond}), 0)",
    rowno="rowid",
    within=_within_sqlite,
)
POSTGRES = Dialect(
    mark="%s",
    time=lambda t: t,
    artifact="{a}.artifacts::jsonb ? {mark}",
    thread="coalesce({a}.metadata::jsonb ->> 'thread', '')",  # migration 0015
    true="TRUE",
    read_time=lambda t: t,
    gather="array_agg({col} ORDER BY {col})",
    split=list,
    ends="right({col}, length({mark})) = {mark}",
    nulls_first=" NULLS FIRST",
    bytewise=' COLLATE "C"',
    in_list=lambda column, values: (f"{column} = ANY(%s)", [values]),
    first="{col}::jsonb ->> 0",
    char="chr",
    text_times=False,
    ids_in="= ANY(%s)",  # the whole list, bound at once
    count_if="count(*) FILTER (WHERE {cond})",
    rowno="rowno",
    within=_within_postgres,
)


def conditions(flt: MemoryFilter, at: datetime | None, alias: str, dialect: Dialect) -> tuple[str, list[Any]]:
    """SQL conditions (joined with AND) on the memories aliased ``alias`` and their parameters for a filter;
    ``at`` is "now" for validity and expiry (None: neither is tested)."""
    q, a = dialect.mark, alias
    clauses: list[str] = []
    params: list[Any] = []
    if flt.workspace != ALL_WORKSPACES:
        if flt.workspace:
            clauses.append(f"{a}.workspace IN ('', {q})")
            params.append(flt.workspace)
        else:
            clauses.append(f"{a}.workspace = ''")
    # Trigger: a read without agent_id. Why: partitions hold operational data (a profile
    # manager's snapshots, a bot's scratch) that would crowd the shared pool. Outcome: None
    # sees the shared partition only; a name sees that one; "*" sees them all.
    if flt.agent_id != ALL_PARTITIONS:
        clauses.append(f"{a}.agent_id = {q}")
        params.append(flt.agent_id or "")
    if flt.category:
        clauses.append(f"{a}.category = {q}")
        params.append(flt.category)
    elif not flt.include_snapshots:  # snapshots are regenerated state: seen only when asked for
        clauses.append(f"coalesce({a}.category, '') != '{SNAPSHOT}'")
    tag_clauses: list[str] = []
    for key, value in flt.tags.items():
        if value is None:
            tag_clauses.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {a}.id AND t.key = {q})")
            params.append(key)
        else:
            tag_clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {a}.id AND t.key = {q} AND t.value = {q})"
            )
            params.extend((key, value))
    if tag_clauses:
        clauses.append("(" + (" OR " if flt.tags_mode == "any" else " AND ").join(tag_clauses) + ")")
    if flt.artifact:
        clauses.append(dialect.artifact.format(a=a, mark=q))
        params.append(flt.artifact)
    if flt.thread:
        clauses.append(f"{dialect.thread.format(a=a)} = {q}")
        params.append(flt.thread)
    for bound, test in ((flt.valid_since, "valid_at >="), (flt.valid_until, "valid_at <"),
                        (flt.since, "created_at >="), (flt.until, "created_at <")):
        if bound:
            clauses.append(f"{a}.{test} {q}")
            params.append(dialect.time(bound))
    if not flt.include_invalid and at is not None:
        clauses.append(f"({a}.invalid_at IS NULL OR {a}.invalid_at > {q})")
        params.append(dialect.time(at))
    if at is not None:  # expired memories leave every read, include_invalid or not
        clauses.append(f"({a}.expires_at IS NULL OR {a}.expires_at > {q})")
        params.append(dialect.time(at))
    return (" AND ".join(clauses) or dialect.true), params
