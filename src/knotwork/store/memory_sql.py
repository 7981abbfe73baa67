"""The memories' reads, replace, import and counts that both stores run alike, written once in the store's dialect.

A mixin of ``SQLiteStore`` and ``PostgresStore`` (like ``knowledge_sql.py`` and ``hygiene_sql.py``). Each engine
keeps what is truly its own:

- the row decoders (``_memory_row``, ``_brief_row``) and the row encoder (``_memory_params``): they run on every
  row of every read, and SQLite's read and write times as text where PostgreSQL's driver hands over datetimes;
- ``_one`` (one memory or None), ``_read``, ``_rows_by_ids`` (see ``shared.py``), ``_run`` inside ``transaction``;
- ``_vector_memory``, how ``count_within``'s vector rows meet their memories (PostgreSQL's vectors are keyed by
  workspace too);
- ``_insert`` (SQLite one statement a memory, PostgreSQL a statement a thousand), ``_keep_versions`` (PostgreSQL
  names the version's workspace in its key), ``_wrote`` (the rows PostgreSQL counts toward analyzing its tables).

The listing, full-text, recent and directive reads, and the ref lookups, stay in each engine: their SQL differs
for the planner's sake (SQLite's ``+m`` alias and ``INDEXED BY``, PostgreSQL's ``reverse(id)``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from datetime import datetime
from typing import Any

from knotwork.domain.models import ALL_PARTITIONS, ALL_WORKSPACES, Memory, MemoryBrief, MemoryFilter, names_of
from knotwork.errors import Conflict
from knotwork.store.where import Dialect, conditions

COLUMNS = (
    "id, content, workspace, agent_id, category, tags, artifacts, evidence, importance, metadata,"
    " created_at, updated_at, valid_at, invalid_at, content_hash, version, expires_at"
)
BRIEF_COLUMNS = "id, content, workspace, category, importance, valid_at, invalid_at"

# Word for word the WHERE clause of the partial index memories_directives (SQLite migration 0011, PostgreSQL 0004).
DIRECTIVE_CATEGORIES = ("directive", "preference", "decision", "rule", "convention", "instruction")
DIRECTIVES_WHERE = (
    "(category IN ('directive', 'preference', 'decision', 'rule', 'convention', 'instruction') OR importance >= 0.8)"
)
GROUPABLE = frozenset({"workspace", "category", "agent_id"})

#: What ``count_memories`` counts without a filter: every memory of every workspace and partition.
EVERYTHING = MemoryFilter(workspace=ALL_WORKSPACES, agent_id=ALL_PARTITIONS, include_invalid=True, include_snapshots=True)


_EMPTY = {"{}": dict, "[]": list}


def json_field(text: str) -> Any:
    """json.loads with a fast path for the empty values most rows hold (both engines' row decoders use it)."""
    empty = _EMPTY.get(text)
    return empty() if empty else json.loads(text)


def version_record(m: Memory) -> str:
    """A past version as ``memory_versions.record`` keeps it."""
    return json.dumps(m.to_dict(), ensure_ascii=False, sort_keys=True)


class MemorySql:
    """The memories' methods both stores share (see the module's docstring)."""

    _dialect: Dialect
    _read: Any
    _rows_by_ids: Any
    _run: Any
    _one: Any
    transaction: Any
    _insert: Any  # the engine's own: new memories and their tags
    _write_tags: Any
    _keep_versions: Any  # the engine's own: (workspace, memory id, past versions) into memory_versions
    _wrote: Any
    _reads: Any  # held around reads that belong together (SQLite's read lock when reads share the writer's connection)
    _vector_memory: str  # the engine's own for count_within: how a vector row meets its memory
    # The engine's own row decoders and encoder (module functions, bound as staticmethods).
    _memory_row: Any
    _brief_row: Any
    _memory_params: Any

    # -- one memory, some memories -------------------------------------------------
    def find_memory_by_hash(self, workspace: str | None, agent_id: str | None, content_hash: str) -> Memory | None:
        q = self._dialect.mark
        return self._one(
            f"SELECT {COLUMNS} FROM memories WHERE workspace = {q} AND agent_id = {q} AND content_hash = {q}",
            (workspace or "", agent_id or "", content_hash),
        )

    def get_memory(self, memory_id: str) -> Memory | None:
        return self._one(f"SELECT {COLUMNS} FROM memories WHERE id = {self._dialect.mark}", (memory_id,))

    def get_memories(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        decode = self._memory_row
        rows = self._rows_by_ids(f"SELECT {COLUMNS} FROM memories WHERE id {self._dialect.ids_in}", memory_ids)
        return {r[0]: decode(r) for r in rows}

    def memory_briefs(self, memory_ids: Sequence[str]) -> dict[str, MemoryBrief]:
        """Each memory that exists in brief: the seven columns a walk's results show (related, graph)."""
        decode = self._brief_row
        rows = self._rows_by_ids(f"SELECT {BRIEF_COLUMNS} FROM memories WHERE id {self._dialect.ids_in}", memory_ids)
        return {r[0]: decode(r) for r in rows}

    def memory_versions(self, memory_id: str) -> list[Memory]:
        rows = self._read(f"SELECT record FROM memory_versions WHERE memory_id = {self._dialect.mark} ORDER BY version", (memory_id,))
        return [Memory.from_dict(json.loads(r[0])) for r in rows]

    def iter_memories(self, batch: int = 500) -> Iterator[Memory]:
        q, decode = self._dialect.mark, self._memory_row
        after = ""
        while True:
            rows = self._read(f"SELECT {COLUMNS} FROM memories WHERE id > {q} ORDER BY id LIMIT {q}", (after, batch))
            if not rows:
                return
            for r in rows:
                yield decode(r)
            after = rows[-1][0]

    # -- writes ------------------------------------------------------------------------
    def replace_memory(self, old: Memory, new: Memory) -> Memory:
        q = self._dialect.mark
        with self.transaction():
            clash = self.find_memory_by_hash(new.workspace, new.agent_id, new.content_hash)
            if clash and clash.id != new.id:
                raise Conflict(f"memory {clash.id} already holds this content in the same workspace and partition")
            assignments = ", ".join(f"{c.strip()} = {q}" for c in COLUMNS.split(",")[1:])
            cur = self._run(
                f"UPDATE memories SET {assignments} WHERE id = {q} AND version = {q}", (*self._memory_params(new)[1:], old.id, old.version)
            )
            if cur.rowcount != 1:  # checked before the old version is kept: another writer's kept it already
                raise Conflict(f"memory {old.id} was changed by someone else; read it again and retry")
            self._keep_versions(new.workspace, old.id, [old])  # in the memory's workspace as it is now (the key follows the memory)
            self._write_tags(new)
        return new

    def import_memory(self, memory: Memory, past_versions: Sequence[Memory]) -> bool:
        with self.transaction():
            if self.get_memory(memory.id):
                return False
            clash = self.find_memory_by_hash(memory.workspace, memory.agent_id, memory.content_hash)
            if clash:
                raise Conflict(f"memory {clash.id} already holds the content of {memory.id}")
            self._insert([memory])
            self._wrote(1 + len(past_versions))
            self._keep_versions(memory.workspace, memory.id, past_versions)
        return True

    # -- counts --------------------------------------------------------------------------
    def count_memories(self, flt: MemoryFilter | None = None, at: datetime | None = None) -> int:
        where, params = conditions(flt or EVERYTHING, at, "m", self._dialect)
        return self._read(f"SELECT count(*) FROM memories m WHERE {where}", params)[0][0]

    def count_memories_by(self, column: str) -> dict[str, int]:
        """How many memories each value of ``column`` (workspace, category or agent_id) holds; '' is none."""
        if column not in GROUPABLE:
            raise ValueError(f"cannot group memories by {column!r}")
        rows = self._read(f"SELECT coalesce({column}, ''), count(*) FROM memories GROUP BY 1 ORDER BY 2 DESC, 1")
        return {r[0]: r[1] for r in rows}

    def count_retired(self, at: datetime) -> int:
        """Memories whose ``invalid_at`` has passed."""
        return self._read(
            f"SELECT count(*) FROM memories WHERE invalid_at IS NOT NULL AND invalid_at <= {self._dialect.mark}", (self._dialect.time(at),)
        )[0][0]

    def count_within(self, workspaces: Collection[str], at: datetime) -> dict[str, int]:
        """What a caller limited to ``workspaces`` ('' for the global scope) may count: its memories (retired
        ones at ``at``), the links between two of them, and their vectors."""
        d = self._dialect
        within, true = d.within, d.true
        mine, params = within(workspaces, "m.workspace")
        ends, end_params = within(workspaces, "a.workspace")
        other, other_params = within(workspaces, "b.workspace")
        with self._reads:  # the three counts read together
            memories, retired = self._read(
                f"SELECT count(*), {d.count_if.format(cond=f'invalid_at IS NOT NULL AND invalid_at <= {d.mark}')}"
                f" FROM memories m WHERE {true}{mine}", (d.time(at), *params)
            )[0]
            links = self._read(
                "SELECT count(*) FROM links l JOIN memories a ON a.id = l.from_id JOIN memories b ON b.id = l.to_id"
                f" WHERE {true}{ends}{other}", (*end_params, *other_params),
            )[0][0]
            embedded, vectors = self._read(
                f"SELECT count(DISTINCT v.memory_id), count(*) FROM memory_vectors v JOIN memories m ON {self._vector_memory}"
                f" WHERE {true}{mine}", params,
            )[0]
        return {"memories": memories, "retired": retired, "links": links, "embedded": embedded, "vectors": vectors}

    def count_links_by_type(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self._read("SELECT type, count(*) FROM links GROUP BY type ORDER BY 2 DESC, 1")}

    def count_vectors(self) -> tuple[int, int]:
        """(memories with at least one vector, vector rows)."""
        row = self._read("SELECT count(DISTINCT memory_id), count(*) FROM memory_vectors")[0]
        return row[0], row[1]

    # -- changes of text ---------------------------------------------------------------------
    def text_mark(self) -> int:
        """The newest memory text change number: cheap change detection for in-memory lexical indexes."""
        return self._read("SELECT coalesce(max(seq), 0) FROM memory_changes")[0][0]

    def first_text_change(self) -> int:
        """The oldest memory text change number still kept (0 when none): older ones are pruned."""
        return self._read("SELECT coalesce(min(seq), 0) FROM memory_changes")[0][0]

    def texts_changed_after(self, seq: int) -> list[int]:
        """Row numbers of the memories inserted, deleted or given new text since change ``seq``."""
        d = self._dialect
        rows = self._read(f"SELECT DISTINCT memory_{d.rowno} FROM memory_changes WHERE seq > {d.mark}", (seq,))
        return [r[0] for r in rows]

    def memory_texts(self, rowids: Sequence[int] | None = None) -> list[tuple[int, str, str, str, tuple[str, ...], dict[str, str]]]:
        """(row number, id, workspace, content, names, tags) of the given memories that exist, or of every memory."""
        d = self._dialect
        sql = f"SELECT {d.rowno}, id, workspace, content, tags, artifacts, evidence FROM memories"
        rows = self._read(sql) if rowids is None else self._rows_by_ids(f"{sql} WHERE {d.rowno} {d.ids_in}", list(rowids))
        out = []
        for r in rows:
            tags = json_field(r[4]) or {}
            out.append((r[0], r[1], r[2], r[3], names_of(tags, json_field(r[5]), json_field(r[6])), tags))
        return out

    # -- signals for rerankers ------------------------------------------------------------------
    def incoming_link_counts(self, memory_ids: Sequence[str]) -> dict[str, int]:
        return dict(self._rows_by_ids(f"SELECT to_id, count(*) FROM links WHERE to_id {self._dialect.ids_in} GROUP BY to_id", memory_ids))
