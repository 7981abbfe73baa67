"""The hygiene reads and counters both stores run alike, written once in the store's dialect.

A mixin of ``SQLiteStore`` and ``PostgresStore`` (after each engine's own ``HygieneStore``, which keeps what is
truly its own: how a counter's text adds up (``_counter_sum``), the integrity check, rebuilding the full-text index). Like
``knowledge_sql.py``, it reads through the store's ``_read`` and writes with ``_run`` inside ``transaction``;
``_dialect`` (``store/where.py``) says what differs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from knotwork.domain.models import SNAPSHOT
from knotwork.store.where import Dialect


class HygieneSql:
    _dialect: Dialect
    _read: Any
    _run: Any
    transaction: Any
    _counter_sum: str  # the engine's own: a counter's stored text plus ``excluded.value``

    # -- snapshots -----------------------------------------------------------------
    def snapshot_rows(
        self, workspace: str | None = None, agent_id: str | None = None, key: str | None = None, everywhere: bool = False
    ) -> list[tuple[str, str | None, str | None, str, datetime]]:
        """(id, workspace, agent_id, key, valid_at) of snapshots with a ``key`` tag: of one (workspace,
        partition, key), or of every one when ``everywhere``; oldest first."""
        q = self._dialect.mark
        sql = (
            "SELECT m.id, m.workspace, m.agent_id, t.value, m.valid_at FROM memories m"
            " JOIN memory_tags t ON t.memory_id = m.id AND t.key = 'key'"
            f" WHERE m.category = '{SNAPSHOT}'"
        )
        params: list[Any] = []
        if not everywhere:
            sql += f" AND m.workspace = {q} AND m.agent_id = {q} AND t.value = {q}"
            params += [workspace or "", agent_id or "", key]
        rows = self._read(sql + " ORDER BY m.valid_at, m.id", params)
        return [(r[0], r[1] or None, r[2] or None, r[3], self._dialect.read_time(r[4])) for r in rows]

    # -- expiry ----------------------------------------------------------------------
    def expired_memory_ids(self, at: datetime, limit: int = 1000) -> list[str]:
        q = self._dialect.mark
        rows = self._read(
            f"SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= {q} ORDER BY expires_at LIMIT {q}",
            (self._dialect.time(at), limit),
        )
        return [r[0] for r in rows]

    # -- duplicates --------------------------------------------------------------------
    def similar_pairs(self, min_score: float) -> list[tuple[str, str, float]]:
        """(memory id, neighbour id, score) of stored similar-list slots scoring at least ``min_score``."""
        rows = self._read(
            "SELECT memory_id, neighbour_id, score FROM memory_similar"
            f" WHERE neighbour_id IS NOT NULL AND score >= {self._dialect.mark} ORDER BY score DESC",
            (min_score,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    # -- counters ----------------------------------------------------------------------
    def counters(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._read("SELECT name, value FROM hygiene_counters")}

    def bump_counter(self, name: str, by: int = 1) -> None:
        q = self._dialect.mark
        with self.transaction():
            self._run(
                f"INSERT INTO hygiene_counters (name, value) VALUES ({q}, {q})"
                f" ON CONFLICT (name) DO UPDATE SET value = {self._counter_sum}",
                (name, str(by)),
            )

    def set_counter(self, name: str, value: str) -> None:
        q = self._dialect.mark
        with self.transaction():
            self._run(
                f"INSERT INTO hygiene_counters (name, value) VALUES ({q}, {q})"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # -- health -------------------------------------------------------------------------
    def count_tags(self, limit: int = 20) -> dict[str, int]:
        """Memories per tag key, most used first (then by key, byte by byte)."""
        rows = self._read(
            f"SELECT key, count(*) FROM memory_tags GROUP BY key ORDER BY 2 DESC, key{self._dialect.bytewise}"
            f" LIMIT {self._dialect.mark}",
            (limit,),
        )
        return {r[0]: r[1] for r in rows}

    def date_range(self) -> tuple[datetime, datetime] | None:
        """The earliest and latest ``valid_at`` stored (None when empty)."""
        row = self._read("SELECT min(valid_at), max(valid_at) FROM memories")[0]
        return (self._dialect.read_time(row[0]), self._dialect.read_time(row[1])) if row[0] else None

    def count_expired(self, at: datetime) -> int:
        q = self._dialect.mark
        return self._read(f"SELECT count(*) FROM memories WHERE expires_at IS NOT NULL AND expires_at <= {q}", (self._dialect.time(at),))[0][0]

    def count_superseded(self) -> int:
        """Memories some other memory supersedes."""
        return self._read("SELECT count(DISTINCT to_id) FROM links WHERE type = 'supersedes'")[0][0]

    def count_without_vectors(self) -> int:
        """Memories that have no vector (stored by a process without an embedder, or cut short)."""
        return self._read(
            "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
        )[0][0]

    def count_orphans(self) -> dict[str, int]:
        """Rows that point at a memory that is gone (each must be 0): links, vectors, similar slots."""
        links = self._read(
            "SELECT count(*) FROM links l WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.from_id)"
            " OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.to_id)"
        )[0][0]
        vectors = self._read(
            "SELECT count(*) FROM memory_vectors v WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = v.memory_id)"
        )[0][0]
        similar = self._read(
            "SELECT count(*) FROM memory_similar s WHERE s.neighbour_id IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = s.neighbour_id)"
        )[0][0]
        return {"links": links, "vectors": vectors, "similar": similar}
