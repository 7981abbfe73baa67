"""The PostgreSQL store's own hygiene methods: how a counter's text adds up, the integrity check, the index rebuild.

A mixin of ``PostgresStore`` (like ``KnowledgeStore``): it uses the store's ``_run`` and ``transaction``.
The reads and counters both engines share are in store/hygiene_sql.py.
"""

from __future__ import annotations

from typing import Any


class HygieneStore:
    _run: Any
    transaction: Any
    _counter_sum = "(hygiene_counters.value::bigint + excluded.value::bigint)::text"  # HygieneSql.bump_counter: the stored text plus the bound one

    def integrity_problems(self) -> list[str]:
        """Nothing to report from here: a memory's text vector is a generated column, kept by PostgreSQL with
        the row, and page-level checks are the server's (amcheck, pg_checksums)."""
        self._run("SELECT 1").fetchone()
        return []

    def rebuild_text_index(self) -> None:
        """Build the GIN index over the text vectors again."""
        self._run("REINDEX INDEX memories_tsv")
