"""PostgreSQL store: pgvector (HNSW, cosine) for vectors, tsvector + GIN for full text, a connection pool.

Many processes, and many threads of one, share the database. Reads borrow a
pooled connection for one statement (autocommit). Writes run in a
transaction that holds one pooled connection for the thread that opened it
and first takes the store's write lock (a transaction-level advisory lock),
so writers queue as SQLite's ``BEGIN IMMEDIATE`` makes them queue: the
change numbers that in-memory copies catch up from (vectors, links) are
handed out in commit order, and a memory edited twice at once gets two
versions, one after the other, never a lost update.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from knotwork.domain.models import SNAPSHOT, Memory, MemoryFilter, Relationship, StoredLink
from knotwork.domain.temporal import to_text
from knotwork.errors import BackendUnavailable, InvalidInput
from knotwork.store import filtered
from knotwork.store.hygiene_sql import HygieneSql
from knotwork.store.knowledge_sql import KnowledgeSql
from knotwork.store.links_sql import LINK_COLUMNS, LinkSql
from knotwork.store.memory_sql import COLUMNS, DIRECTIVES_WHERE, MemorySql, version_record
from knotwork.store.postgres import migrate
from knotwork.store.postgres.enrich import EnrichStore
from knotwork.store.postgres.hygiene import HygieneStore
from knotwork.store.postgres.knowledge import KnowledgeStore
from knotwork.store.postgres.rows import (
    WORKSPACE_OF_MEMORY,
    bm25_sql,
    brief_row,
    link_row,
    memory_params,
    memory_row,
    stored_link_row,
    where_sql,
)
from knotwork.store.postgres.termstats import TermStats
from knotwork.store.postgres.threads import ThreadStore
from knotwork.store.postgres.vectors import VectorStore
from knotwork.store.protocol import Tracer
from knotwork.store.queue import EnrichSql
from knotwork.store.shared import SharedStore
from knotwork.store.where import POSTGRES

FTS_OVERFETCH = 2  # rows ranked per row asked for, before the filter (fts_candidates)
WRITE_LOCK = 0x6B6E_6F74_0002  # pg_advisory_xact_lock key of the store's write lock
_ROWS_PER_INSERT = 1000  # memories per INSERT statement: 17,000 parameters, under PostgreSQL's 65,535
# Trigger: a bulk load (add_many, import, migrate) commits thousands of rows. Why: until the tables are analyzed
# the planner has no statistics (reltuples -1) and autovacuum may not get to them for a minute; plans made
# blind were the tail of searches right after a load (bench/RESULTS.md, "PostgreSQL right after a bulk load").
# Outcome: once this process has committed ANALYZE_MIN_ROWS rows, and a fifth of what the tables held at
# their last analysis, it analyzes them itself, right after the commit that crossed the line.
ANALYZE_MIN_ROWS = 1000
ANALYZE_GROWTH = 0.2
_ANALYZED_TABLES = "memories, memory_vectors, memory_tags, memory_versions"


class _Result:
    """The rows of one statement, read before its connection went back to the pool."""

    __slots__ = ("rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def fetchall(self) -> list[Any]:
        return self.rows

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)


def redact(url: str) -> str:
    """``url`` without its password (for messages and ``location``)."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


