"""Numbered migrations, recorded in the database they were applied to.

Migrations live in ``migrations/NNNN_name.sql``. Opening a database applies
the ones it has not seen, in order, each in its own transaction, under
``BEGIN IMMEDIATE`` so that two processes opening a new file at once do not
both apply the same migration.
"""

from __future__ import annotations

import sqlite3

from knotwork.store.migrations import Migration, found_in
from knotwork.store.sqlite import halves, scaled


def available() -> list[Migration]:
    return found_in("knotwork.store.sqlite")


def statements(sql: str) -> list[str]:
    """Split a script into statements (trigger bodies keep their inner ``;``)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip() and not all(l.strip().startswith("--") or not l.strip() for l in buf.splitlines()):
        raise ValueError(f"incomplete SQL statement in migration: {buf.strip()[:80]}")
    return out


def apply(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date; return the schema version."""
    # Trigger: two processes opening a new file at once. Why: in WAL mode a statement that begins as a read
    # and then writes (CREATE TABLE IF NOT EXISTS on a file where the other process has just committed) fails
    # with "database is locked" at once, without waiting (its snapshot is stale). Outcome: the write lock is
    # taken first, with the busy timeout, as for every migration below.
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    # Migrations may call these (0024 converts the stored vectors to float16, 0029 the entity vectors to int8, 0030 the memory vectors).
    conn.create_function("knotwork_half", 1, halves.migrate_function, deterministic=True)
    conn.create_function("knotwork_scaled", 1, scaled.migrate_function, deterministic=True)
    current = 0
    for migration in available():
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute("SELECT name FROM schema_migrations WHERE version = ?", (migration.version,)).fetchone()
            if done and done[0] != migration.name:
                # Two schema changes shared a number: applying ours would skip it, so the schema would be wrong.
                raise sqlite3.DatabaseError(
                    f"migration {migration.version:04d} applied here is {done[0]!r}, but this knotwork's is {migration.name!r}"
                )
            if not done:
                for statement in statements(migration.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at)"
                    " VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    (migration.version, migration.name),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        current = migration.version
    return current
