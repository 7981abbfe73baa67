"""The PostgreSQL store's enrichment queue: memories waiting to be read into the knowledge graph.

A mixin of ``PostgresStore``, read beside ``store/sqlite/enrich.py``: the same methods, in the same order.
Claims are taken under the store's write lock (every write transaction holds it), so two workers never
take the same row.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from knotwork.store.postgres.rows import WORKSPACE_OF_MEMORY
from knotwork.store.protocol import EnrichItem


class EnrichStore:
    _run: Any
    _run_many: Any
    transaction: Any

    def enrich_enqueue(self, items: Sequence[tuple[str, bool, str | None]], at: datetime) -> None:
        """Queue (memory id, run the rules?, caller's graph JSON) rows; call inside the memories' transaction."""
        if not items:
            return
        with self.transaction():
            self._run_many(
                f"INSERT INTO enrich_queue (workspace, memory_id, rules, graph, enqueued_at) VALUES ({WORKSPACE_OF_MEMORY}, %s, %s, %s, %s)",
                [(mid, mid, use_rules, graph, at) for mid, use_rules, graph in items],
            )

    def enrich_claim(self, owner: str, limit: int, at: datetime, stale_before: datetime, max_attempts: int) -> list[EnrichItem]:
        """Mark up to ``limit`` items as held by ``owner`` (oldest first): free ones, and those whose claim is
        older than ``stale_before``; each claim counts an attempt. Items tried ``max_attempts`` times stay put."""
        with self.transaction():
            rows = self._run(
                "UPDATE enrich_queue SET claimed_by = %s, claimed_at = %s, attempts = attempts + 1 WHERE seq IN ("
                " SELECT seq FROM enrich_queue WHERE attempts < %s AND (claimed_by IS NULL OR claimed_at < %s)"
                " ORDER BY seq LIMIT %s) RETURNING seq, memory_id, rules, graph, attempts",
                (owner, at, max_attempts, stale_before, limit),
            ).rows
        return sorted((EnrichItem(r[0], r[1], bool(r[2]), r[3], r[4]) for r in rows), key=lambda item: item.seq)

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

    def enrich_owners(self) -> list[str]:
        """Every worker that holds a claim now."""
        return [r[0] for r in self._run("SELECT DISTINCT claimed_by FROM enrich_queue WHERE claimed_by IS NOT NULL")]

    def enrich_release_owner(self, owner: str) -> int:
        """Free every claim of ``owner`` (a worker known to be dead); returns how many."""
        with self.transaction():
            return self._run(
                "UPDATE enrich_queue SET claimed_by = NULL, claimed_at = NULL WHERE claimed_by = %s", (owner,)
            ).rowcount

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

    def enrich_failed(self, limit: int = 20) -> list[tuple[str, int, str | None]]:
        """(memory id, attempts, last error) of items that are not being tried again, oldest first."""
        return [tuple(r) for r in self._run(
            "SELECT memory_id, attempts, last_error FROM enrich_queue WHERE claimed_by IS NULL AND last_error IS NOT NULL"
            " ORDER BY seq LIMIT %s", (limit,),
        )]

    def enrich_items(self) -> list[EnrichItem]:
        """Every queued item, oldest first (``migrate`` carries them over)."""
        rows = self._run("SELECT seq, memory_id, rules, graph, attempts FROM enrich_queue ORDER BY seq")
        return [EnrichItem(r[0], r[1], bool(r[2]), r[3], r[4]) for r in rows]

    def enrich_retry(self) -> int:
        """Give every item that failed a fresh start (attempts back to 0); returns how many."""
        with self.transaction():
            return self._run("UPDATE enrich_queue SET attempts = 0 WHERE claimed_by IS NULL AND attempts > 0").rowcount
