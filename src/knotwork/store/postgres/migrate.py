"""Numbered migrations, recorded in the database they were applied to.

Migrations live in ``migrations/NNNN_name.sql``, as SQLite's do. Opening a
database applies the ones it has not seen, in order, each in its own
transaction, under a transaction-level advisory lock so that two processes
opening a new database at once do not both apply the same migration.
"""

from __future__ import annotations

import psycopg

from knotwork.store.migrations import Migration, found_in

MIGRATION_LOCK = 0x6B6E_6F74_0001  # pg_advisory_xact_lock key: "knot" + 1


def available() -> list[Migration]:
    return found_in("knotwork.store.postgres")


class SchemaMismatch(Exception):
    """A migration applied here is not the one of the same number this knotwork has."""


def _has_table(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()[0]


def apply(conn: psycopg.Connection) -> int:
    """Bring the schema up to date; return the schema version (``conn`` in autocommit mode)."""
    wanted = available()
    recorded = conn.execute(
        "SELECT version, name FROM schema_migrations ORDER BY version" if _has_table(conn) else "SELECT 1 WHERE FALSE"
    ).fetchall()
    if recorded[: len(wanted)] == [(m.version, m.name) for m in wanted]:
        return wanted[-1].version  # up to date: no lock, no transaction (the common case, on every open)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
    current = 0
    for migration in wanted:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            done = conn.execute("SELECT name FROM schema_migrations WHERE version = %s", (migration.version,)).fetchone()
            if done and done[0] != migration.name:
                # Two schema changes shared a number: applying ours would skip it, so the schema would be wrong.
                raise SchemaMismatch(
                    f"migration {migration.version:04d} applied here is {done[0]!r}, but this knotwork's is {migration.name!r}"
                )
            if not done:
                conn.execute(migration.sql.encode("utf-8"))  # a script: no parameters, so several statements may run
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (migration.version, migration.name)
                )
        current = migration.version
    return current
