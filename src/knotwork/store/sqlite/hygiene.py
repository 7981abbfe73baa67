"""The SQLite store's hygiene methods: snapshots, expiry, duplicate pairs, counters and health counts.

A mixin of ``SQLiteStore`` (like ``KnowledgeStore``): it uses the store's
connection helpers (``_run``, ``_reads`` for reads, ``_lock`` for the writer, ``_rows_by_ids``, ``transaction``).
"""

from __future__ import annotations

import sqlite3

from datetime import datetime
from typing import Any

from knotwork.domain.models import SNAPSHOT
from knotwork.domain.temporal import from_text, to_text


class HygieneStore:
    _run: Any
    _lock: Any
    _reads: Any
    _rows_by_ids: Any
    transaction: Any

    # -- snapshots -----------------------------------------------------------------
    def snapshot_rows(
        self, workspace: str | None = None, agent_id: str | None = None, key: str | None = None, everywhere: bool = False
    ) -> list[tuple[str, str | None, str | None, str, datetime]]:
        """(id, workspace, agent_id, key, valid_at) of snapshots with a ``key`` tag: of one (workspace,
        partition, key), or of every one when ``everywhere``; oldest first."""
        sql = (
            "SELECT m.id, m.workspace, m.agent_id, t.value, m.valid_at FROM memories m"
            " JOIN memory_tags t ON t.memory_id = m.id AND t.key = 'key'"
            f" WHERE m.category = '{SNAPSHOT}'"
        )
        params: list[Any] = []
        if not everywhere:
            sql += " AND m.workspace = ? AND m.agent_id = ? AND t.value = ?"
            params += [workspace or "", agent_id or "", key]
        with self._reads:
            rows = self._run(sql + " ORDER BY m.valid_at, m.id", params).fetchall()
        return [(r[0], r[1] or None, r[2] or None, r[3], from_text(r[4])) for r in rows]

    # -- expiry ----------------------------------------------------------------------
    def expired_memory_ids(self, at: datetime, limit: int = 1000) -> list[str]:
        with self._reads:
            rows = self._run(
                "SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?",
                (to_text(at), limit),
            ).fetchall()
        return [r[0] for r in rows]

    # -- duplicates --------------------------------------------------------------------
    def similar_pairs(self, min_score: float) -> list[tuple[str, str, float]]:
        """(memory id, neighbour id, score) of stored similar-list slots scoring at least ``min_score``."""
        with self._reads:
            return self._run(
                "SELECT memory_id, neighbour_id, score FROM memory_similar"
                " WHERE neighbour_id IS NOT NULL AND score >= ? ORDER BY score DESC",
                (min_score,),
            ).fetchall()

    # -- counters ----------------------------------------------------------------------
    def counters(self) -> dict[str, str]:
        with self._reads:
            return dict(self._run("SELECT name, value FROM hygiene_counters").fetchall())

    def bump_counter(self, name: str, by: int = 1) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO hygiene_counters (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
                (name, str(by)),
            )

    def set_counter(self, name: str, value: str) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO hygiene_counters (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # -- health -------------------------------------------------------------------------
    def count_tags(self, limit: int = 20) -> dict[str, int]:
        """Memories per tag key, most used first."""
        with self._reads:
            rows = self._run(
                "SELECT key, count(*) FROM memory_tags GROUP BY key ORDER BY 2 DESC, 1 LIMIT ?", (limit,)
            ).fetchall()
        return dict(rows)

    def date_range(self) -> tuple[datetime, datetime] | None:
        """The earliest and latest ``valid_at`` stored (None when empty)."""
        with self._reads:
            row = self._run("SELECT min(valid_at), max(valid_at) FROM memories").fetchone()
        return (from_text(row[0]), from_text(row[1])) if row[0] else None

    def count_expired(self, at: datetime) -> int:
        with self._reads:
            return self._run(
                "SELECT count(*) FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?", (to_text(at),)
            ).fetchone()[0]

    def count_superseded(self) -> int:
        """Memories some other memory supersedes."""
        with self._reads:
            return self._run("SELECT count(DISTINCT to_id) FROM links WHERE type = 'supersedes'").fetchone()[0]

    def integrity_problems(self) -> list[str]:
        """What SQLite's quick check and the full-text index's own check find wrong (empty: nothing)."""
        problems: list[str] = []
        with self._lock:
            rows = [r[0] for r in self._run("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                problems += [f"database: {r}" for r in rows[:10]]
            try:  # compares the index with the memories table it indexes
                self._run("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)")
            except sqlite3.DatabaseError as exc:
                problems.append(f"full-text index: {exc}")
        return problems

    def count_without_vectors(self) -> int:
        """Memories that have no vector (stored by a process without an embedder, or cut short)."""
        with self._reads:
            return self._run(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
            ).fetchone()[0]

    def rebuild_text_index(self) -> None:
        """Build the full-text index again from the memories table."""
        with self.transaction():
            self._run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")

    def count_orphans(self) -> dict[str, int]:
        """Rows that point at a memory that is gone (each must be 0): links, vectors, similar slots."""
        with self._reads:
            links = self._run(
                "SELECT count(*) FROM links l WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.from_id)"
                " OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.to_id)"
            ).fetchone()[0]
            vectors = self._run(
                "SELECT count(*) FROM memory_vectors v WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = v.memory_id)"
            ).fetchone()[0]
            similar = self._run(
                "SELECT count(*) FROM memory_similar s WHERE s.neighbour_id IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = s.neighbour_id)"
            ).fetchone()[0]
        return {"links": links, "vectors": vectors, "similar": similar}
