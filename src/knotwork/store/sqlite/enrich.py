"""The SQLite store's enrichment queue: memories waiting to be read into the knowledge graph.

A mixin of ``SQLiteStore`` (like ``KnowledgeStore``): it uses the store's connection helpers
(``_run``, ``_lock``, ``transaction``). Claims make the queue safe for many processes on one file:
a worker takes rows under the write lock, and deletes only rows it still holds. The methods both
engines run alike (the claim, releases, reads) are ``EnrichSql``'s, in store/queue.py.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import Any

from knotwork.domain.temporal import to_text
from knotwork.store import locks

# The queue in the order its memories hold in time, then of arrival: a value that changes A -> B -> A must be read
# in that order, whichever worker died on the way (a memory deleted meanwhile has left the queue with it).
CLAIMABLE = (
    "SELECT q.seq, q.memory_id, q.rules, q.graph, q.attempts FROM enrich_queue q LEFT JOIN memories m ON m.id = q.memory_id"
    " WHERE q.attempts < ? AND (q.claimed_by IS NULL OR q.claimed_at < ?) ORDER BY m.valid_at, q.seq LIMIT ?"
)


class EnrichStore:
    _run: Any
    _run_many: Any
    _lock: Any
    _reads: Any
    location: str
    transaction: Any
    _claimable = CLAIMABLE  # EnrichSql.enrich_claim
    _enqueue = "INSERT INTO enrich_queue (memory_id, rules, graph, enqueued_at) VALUES (?, ?, ?, ?)"  # EnrichSql

    @staticmethod
    def _enqueued(memory_id: str, use_rules: bool, graph: str | None, at: datetime) -> tuple[Any, ...]:
        return (memory_id, int(use_rules), graph, to_text(at))

    def _mark_claimed(self, owner: str, at: datetime, seqs: list[int]) -> None:
        """Claimed rows (``EnrichSql.enrich_claim``): held by ``owner``, one more attempt."""
        self._run_many(
            "UPDATE enrich_queue SET claimed_by = ?, claimed_at = ?, attempts = attempts + 1 WHERE seq = ?",
            [(owner, to_text(at), s) for s in seqs],
        )

    def enrich_held(self, owner: str, seqs: Collection[int]) -> set[int]:
        """Of ``seqs``, those ``owner`` still holds (call inside the transaction that completes them)."""
        wanted = list(seqs)
        held: set[int] = set()
        with self._lock:
            for i in range(0, len(wanted), 500):
                part = wanted[i : i + 500]
                held |= {r[0] for r in self._run(
                    f"SELECT seq FROM enrich_queue WHERE claimed_by = ? AND seq IN ({', '.join('?' * len(part))})",
                    (owner, *part),
                )}
        return held

    def enrich_done(self, seqs: Collection[int]) -> None:
        """Delete completed items (inside the transaction that wrote their graph)."""
        with self.transaction():
            self._run_many("DELETE FROM enrich_queue WHERE seq = ?", [(s,) for s in seqs])

    def enrich_release(self, seqs: Collection[int], error: str | None = None) -> None:
        """Give items back to the queue (unclaimed), noting ``error`` when one is given."""
        with self.transaction():
            self._run_many(
                "UPDATE enrich_queue SET claimed_by = NULL, claimed_at = NULL, last_error = coalesce(?, last_error)"
                " WHERE seq = ?",
                [(error, s) for s in seqs],
            )

    def enrich_lock(self, name: str) -> locks.Held | None:
        """The store's lock ``name`` (``locks.NAMES``) across processes, or None when another holds it."""
        if name not in locks.NAMES:
            raise ValueError(f"no lock named {name!r}")
        if self.location == ":memory:":
            own = self.__dict__.setdefault("_enrich_locks", {})
            return locks.take_thread_lock(own.setdefault(name, threading.Lock()))
        return locks.take_file(f"{Path(self.location).expanduser()}-{name}.lock")

    def enrich_counts(self, max_attempts: int, within: Collection[str] | None = None) -> dict[str, int]:
        """{pending, running, failed}: free items, claimed ones, and those tried ``max_attempts`` times
        (``within``: of the memories of those workspaces, '' for the global scope)."""
        where, params = "", []
        if within is not None:
            names = sorted(within)
            where = f" WHERE memory_id IN (SELECT id FROM memories WHERE workspace IN ({', '.join('?' * len(names)) or 'NULL'}))"
            params = names
        with self._reads:
            row = self._run(
                "SELECT coalesce(sum(claimed_by IS NULL AND attempts < ?), 0), coalesce(sum(claimed_by IS NOT NULL), 0),"
                f" coalesce(sum(claimed_by IS NULL AND attempts >= ?), 0) FROM enrich_queue{where}",
                (max_attempts, max_attempts, *params),
            ).fetchone()
        return {"pending": row[0], "running": row[1], "failed": row[2]}