class PostgresStore(
    VectorStore, KnowledgeStore, KnowledgeSql, MemorySql, LinkSql, HygieneStore, HygieneSql, EnrichStore, EnrichSql, ThreadStore, SharedStore
):
    """The Store protocol on one PostgreSQL database (vectors from ``VectorStore``, the knowledge graph from
    ``KnowledgeStore``, the hygiene reads and counters from ``HygieneStore``, those both engines share from
    ``SharedStore``)."""

    _dialect = POSTGRES  # KnowledgeSql, MemorySql, HygieneSql, SharedStore: the queries written once
    _memory_row = staticmethod(memory_row)  # MemorySql: this engine's row decoders and encoder
    _brief_row = staticmethod(brief_row)
    _memory_params = staticmethod(memory_params)
    _vector_memory = "m.workspace = v.workspace AND m.id = v.memory_id"  # MemorySql.count_within: a vector's memory
    _link_row = staticmethod(link_row)  # LinkSql: this engine's row decoder
    _reads = contextlib.nullcontext()  # MemorySql: every read takes a pooled connection of its own; nothing to hold

    def __init__(
        self, url: str, *, busy_timeout_ms: int = 30_000, pool_size: int = 8, tracer: Tracer | None = None
    ) -> None:
        self.location = redact(url)
        self._url = self.target = url  # enrich_lock: a connection of its own per lock; a worker process opens it
        self.tracer = tracer
        self._busy_timeout_ms = int(busy_timeout_ms)
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("SET client_min_messages = warning")
                self._version = migrate.apply(conn)
                newest = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        except (psycopg.Error, migrate.SchemaMismatch) as exc:
            raise BackendUnavailable(f"{self.location}: cannot open as a knotwork database ({exc})") from None
        if newest > self._version:
            raise BackendUnavailable(
                f"{self.location}: schema version {newest} was written by a newer knotwork (this one knows {self._version})"
            )
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max(2, pool_size), kwargs={"autocommit": True}, configure=self._configure, open=True
        )
        self._local = threading.local()
        # Trigger: several threads of this process writing at once. Why: each took a pooled connection and
        # then waited on the advisory lock with it, so a few queued writers held the whole pool and a search
        # waited for a connection behind them. Outcome: writers of this process queue here first, holding no
        # connection; at most one pooled connection is a writer's, the rest serve reads.
        self._writers = threading.Lock()
        self.concurrent_reads = True  # a read takes a pooled connection of its own and sees what is committed
        self._own_writes = 0  # write transactions this object committed (data_version leaves them out)
        self._dims: set[int] = set()  # vector dimensions known to have their HNSW index
        self._term_stats = TermStats(self._run)
        self._stats_lock = threading.Lock()
        self._unanalyzed = 0  # rows this process committed since the tables were last analyzed
        self._analyzed_rows = max(0, int(self._run("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()[0]))

    def _configure(self, conn: psycopg.Connection) -> None:
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute("SET client_min_messages = warning")  # plainto_tsquery's notice about stop words
        conn.execute(f"SET lock_timeout = {self._busy_timeout_ms}")
        register_vector(conn)

    # -- plumbing ---------------------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """This thread's transaction's connection, or a pooled one for one statement."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self._pool.connection() as conn:
            yield conn

    def _run(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        if self.tracer:
            self.tracer(sql, params)
        with self._connection() as conn:
            cur = conn.execute(sql, params)  # type: ignore[arg-type]
            return _Result(cur.fetchall() if cur.description else [], cur.rowcount)

    def _run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if len(rows) == 1:
            self._run(sql, rows[0])  # one round trip (executemany opens a pipeline: two)
            return
        if self.tracer:
            self.tracer(sql, rows)
        if not rows:
            return
        with self._connection() as conn, conn.cursor() as cur:
            cur.executemany(sql, rows)

    def close(self) -> None:
        self._pool.close()

    def settle(self) -> None:
        """Nothing to do: the server owns its files."""

    def schema_version(self) -> int:
        return self._version

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:
            yield  # nested: the outer transaction commits or rolls back
            return
        with self._writers, self._pool.connection() as conn:
            self._local.conn = conn
            try:
                if self.tracer:
                    self.tracer("BEGIN", ())
                with conn.transaction():
                    self._run("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    self._run("UPDATE store_clock SET n = n + 1")
                    self._own_writes += 1
                    try:
                        yield
                    except BaseException:
                        self._own_writes -= 1
                        if self.tracer:
                            self.tracer("ROLLBACK", ())
                        raise
                if self.tracer:
                    self.tracer("COMMIT", ())
            finally:
                self._local.conn = None
                written, self._local.written = getattr(self._local, "written", 0), 0
        if written:  # committed (a rollback raised above)
            self._count_written(written)

    def _wrote(self, rows: int) -> None:
        """Note ``rows`` rows written by this thread's open transaction (for :meth:`_count_written`)."""
        self._local.written = getattr(self._local, "written", 0) + rows

    def _count_written(self, rows: int) -> None:
        """Analyze the memory tables once enough rows were committed since they last were (see ANALYZE_MIN_ROWS)."""
        with self._stats_lock:
            self._unanalyzed += rows
            if self._unanalyzed < max(ANALYZE_MIN_ROWS, ANALYZE_GROWTH * self._analyzed_rows):
                return
            self._unanalyzed = 0
            try:
                self._run(f"ANALYZE {_ANALYZED_TABLES}")
                self._analyzed_rows = max(0, int(self._run("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()[0]))
            except psycopg.Error:  # e.g. a role that may write but not analyze: autovacuum still will, later
                pass

    def in_transaction(self) -> bool:
        """True while this thread has a transaction open (its own writes not yet committed)."""
        return getattr(self._local, "conn", None) is not None

    def data_version(self) -> int:
        """Changes whenever another connection commits (this store's own commits leave it)."""
        return self._run("SELECT n FROM store_clock").fetchone()[0] - self._own_writes

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Memory | None:
        row = self._run(sql, params).fetchone()
        return memory_row(row) if row else None

    def _rows_by_ids(self, sql: str, ids: Sequence[Any], *params: Any) -> list[Any]:
        """Every row of ``sql``, whose first parameter is the list of distinct ``ids`` (``= ANY(%s)``)."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        return self._run(sql, (unique, *params)).fetchall()

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one read."""
        return self._run(sql, params).fetchall()

    # -- memories ---------------------------------------------------------
    def _insert(self, memories: Sequence[Memory]) -> None:
        """Insert new memories and their tags: one statement for the memories, one for the tags."""
        row = "(" + ", ".join(["%s"] * 17) + ")"
        for start in range(0, len(memories), _ROWS_PER_INSERT):
            batch = memories[start : start + _ROWS_PER_INSERT]
            self._run(
                f"INSERT INTO memories ({COLUMNS}) VALUES {', '.join([row] * len(batch))}",
                [v for m in batch for v in memory_params(m)],
            )
        tags = [(m.workspace or "", m.id, key, value) for m in memories for key, value in m.tags.items()]
        self._run_many("INSERT INTO memory_tags (workspace, memory_id, key, value) VALUES (%s, %s, %s, %s)", tags)

    def _keep_versions(self, workspace: str | None, memory_id: str, past: Sequence[Memory]) -> None:
        """Past versions of a memory into memory_versions, in ``workspace`` (every key names its workspace)."""
        self._run_many(
            "INSERT INTO memory_versions (workspace, memory_id, version, record) VALUES (%s, %s, %s, %s)",
            [(workspace or "", memory_id, old.version, version_record(old)) for old in past],
        )

    def _write_tags(self, m: Memory) -> None:
        self._run("DELETE FROM memory_tags WHERE memory_id = %s", (m.id,))
        self._run_many(
            "INSERT INTO memory_tags (workspace, memory_id, key, value) VALUES (%s, %s, %s, %s)",
            [(m.workspace or "", m.id, key, value) for key, value in m.tags.items()],
        )

    def insert_memories(self, memories: Sequence[Memory]) -> list[Memory]:
        # Round trips, not rows, are what a write costs here: the stored duplicates are read in one
        # statement and the new memories written in one, in the order given (a memory repeated
        # within the batch is a duplicate of its first occurrence, as when inserted one by one).
        out: list[Memory] = []
        with self.transaction():
            keys = [(m.workspace or "", m.agent_id or "", m.content_hash) for m in memories]
            stored = {
                (r[2], r[3], r[14]): memory_row(r)
                for r in self._run(
                    f"SELECT {COLUMNS} FROM memories WHERE (workspace, agent_id, content_hash) IN"
                    " (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))",
                    [list(column) for column in zip(*keys)] if keys else [[], [], []],
                )
            }
            new: list[Memory] = []
            for key, m in zip(keys, memories):
                if key in stored:
                    out.append(stored[key].with_duplicate())
                    continue
                stored[key] = m
                new.append(m)
                out.append(m)
            if new:
                self._insert(new)
                self._wrote(len(new))
        return out

    def resolve_memory_ref(self, ref: str, limit: int = 11, workspaces: Collection[str] | None = None) -> list[str]:
        within, params = self._dialect.within(workspaces)
        if len(ref) == 26:
            row = self._run(f"SELECT id FROM memories WHERE id = %s{within}", (ref, *params)).fetchone()
            return [row[0]] if row else []
        by_prefix = self._run(
            f"SELECT id FROM memories WHERE id >= %s AND id < %s{within} ORDER BY id LIMIT %s", (ref, ref + "~", *params, limit)
        ).fetchall()
        rev = ref[::-1]
        by_suffix = self._run(
            f'SELECT id FROM memories WHERE reverse(id) COLLATE "C" >= %s AND reverse(id) COLLATE "C" < %s{within}'
            ' ORDER BY reverse(id) COLLATE "C" LIMIT %s',
            (rev, rev + "~", *params, limit),
        ).fetchall()
        return list(dict.fromkeys(r[0] for r in by_prefix + by_suffix))

    def count_memory_refs(self, ref: str, workspaces: Collection[str] | None = None) -> int:
        rev = ref[::-1]
        within, params = self._dialect.within(workspaces)
        return self._run(
            'SELECT count(*) FROM memories WHERE ((id >= %s AND id < %s)'
            f' OR (reverse(id) COLLATE "C" >= %s AND reverse(id) COLLATE "C" < %s)){within}',
            (ref, ref + "~", rev, rev + "~", *params),
        ).fetchone()[0]

    def delete_memory(self, memory_id: str) -> bool:
        with self.transaction():
            self._forget_memory(memory_id)
            return self._run("DELETE FROM memories WHERE id = %s", (memory_id,)).rowcount > 0

    def _forget_memory(self, memory_id: str) -> None:
        """Rows of any workspace that name the memory through a cross-scope reference, deleted by the store's own
        hand (as ``_forget_entities`` and its kin do for the graph): a deployment distributed by workspace cannot
        keep those foreign keys. The memory's own workspace's rows go by their keys' cascade."""
        self._run("DELETE FROM links WHERE from_id = %s OR to_id = %s", (memory_id, memory_id))
        for table, column in (("memory_similar", "neighbour_id"), ("surfacing", "memory_id"), ("fact_sources", "memory_id")):
            self._run(f"DELETE FROM {table} WHERE {column} = %s", (memory_id,))

    def list_memories(self, flt: MemoryFilter, limit: int, before_id: str | None = None, at: datetime | None = None) -> list[Memory]:
        where, params = where_sql(flt, at)
        if flt.tags and not flt.thread:  # the tag's memories drive the read, as in filtered_ids (memory_tags_kv)
            clause, drive = filtered.drive(flt, "%s")
            where += clause
            params = [*params, *drive]
        if before_id:
            where += " AND m.id < %s"
            params.append(before_id)
        rows = self._run(f"SELECT {COLUMNS} FROM memories m WHERE {where} ORDER BY m.id DESC LIMIT %s", (*params, limit))
        return [memory_row(r) for r in rows]

    # -- retrieval --------------------------------------------------------
    def fts_candidates(self, terms: Sequence[str], flt: MemoryFilter, limit: int, at: datetime) -> list[tuple[str, float]]:
        """The ``limit`` best BM25 matches for ``terms`` among the memories ``flt`` lets through.

        BM25 as FTS5 computes it (k1 1.2, b 0.75, the same idf; see
        termstats.py), over the stemmed words of each row's tsvector. The GIN index finds
        the rows, and only the best ``FTS_OVERFETCH`` × ``limit`` are
        filtered; when the filter leaves too few and more rows matched, the
        query runs again with the filter inside, so the answer is the same
        either way (as in SQLite's).
        """
        weighted = self._term_stats.informative(terms)
        if not weighted:
            return []
        words = [t for t, _ in weighted]
        idfs = [idf for _, idf in weighted]
        where, params = where_sql(flt, at)
        fetch = FTS_OVERFETCH * limit
        ranked = self._run(bm25_sql(len(words), "TRUE"), (words, idfs, *words, self._term_stats.mean_length, fetch)).fetchall()
        allowed = {r[0] for r in self._rows_by_ids(f"SELECT m.id FROM memories m WHERE m.id = ANY(%s) AND {where}", [r[0] for r in ranked], *params)}
        hits = [(mid, score) for mid, score in ranked if mid in allowed][:limit]
        if len(hits) < limit and len(ranked) == fetch:
            hits = self._run(
                bm25_sql(len(words), where), (words, idfs, *words, *params, self._term_stats.mean_length, limit)
            ).fetchall()
        return [(h[0], float(h[1])) for h in hits]

    # -- links --------------------------------------------------------------
    def _insert_link(self, rel: Relationship) -> None:
        """A new link's row, with both ends' workspaces (LinkSql.insert_link has checked that it is new)."""
        self._run(
            f"INSERT INTO links ({LINK_COLUMNS}, from_workspace, to_workspace)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, {WORKSPACE_OF_MEMORY}, {WORKSPACE_OF_MEMORY})",
            (
                rel.id,
                rel.from_id,
                rel.to_id,
                rel.type,
                rel.workspace or "",
                rel.created_at,
                json.dumps(rel.metadata, ensure_ascii=False, sort_keys=True),
                rel.from_id,
                rel.to_id,
            ),
        )

    def stored_links(self, link_ids: Sequence[str] | None = None) -> list[StoredLink]:
        """The links of ``link_ids`` (those that exist), or every link when None, as stored (repeated values shared)."""
        if link_ids is not None:
            rows = self._rows_by_ids(f"SELECT {LINK_COLUMNS} FROM links WHERE id = ANY(%s)", link_ids)
        else:
            rows = self._run(f"SELECT {LINK_COLUMNS} FROM links").fetchall()
        one = {}.setdefault
        new = tuple.__new__
        return [
            new(StoredLink, (i, one(f, f), one(t, t), one(k, k), one(w, w), to_text(c), one(m, m))) for i, f, t, k, w, c, m in rows
        ]

    def stored_links_touching(
        self, memory_ids: Sequence[str], direction: str = "both", types: Sequence[str] | None = None
    ) -> list[StoredLink]:
        """Links leaving (outgoing), entering (incoming) or touching (both) any of ``memory_ids``, as stored."""
        type_sql = " AND type = ANY(%s)" if types else ""
        ends = [end for end, way in (("from_id", "outgoing"), ("to_id", "incoming")) if direction in (way, "both")]
        sql = " UNION ".join(f"SELECT {LINK_COLUMNS} FROM links WHERE {end} = ANY(%s){type_sql}" for end in ends)
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        params: list[Any] = []
        for _ in ends:
            params += [ids, list(types)] if types else [ids]
        return [stored_link_row(r) for r in self._run(sql + " ORDER BY id", params)]

    # -- vectors ------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._run("SELECT value FROM store_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO store_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- similar lists --------------------------------------------------------
    def similar_floors(self, slots: int) -> dict[str, float]:
        return dict(self._run("SELECT memory_id, score FROM memory_similar WHERE rank = %s", (slots,)).fetchall())

    def put_similar(self, slots: Sequence[tuple[str, int, str | None, float]]) -> None:
        with self.transaction():
            self._run_many(
                "INSERT INTO memory_similar (workspace, memory_id, rank, neighbour_workspace, neighbour_id, score)"
                f" VALUES ({WORKSPACE_OF_MEMORY}, %s, %s, {WORKSPACE_OF_MEMORY}, %s, %s) ON CONFLICT (workspace, memory_id, rank)"
                " DO UPDATE SET neighbour_workspace = excluded.neighbour_workspace, neighbour_id = excluded.neighbour_id,"
                " score = excluded.score",
                [(mid, mid, rank, neighbour, neighbour, score) for mid, rank, neighbour, score in slots],
            )

    def memories_without_similar(self, slots: int, limit: int = 1000) -> list[str]:
        rows = self._run(
            "SELECT DISTINCT v.memory_id FROM memory_vectors v"
            " WHERE (SELECT count(*) FROM memory_similar s WHERE s.memory_id = v.memory_id) < %s LIMIT %s",
            (slots, limit),
        )
        return [r[0] for r in rows]

    def content_starts(self, memory_ids: Sequence[str], chars: int) -> dict[str, str]:
        rows = self._run("SELECT id, left(content, %s) FROM memories WHERE id = ANY(%s)", (chars, list(dict.fromkeys(memory_ids))))
        return dict(rows.fetchall())

    def filter_memory_ids(self, memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> set[str]:
        rows = self._filtered_rows_by_ids(lambda where: f"SELECT m.id FROM memories m WHERE m.id = ANY(%s) AND {where}", memory_ids, flt, at)
        return {r[0] for r in rows}

    def filtered_ids(self, flt: MemoryFilter, at: datetime, most: int) -> list[str] | None:
        """The ids of the memories ``flt`` lets through at ``at`` (store/filtered.py), or None when more than ``most``."""
        where, params = where_sql(flt, at)
        sql, drive = filtered.listing(flt, where, "%s")
        rows = self._run(sql, (*params, *drive, most + 1)).fetchall()
        return None if len(rows) > most else [r[0] for r in rows]

    def _filtered_rows_by_ids(self, sql: Callable[[str], str], memory_ids: Sequence[str], flt: MemoryFilter, at: datetime) -> list[Any]:
        """Every row of ``sql(where)``, ``where`` being ``flt``'s conditions on ``m`` (bound after the ids)."""
        where, params = where_sql(flt, at)
        return self._rows_by_ids(sql(where), memory_ids, *params)

    # -- signals for rerankers ------------------------------------------------
    def surfaced_counts(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> dict[str, float]:
        rows = self._rows_by_ids(
            "SELECT memory_id, count, last_at FROM surfacing WHERE memory_id = ANY(%s) AND workspace = %s",
            memory_ids,
            workspace or "",
        )
        out: dict[str, float] = {}
        for mid, count, last in rows:
            hours = max(0.0, (at - last).total_seconds() / 3600)
            out[mid] = count * 0.5 ** (hours / half_life_hours)
        return out

    def record_surfacing(self, workspace: str | None, memory_ids: Sequence[str], at: datetime, half_life_hours: float = 24.0) -> None:
        with self.transaction():
            current = self.surfaced_counts(workspace, memory_ids, at, half_life_hours)
            self._run_many(
                "INSERT INTO surfacing (workspace, memory_workspace, memory_id, count, last_at)"
                f" VALUES (%s, {WORKSPACE_OF_MEMORY}, %s, %s, %s)"
                " ON CONFLICT (workspace, memory_id) DO UPDATE SET count = excluded.count, last_at = excluded.last_at",
                [(workspace or "", mid, mid, current.get(mid, 0.0) + 1.0, at) for mid in dict.fromkeys(memory_ids)],
            )

    # -- recall and statistics ---------------------------------------------------
    def directive_memories(self, flt: MemoryFilter, limit: int, at: datetime) -> list[Memory]:
        """Standing instructions: memories of a directive-like category or of importance >= 0.8 (partial index)."""
        where, params = where_sql(flt, at)
        rows = self._run(
            f"SELECT {COLUMNS} FROM memories m WHERE {DIRECTIVES_WHERE} AND {where} ORDER BY m.importance DESC, m.id DESC LIMIT %s",
            (*params, limit),
        )
        return [memory_row(r) for r in rows]

    def recent_memories(self, workspace: str | None, limit: int, at: datetime) -> list[Memory]:
        """The newest memories valid at ``at`` in ``workspace`` and the global scope, newest first
        (the shared partition, no snapshots, nothing expired)."""
        scopes = ("", workspace) if workspace else ("",)
        part = (
            f"(SELECT {COLUMNS} FROM memories WHERE workspace = %s AND agent_id = ''"
            f" AND coalesce(category, '') != '{SNAPSHOT}' AND (expires_at IS NULL OR expires_at > %s)"
            " AND (invalid_at IS NULL OR invalid_at > %s) ORDER BY id DESC LIMIT %s)"
        )
        sql = "SELECT * FROM (" + " UNION ALL ".join([part] * len(scopes)) + ") AS newest ORDER BY id DESC LIMIT %s"
        params: list[Any] = []
        for scope in scopes:
            params += [scope, at, at, limit]
        return [memory_row(r) for r in self._run(sql, (*params, limit))]

    def backup(self, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
        """No file copy of a server's database: its own tools take consistent online backups."""
        raise InvalidInput(
            "backup", f"{self.location} is a PostgreSQL database: back it up with pg_dump (or the server's own backups)"
        )

    def size_bytes(self) -> int:
        return self._run("SELECT pg_database_size(current_database())").fetchone()[0]
