"""SQLite store: one file, WAL, a busy timeout, FTS5 for BM25.

Many processes may open the same file (each agent session can start its own
server). Reads run concurrently under WAL; writes take the write lock up front
with ``BEGIN IMMEDIATE`` and wait up to the busy timeout for it, so two
writers queue instead of failing with "database is locked".

Within a process, writes go through one connection (held by one thread for
the length of its transaction), and every other thread reads through a
read-only connection of its own (``connections.py``): a search never queues
behind a write transaction, and sees what was committed before it started.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from knotwork.domain.models import SNAPSHOT, Memory, MemoryBrief, MemoryFilter
from knotwork.domain.temporal import from_text, to_text
from knotwork.errors import BackendUnavailable, InvalidInput
from knotwork.store import filtered
from knotwork.store.hygiene_sql import HygieneSql
from knotwork.store.knowledge_sql import KnowledgeSql
from knotwork.store.links_sql import LinkSql
from knotwork.store.memory_sql import COLUMNS, DIRECTIVES_WHERE, MemorySql, version_record
from knotwork.store.memory_sql import json_field as _json
from knotwork.store.protocol import Tracer
from knotwork.store.queue import EnrichSql
from knotwork.store.shared import SharedStore
from knotwork.store.sqlite import backup, migrate
from knotwork.store.sqlite.connections import MMAP_BYTES, Readers, WriterLock
from knotwork.store.sqlite.enrich import EnrichStore
from knotwork.store.sqlite.gate import WriteGate
from knotwork.store.sqlite.hygiene import HygieneStore
from knotwork.store.sqlite.knowledge import KnowledgeStore
from knotwork.store.sqlite.links import LinkStore
from knotwork.store.sqlite.termstats import TermStats
from knotwork.store.sqlite.threads import ThreadStore
from knotwork.store.sqlite.vectors import VectorStore
from knotwork.store.where import SQLITE, conditions

_ID_BATCH = 500  # ids per statement: well under SQLite's bound-parameter limit
FTS_OVERFETCH = 2  # BM25 rows ranked per row asked for, before the filter (fts_candidates)


def _memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        content=row[1],
        workspace=row[2] or None,
        agent_id=row[3] or None,
        category=row[4],
        tags=_json(row[5]),
        artifacts=_json(row[6]),
        evidence=_json(row[7]),
        importance=row[8],
        metadata=_json(row[9]),
        created_at=from_text(row[10]),
        updated_at=from_text(row[11]),
        valid_at=from_text(row[12]),
        invalid_at=from_text(row[13]) if row[13] else None,
        content_hash=row[14],
        version=row[15],
        expires_at=from_text(row[16]) if row[16] else None,
    )


def _brief(row: Sequence[Any]) -> MemoryBrief:
    return MemoryBrief(row[0], row[1], row[2] or None, row[3], row[4], from_text(row[5]), from_text(row[6]) if row[6] else None)


def _params(m: Memory) -> tuple[Any, ...]:
    return (
        m.id,
        m.content,
        m.workspace or "",
        m.agent_id or "",
        m.category,
        json.dumps(m.tags, ensure_ascii=False, sort_keys=True),
        json.dumps(m.artifacts, ensure_ascii=False),
        json.dumps(m.evidence, ensure_ascii=False),
        m.importance,
        json.dumps(m.metadata, ensure_ascii=False, sort_keys=True),
        to_text(m.created_at),
        to_text(m.updated_at),
        to_text(m.valid_at),
        to_text(m.invalid_at) if m.invalid_at else None,
        m.content_hash,
        m.version,
        to_text(m.expires_at) if m.expires_at else None,
    )


def _where(flt: MemoryFilter, at: datetime | None = None, alias: str = "m") -> tuple[str, list[Any]]:
    """SQL conditions (joined with AND) and their parameters for a filter (store/where.py, SQLite's dialect)."""
    return conditions(flt, at, alias, SQLITE)


#: The alias of ``memories`` for :func:`_where` in a query that looks rows up by id or rowid. Trigger: an ``IN``
#: list of more than a few ids beside the filter's ``workspace``/``agent_id`` terms. Why: without statistics
#: the planner scans the workspace's entries of ``memories_thread`` (every memory of the workspace and of the
#: global scope, at any store size) instead of looking the ids up. Outcome: the unary ``+`` of ``+m.column``
#: keeps the filter's terms from using an index, so the ids are looked up and the terms checked on their rows.
BY_ID = "+m"


class SQLiteStore(
    LinkStore, LinkSql, VectorStore, KnowledgeStore, KnowledgeSql, MemorySql, HygieneStore, HygieneSql, EnrichStore, EnrichSql, ThreadStore, SharedStore
):
    """The Store protocol on one SQLite file (the links' methods come from ``LinkStore``, the vectors' and
    similar lists' from ``VectorStore``, the knowledge graph's from ``KnowledgeStore``, the hygiene ones from
    ``HygieneStore``, those both engines share from ``SharedStore``)."""

    _dialect = SQLITE  # KnowledgeSql, MemorySql, HygieneSql, SharedStore: the queries written once
    _memory_row = staticmethod(_memory)  # MemorySql: this engine's row decoders and encoder
    _brief_row = staticmethod(_brief)
    _memory_params = staticmethod(_params)
    _vector_memory = "m.id = v.memory_id"  # MemorySql.count_within: a vector's memory

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 30_000, tracer: Tracer | None = None, synchronous: str = "full"
    ) -> None:
        if synchronous not in ("full", "normal"):
            raise InvalidInput("synchronous", f"must be full or normal, got {synchronous!r}")
        self.location = self.target = str(path)  # target: what a worker process opens (services/drainer.py)
        self.tracer = tracer
        if self.location != ":memory:":
            Path(self.location).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                Path(self.location).expanduser() if self.location != ":memory:" else ":memory:",
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal" and self.location != ":memory:":
                raise BackendUnavailable(f"{self.location}: could not switch the database to WAL mode")
            # full: each commit is fsynced (durable through a power loss); normal: WAL's own guarantee, the
            # last commits may be lost on a power loss, never the database's integrity. See Settings.synchronous.
            self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            # Trigger: reads by id (a traversal's few hundred memories) on a large file. Why: with
            # SQLite's default 2 MB page cache nearly every row is a page read from the OS; a
            # related(depth=3) on a 150 MB store fetched its memories ~40% faster with 64 MB.
            # Outcome: up to 64 MB per open store, used only as pages are read.
            self._conn.execute("PRAGMA cache_size = -65536")
            self._conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")  # see connections.MMAP_BYTES
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._version = migrate.apply(self._conn)
        except sqlite3.DatabaseError as exc:
            raise BackendUnavailable(f"{self.location}: cannot open as a knotwork database ({exc})") from None
        newest = self._conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        if newest > self._version:
            raise BackendUnavailable(
                f"{self.location}: schema version {newest} was written by a newer knotwork (this one knows {self._version})"
            )
        # Trigger: a read on a thread that does not hold the write connection. Why: with one connection
        # shared by every thread, a search waited for the whole of another thread's write transaction
        # (about 30% of a loaded server's samples). Outcome: reads run on the thread's own read-only
        # connection under ``self._reads`` (no lock), and see what was committed when they began; the
        # thread that holds ``self._lock`` (its transaction, or a write outside one) uses the writer's
        # connection and sees its own uncommitted writes. An in-memory database cannot be opened twice:
        # there, reads take the writer's lock as before.
        self._lock = WriterLock()
        self._readers = Readers(self.location, busy_timeout_ms) if self.location != ":memory:" else None
        self._reads = self._lock if self._readers is None else contextlib.nullcontext()
        self.concurrent_reads = self._readers is not None
        # Writers of this file in every process queue here before BEGIN IMMEDIATE (see gate.py).
        self._gate = WriteGate(str(Path(self.location).expanduser()) if self.location != ":memory:" else ":memory:",
                               busy_timeout_ms / 1000)
        self._depth = 0
        self._owner: int | None = None  # the thread whose transaction is open
        self._term_stats = TermStats(self._run)

    # -- plumbing ---------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:
        """The writer's connection for the thread that holds the write lock, else this thread's reader."""
        if self._readers is None or self._lock.held():
            return self._conn
        return self._readers.get()

    def _run(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        if self.tracer:
            self.tracer(sql, params)
        return self._connection().execute(sql, params)

    def _run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> sqlite3.Cursor:
        if self.tracer:
            self.tracer(sql, rows)
        return self._connection().executemany(sql, rows)

    def settle(self) -> None:
        """Merge the write-ahead log into the database file and empty it (a log another process still reads
        from is merged as far as it can be)."""
        if self.location == ":memory:":
            return
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._gate.close()
            if self._readers is not None:
                self._readers.close()

    def schema_version(self) -> int:
        return self._version

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            gated = self._gate.enter()
            try:
                self._run("BEGIN IMMEDIATE")
                self._depth, self._owner = 1, threading.get_ident()
                try:
                    yield
                except BaseException:
                    self._run("ROLLBACK")
                    raise
                else:
                    self._run("COMMIT")
                finally:
                    self._depth, self._owner = 0, None
            finally:
                if gated:
                    self._gate.leave()

    def _rows_by_ids(
        self, sql: str, ids: Iterable[Any], params: Callable[[list[Any]], Sequence[Any]] = list
    ) -> list[Any]:
        """Every row of ``sql`` run once per batch of distinct ``ids``.

        SQLite caps the parameters of one statement, so ids go in batches of
        ``_ID_BATCH``: ``{ids}`` in ``sql`` stands for one batch's placeholders,
        and ``params(batch)`` gives the values to bind (the batch itself by default).
        """
        unique = list(dict.fromkeys(ids))
        rows: list[Any] = []
        with self._reads:
            for start in range(0, len(unique), _ID_BATCH):
                batch = unique[start : start + _ID_BATCH]
                rows += self._run(sql.replace("{ids}", ", ".join("?" * len(batch))), params(batch)).fetchall()
        return rows

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one read (under the read lock when reads share the writer's connection)."""
        with self._reads:
            return self._run(sql, params).fetchall()

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Memory | None:
        with self._reads:
            row = self._run(sql, params).fetchone()
        return _memory(row) if row else None

    # -- memories ---------------------------------------------------------
    def _insert(self, memories: Sequence[Memory]) -> None:
        """Insert new memories and their tags, one statement a memory."""
        for m in memories:
            self._run(
                f"INSERT INTO memories ({COLUMNS}, rid) VALUES ({', '.join('?' * 17)}, ?)",
                (*_params(m), m.id[::-1]),
            )
            self._write_tags(m)

    def _keep_versions(self, workspace: str | None, memory_id: str, past: Sequence[Memory]) -> None:
        """Past versions of a memory into memory_versions (keyed by the memory alone: ``workspace`` is unused)."""
        for old in past:
            self._run(
                "INSERT INTO memory_versions (memory_id, version, record) VALUES (?, ?, ?)", (memory_id, old.version, version_record(old))
            )

    def _wrote(self, rows: int) -> None:
        """Nothing to note: SQLite's planner needs no statistics gathered after a load (PostgreSQL's does)."""

    def _write_tags(self, m: Memory) -> None:
        self._run("DELETE FROM memory_tags WHERE memory_id = ?", (m.id,))
        for key, value in m.tags.items():
            self._run("INSERT INTO memory_tags (memory_id, key, value) VALUES (?, ?, ?)", (m.id, key, value))

    def insert_memories(self, memories: Sequence[Memory]) -> list[Memory]:
        out: list[Memory] = []
        with self.transaction():
            for m in memories:
                existing = self.find_memory_by_hash(m.workspace, m.agent_id, m.content_hash)
                if existing:
                    out.append(existing.with_duplicate())
                    continue
                self._insert((m,))
                out.append(m)
        return out

    def resolve_memory_ref(self, ref: str, limit: int = 11, workspaces: Collection[str] | None = None) -> list[str]:
        """Full ids of the memories ``ref`` names (itself, or a prefix or suffix), of ``workspaces`` only when
        given ('' for the global scope)."""
        within, params = self._dialect.within(workspaces)
        if len(ref) == 26:
            with self._reads:
                row = self._run(f"SELECT id FROM memories WHERE id = ?{within}", (ref, *params)).fetchone()
            return [row[0]] if row else []
        with self._reads:
            by_prefix = self._run(
                f"SELECT id FROM memories WHERE id >= ? AND id < ?{within} ORDER BY id LIMIT ?", (ref, ref + "~", *params, limit)
            ).fetchall()
            rev = ref[::-1]
            by_suffix = self._run(
                f"SELECT id FROM memories WHERE rid >= ? AND rid < ?{within} ORDER BY rid LIMIT ?", (rev, rev + "~", *params, limit)
            ).fetchall()
        return list(dict.fromkeys(r[0] for r in by_prefix + by_suffix))

    def count_memory_refs(self, ref: str, workspaces: Collection[str] | None = None) -> int:
        """How many memories a short id matches by prefix or suffix (for error messages), of ``workspaces``."""
        rev = ref[::-1]
        within, params = self._dialect.within(workspaces)
        with self._reads:
            return self._run(
                f"SELECT count(*) FROM memories WHERE ((id >= ? AND id < ?) OR (rid >= ? AND rid < ?)){within}",
                (ref, ref + "~", rev, rev + "~", *params),
            ).fetchone()[0]

    def delete_memory(self, memory_id: str) -> bool:
        with self.transaction():
            return self._run("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount > 0

    def list_memories(self, flt: MemoryFilter, limit: int, before_id: str | None = None, at: datetime | None = None) -> list[Memory]:
        # Tags without a thread: the tag's memories drive the read, as in filtered_ids. Why: the planner scanned
        # every memory of the workspace and checked each one's tags (a LangGraph store's get of one key among
        # many was a scan). Outcome: the memory_tags_kv index lists the tag's memories, looked up by id.
        tagged = bool(flt.tags) and not flt.thread
        where, params = _where(flt, at, BY_ID if tagged else "m")
        if tagged:
            clause, drive = filtered.drive(flt, "?")
            where += clause
            params += drive
        if before_id:
            where += " AND m.id < ?"
            params.append(before_id)
        with self._reads:
            rows = self._run(
                f"SELECT {COLUMNS} FROM memories m WHERE {where} ORDER BY m.id DESC LIMIT ?", (*params, limit)
            ).fetchall()
        return [_memory(r) for r in rows]

    # -- retrieval --------------------------------------------------------
    def fts_candidates(self, terms: Sequence[str], flt: MemoryFilter, limit: int, at: datetime) -> list[tuple[str, float]]:
        """The ``limit`` best BM25 matches for ``terms`` among the memories ``flt`` lets through.

        FTS5 ranks first, over the full-text index alone, and only the best
        ``FTS_OVERFETCH`` × ``limit`` rows are joined to ``memories`` and
        filtered: joining every matching row before ranking cost a third of
        the query (bench/README.md, search latency). When the filter leaves
        fewer than ``limit`` of them and more rows matched, the query runs
        again with the filter inside, so the answer is the same either way.
        """
        with self._reads:
            terms = self._term_stats.informative(terms)
        if not terms:
            return []
        # Every term is quoted, so FTS5 syntax in user text (NEAR, OR, *, -, ")
        # is matched as words, never parsed as operators.
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        where, params = _where(flt, at)
        fetch = FTS_OVERFETCH * limit
        with self._reads:
            ranked = self._run(
                "SELECT rowid, -bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts) LIMIT ?",
                (match, fetch),
            ).fetchall()
            by_id, _ = _where(flt, at, BY_ID)
            allowed = dict(
                self._rows_by_ids(
                    f"SELECT m.rowid, m.id FROM memories m WHERE m.rowid IN ({{ids}}) AND {by_id}",
                    [rowid for rowid, _ in ranked],
                    lambda batch: [*batch, *params],
                )
            )
            hits = [(allowed[rowid], score) for rowid, score in ranked if rowid in allowed][:limit]
            if len(hits) < limit and len(ranked) == fetch:
                hits = self._run(
                    "SELECT m.id, -bm25(memories_fts) FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
                    f" WHERE memories_fts MATCH ? AND {where} ORDER BY bm25(memories_fts) LIMIT ?",
                    (match, *params, limit),
                ).fetchall()
        return [(h[0], float(h[1])) for h in hits]

    def data_version(self) -> int:
        """Changes whenever another connection commits to the file (this one's own commits leave it)."""
        with self._lock:
            return self._run("PRAGMA data_version").fetchone()[0]

    def in_transaction(self) -> bool:
        """True while the calling thread has a transaction open (its own writes not yet committed).

        The connection is shared by the process's threads: another thread's open transaction is not this
        thread's (it waits for the write lock, then opens its own)."""
        return self._owner == threading.get_ident() and self._conn.in_transaction

    # -- vectors ------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._reads:
            row = self._run("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._run("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    def memories_without_vectors(self, limit: int = 1000) -> list[Memory]:
        with self._reads:
            rows = self._run(
                f"SELECT {COLUMNS} FROM memories m WHERE NOT EXISTS"
                " (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id) ORDER BY m.id LIMIT ?",
                (limit,),
            ).fetchall()
        return [_memory(r) for r in rows]

    def content_starts(self, memory_ids: Sequence[str], chars: int) -> dict[str, str]:
        """The first ``chars`` characters of each memory's content."""
        rows = self._rows_by_ids(
            "SELECT id, substr(content, 1, ?) FROM memories WHERE id IN ({ids})", memory_ids, lambda batch: [chars, *batch]
        )
        return dict(rows)

    def filter_memory_ids(self, memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> set[str]:
        """The subset of ``memory_ids`` that ``flt`` lets through."""
        rows = self._filtered_rows_by_ids(lambda where: f"SELECT m.id FROM memories m WHERE m.id IN ({{ids}}) AND {where}", memory_ids, flt, at)
        return {r[0] for r in rows}

    def filtered_ids(self, flt: MemoryFilter, at: datetime, most: int) -> list[str] | None:
        """The ids of the memories ``flt`` lets through at ``at`` (store/filtered.py), or None when more than ``most``."""
        # Tags without a thread: the tag's memories drive the read (BY_ID keeps the planner off the workspace's
        # index entries, which it would scan whole for a tag few of them hold); a thread has its index.
        where, params = _where(flt, at, BY_ID if flt.tags and not flt.thread else "m")
        sql, drive = filtered.listing(flt, where, "?")
        with self._reads:
            rows = self._run(sql, (*params, *drive, most + 1)).fetchall()
        return None if len(rows) > most else [r[0] for r in rows]

    def _filtered_rows_by_ids(self, sql: Callable[[str], str], memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> list[Any]:
        """Every row of ``sql(where)`` per batch of ids, ``where`` being ``flt``'s conditions on ``m`` (bound after the ids)."""
        where, params = _where(flt, at, BY_ID)
        return self._rows_by_ids(sql(where), memory_ids, lambda batch: [*batch, *params])

    # -- signals for rerankers ------------------------------------------------
    def surfaced_counts(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> dict[str, float]:
        """Surfacing counts, halved every ``half_life_hours`` since the last surfacing."""
        rows = self._rows_by_ids(
            "SELECT memory_id, count, last_at FROM surfacing WHERE workspace = ? AND memory_id IN ({ids})",
            memory_ids,
            lambda batch: [workspace or "", *batch],
        )
        out: dict[str, float] = {}
        for mid, count, last in rows:
            hours = max(0.0, (at - from_text(last)).total_seconds() / 3600)
            out[mid] = count * 0.5 ** (hours / half_life_hours)
        return out

    def record_surfacing(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> None:
        current = self.surfaced_counts(workspace, memory_ids, at, half_life_hours)
        with self.transaction():
            for mid in dict.fromkeys(memory_ids):
                self._run(
                    "INSERT INTO surfacing (workspace, memory_id, count, last_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (workspace, memory_id) DO UPDATE SET count = excluded.count, last_at = excluded.last_at",
                    (workspace or "", mid, current.get(mid, 0.0) + 1.0, to_text(at)),
                )

    # -- recall and statistics ---------------------------------------------------
    def directive_memories(self, flt: MemoryFilter, limit: int, at: datetime) -> list[Memory]:
        """Standing instructions: memories of a directive-like category or of importance >= 0.8.

        Most important first, then newest. Served by the partial index
        ``memories_directives`` (migration 0011).
        """
        where, params = _where(flt, at)
        with self._reads:
            rows = self._run(
                f"SELECT {COLUMNS} FROM memories m INDEXED BY memories_directives"
                f" WHERE {DIRECTIVES_WHERE} AND {where} ORDER BY m.importance DESC, m.id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [_memory(r) for r in rows]

    def recent_memories(self, workspace: str | None, limit: int, at: datetime) -> list[Memory]:
        """The newest memories valid at ``at`` in ``workspace`` and the global scope, newest first
        (the shared partition, no snapshots, nothing expired).

        One index-ordered read per scope, merged: ``workspace IN ('', ?)``
        with ``ORDER BY id`` would read and sort every memory of both scopes.
        """
        scopes = ("", workspace) if workspace else ("",)
        part = (
            f"SELECT * FROM (SELECT {COLUMNS} FROM memories WHERE workspace = ? AND agent_id = ''"
            f" AND coalesce(category, '') != '{SNAPSHOT}' AND (expires_at IS NULL OR expires_at > ?)"
            " AND (invalid_at IS NULL OR invalid_at > ?) ORDER BY id DESC LIMIT ?)"
        )
        sql = " UNION ALL ".join([part] * len(scopes)) + " ORDER BY id DESC LIMIT ?"
        params: list[Any] = []
        for scope in scopes:
            params += [scope, to_text(at), to_text(at), limit]
        with self._reads:
            rows = self._run(sql, (*params, limit)).fetchall()
        return [_memory(r) for r in rows]

    def backup(self, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
        """A consistent copy of the database in the new file ``target``, taken while others go on writing."""
        if self.location == ":memory:":
            raise InvalidInput("backup", "an in-memory store has no file to back up")
        with self._lock:
            backup.copy(self._conn, Path(target).expanduser(), progress)

    def size_bytes(self) -> int:
        """Bytes the database takes: its pages, plus the write-ahead log when there is one."""
        with self._reads:
            pages = self._run("PRAGMA page_count").fetchone()[0] * self._run("PRAGMA page_size").fetchone()[0]
        wal = Path(self.location + "-wal").expanduser()
        return pages + (wal.stat().st_size if self.location != ":memory:" and wal.exists() else 0)
