"""The SQLite store's own hygiene methods: how a counter's text adds up, the integrity check, the full-text rebuild.

A mixin of ``SQLiteStore`` (like ``KnowledgeStore``): it uses the store's connection helpers (``_run``,
``_lock`` for the writer, ``transaction``). The reads and counters both engines share (snapshots, expiry,
duplicate pairs, health counts) are in store/hygiene_sql.py.
"""

from __future__ import annotations

import sqlite3
from typing import Any


class HygieneStore:
    _run: Any
    _lock: Any
    transaction: Any
    _counter_sum = "CAST(value AS INTEGER) + excluded.value"  # HygieneSql.bump_counter: the stored text plus the bound one

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

    def rebuild_text_index(self) -> None:
        """Build the full-text index again from the memories table."""
        with self.transaction():
            self._run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
