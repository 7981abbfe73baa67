"""What both stores' enrichment queues do alike (store/sqlite/enrich.py, store/postgres/enrich.py).

``first_untried`` decides which claimable rows a worker takes; ``EnrichSql``, a mixin of both stores (after
each engine's own ``EnrichStore``), holds the queue's methods whose SQL differs only in the dialect
(``store/where.py``). Each engine keeps what is its own: how an item is queued (PostgreSQL names its
workspace: ``_enqueue``), which rows are claimable (``_claimable``), how a batch of claims, completions and releases is
written, the cross-process locks and the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from knotwork.store.contract.queue import EnrichItem
from knotwork.store.where import Dialect


def first_untried(rows: list[Any], attempts: int) -> list[Any]:
    """Of claimable rows in queue order, those to take now: a row tried before alone (a memory that failed, or
    whose worker died reading it in, must not take a batch of others down with it again), else the rows up to
    the first one tried before (column ``attempts`` of each row)."""
    if rows and rows[0][attempts] > 0:
        return rows[:1]
    out = []
    for r in rows:
        if r[attempts] > 0:
            break
        out.append(r)
    return out


class EnrichSql:
    _dialect: Dialect
    _read: Any
    _run: Any
    transaction: Any
    # the engine's own
    _claimable: str  # (seq, memory id, rules, graph, attempts) of claimable rows in queue order; parameters:
    #                  max attempts, stale before, limit
    _mark_claimed: Any  # (owner, at, seqs): held by owner, one more attempt
    _enqueue: str  # the insert of one queued item, whose parameters ``_enqueued`` gives
    _enqueued: Any  # (memory id, run the rules?, graph JSON, at) -> parameters of ``_enqueue``
    _run_many: Any

    def enrich_enqueue(self, items: Sequence[tuple[str, bool, str | None]], at: datetime) -> None:
        """Queue (memory id, run the rules?, caller's graph JSON) rows; call inside the memories' transaction."""
        if not items:
            return
        with self.transaction():
            self._run_many(self._enqueue, [self._enqueued(mid, use_rules, graph, at) for mid, use_rules, graph in items])

    def enrich_claim(self, owner: str, limit: int, at: datetime, stale_before: datetime, max_attempts: int) -> list[EnrichItem]:
        """Mark up to ``limit`` items as held by ``owner``, in the order their memories hold in time (valid_at,
        then arrival): free ones, and those whose claim is older than ``stale_before``; an item tried before is
        claimed alone (:func:`first_untried`). Each claim counts an attempt; items tried ``max_attempts`` times
        stay put."""
        with self.transaction():  # under the store's write lock: no other worker claims meanwhile
            rows = first_untried(self._run(self._claimable, (max_attempts, self._dialect.time(stale_before), limit)).fetchall(), 4)
            self._mark_claimed(owner, at, [r[0] for r in rows])
        return [EnrichItem(r[0], r[1], bool(r[2]), r[3], r[4] + 1) for r in rows]

    def enrich_release_others(self, owner: str, error: str) -> int:
        """Free every claim not ``owner``'s, noting ``error`` (call holding the ``drain`` lock: whoever else holds
        a claim then died, or lost its lock, before it finished); returns how many."""
        q = self._dialect.mark
        with self.transaction():
            return self._run(
                f"UPDATE enrich_queue SET claimed_by = NULL, claimed_at = NULL, last_error = {q}"
                f" WHERE claimed_by IS NOT NULL AND claimed_by <> {q}", (error, owner),
            ).rowcount

    def enrich_owners(self) -> list[str]:
        """Every worker that holds a claim now."""
        return [r[0] for r in self._read("SELECT DISTINCT claimed_by FROM enrich_queue WHERE claimed_by IS NOT NULL")]

    def enrich_release_owner(self, owner: str) -> int:
        """Free every claim of ``owner`` (a worker known to be dead); returns how many."""
        with self.transaction():
            return self._run(
                f"UPDATE enrich_queue SET claimed_by = NULL, claimed_at = NULL WHERE claimed_by = {self._dialect.mark}", (owner,)
            ).rowcount

    def enrich_failed(self, limit: int = 20) -> list[tuple[str, int, str | None]]:
        """(memory id, attempts, last error) of items that are not being tried again, oldest first."""
        return [tuple(r) for r in self._read(
            "SELECT memory_id, attempts, last_error FROM enrich_queue WHERE claimed_by IS NULL AND last_error IS NOT NULL"
            f" ORDER BY seq LIMIT {self._dialect.mark}", (limit,),
        )]

    def enrich_items(self) -> list[EnrichItem]:
        """Every queued item, oldest first (``migrate`` carries them over)."""
        rows = self._read("SELECT seq, memory_id, rules, graph, attempts FROM enrich_queue ORDER BY seq")
        return [EnrichItem(r[0], r[1], bool(r[2]), r[3], r[4]) for r in rows]

    def enrich_retry(self) -> int:
        """Give every item that failed a fresh start (attempts back to 0); returns how many."""
        with self.transaction():
            return self._run("UPDATE enrich_queue SET attempts = 0 WHERE claimed_by IS NULL AND attempts > 0").rowcount
