"""The PostgreSQL store's enrichment queue: memories waiting to be read into the knowledge graph.

A mixin of ``PostgresStore``, read beside ``store/sqlite/enrich.py``: the same methods, in the same order;
those both engines run alike are ``EnrichSql``'s, in store/queue.py.
Claims are taken under the store's write lock (every write transaction holds it), so two workers never
take the same row.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

import psycopg

from knotwork.store import locks
from knotwork.store.postgres.rows import WORKSPACE_OF_MEMORY

LOCK_KEYS = {"drain": 0x6B6E_6F74_0010, "worker": 0x6B6E_6F74_0011}  # pg_try_advisory_lock keys of locks.NAMES

# The queue in the order its memories hold in time, then of arrival (store/sqlite/enrich.py, CLAIMABLE).
CLAIMABLE = (
    "SELECT q.seq, q.memory_id, q.rules, q.graph, q.attempts FROM enrich_queue q"
    " LEFT JOIN memories m ON m.workspace = q.workspace AND m.id = q.memory_id"
    " WHERE q.attempts < %s AND (q.claimed_by IS NULL OR q.claimed_at < %s) ORDER BY m.valid_at, q.seq LIMIT %s"
)


class EnrichStore:
    _run: Any
    _run_many: Any
    _url: str
    transaction: Any
    _claimable = CLAIMABLE  # EnrichSql.enrich_claim
    _enqueue = (  # EnrichSql.enrich_enqueue: the row's workspace is its memory's
        f"INSERT INTO enrich_queue (workspace, memory_id, rules, graph, enqueued_at) VALUES ({WORKSPACE_OF_MEMORY}, %s, %s, %s, %s)"
    )

    @staticmethod
    def _enqueued(memory_id: str, use_rules: bool, graph: str | None, at: datetime) -> tuple[Any, ...]:
        return (memory_id, memory_id, use_rules, graph, at)

    def _mark_claimed(self, owner: str, at: datetime, seqs: list[int]) -> None:
        """Claimed rows (``EnrichSql.enrich_claim``): held by ``owner``, one more attempt."""
        if seqs:
            self._run(
                "UPDATE enrich_queue SET claimed_by = %s, claimed_at = %s, attempts = attempts + 1 WHERE seq = ANY(%s)",
                (owner, at, seqs),
            )

    def enrich_held(self, owner: str, seqs: Collection[int]) -> set[int]:
        """Of ``seqs``, those ``owner`` still holds (call inside the transaction that completes them)."""
        return {r[0] for r in self._run(
            "SELECT seq FROM enrich_queue WHERE claimed_by = %s AND seq = ANY(%s)", (owner, list(seqs))
        )}

    def enrich_done(self, seqs: Collection[int]) -> None:
        """Delete completed items (inside the transaction that wrote their graph)."""
        with self.transaction():
            self._run("DELETE FROM enrich_queue WHERE seq = ANY(%s)", (list(seqs),))

    def enrich_release(self, seqs: Collection[int], error: str | None = None) -> None:
        """Give items back to the queue (unclaimed), noting ``error`` when one is given."""
        with self.transaction():
            self._run(
                "UPDATE enrich_queue SET claimed_by = NULL, claimed_at = NULL, last_error = coalesce(%s, last_error)"
                " WHERE seq = ANY(%s)",
                (error, list(seqs)),
            )

    def enrich_lock(self, name: str) -> locks.Held | None:
        """The store's lock ``name`` (``locks.NAMES``) across processes, or None when another holds it: a session
        advisory lock on a connection of its own, which the server drops when the holder's process dies."""
        if name not in locks.NAMES:
            raise ValueError(f"no lock named {name!r}")
        conn = psycopg.connect(self._url, autocommit=True)
        try:
            got = conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEYS[name],)).fetchone()[0]
        except BaseException:
            conn.close()
            raise
        if not got:
            conn.close()
            return None
        return locks.Held(conn.close)  # the session's end drops its lock

    def enrich_counts(self, max_attempts: int, within: Collection[str] | None = None) -> dict[str, int]:
        """{pending, running, failed}: free items, claimed ones, and those tried ``max_attempts`` times
        (``within``: of the memories of those workspaces, '' for the global scope)."""
        where, params = ("", []) if within is None else (" WHERE workspace = ANY(%s)", [sorted(within)])
        row = self._run(
            "SELECT count(*) FILTER (WHERE claimed_by IS NULL AND attempts < %s), count(*) FILTER (WHERE claimed_by IS NOT NULL),"
            f" count(*) FILTER (WHERE claimed_by IS NULL AND attempts >= %s) FROM enrich_queue{where}",
            (max_attempts, max_attempts, *params),
        ).fetchone()
        return {"pending": row[0], "running": row[1], "failed": row[2]}
