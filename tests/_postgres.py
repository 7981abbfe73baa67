"""A real PostgreSQL with pgvector for the tests: the pgserver wheel's, or the one KNOTWORK_TEST_POSTGRES_URL names.

One server per test session (per xdist worker: each has its own data
folder), and one database per worker, emptied before each test: every
connection to it is ended, then every table is truncated (identities
restarted), which takes a few tens of milliseconds, where copying a
template database took a second. A test that changed the recorded
migrations gets the database made anew.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from knotwork.store.postgres import PostgresStore, migrate


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` instead."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


class Database:
    """One knotwork database on a server, handed out empty to one test at a time."""

    def __init__(self, server_url: str, name: str) -> None:
        self.server_url = server_url
        self.name = name
        self.url = with_database(server_url, name)
        self._make()

    def _admin(self) -> psycopg.Connection:
        return psycopg.connect(self.server_url, autocommit=True)

    def _make(self) -> None:
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {self.name}")
        PostgresStore(self.url).close()

    def fresh(self) -> str:
        """The URL of the database, with the schema in place and nothing in it."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            recorded = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
            if recorded != [(m.version, m.name) for m in migrate.available()]:
                conn.close()
                self._make()
                return self.url
            tables = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'"
            )]
            identities = conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND is_identity = 'YES'"
            ).fetchall()
            with conn.transaction():
                # DELETE with triggers (foreign keys included) off: far cheaper than TRUNCATE on tiny tables.
                conn.execute("SET LOCAL session_replication_role = replica")
                for table in tables:
                    conn.execute(f"DELETE FROM {table}")
                for table, column in identities:
                    conn.execute(f"ALTER TABLE {table} ALTER COLUMN {column} RESTART")
                conn.execute("ALTER SEQUENCE entity_vectors_seq RESTART")
                conn.execute("INSERT INTO store_clock (one, n) VALUES (TRUE, 0)")
        return self.url

    def close(self) -> None:
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


def start_server():
    """A pgserver PostgreSQL in a new folder, or None when KNOTWORK_TEST_POSTGRES_URL names a server to use.

    The folder is not under pytest's base temp: a pytest session started
    meanwhile (by another checkout) prunes old base temps, data folder
    included. It is deleted when the server stops. The server holds only
    throw-away test data, so it need not flush to disk: fsync off.
    """
    if os.environ.get("KNOTWORK_TEST_POSTGRES_URL"):
        return None
    import pgserver

    server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="knotwork-pg-")), cleanup_mode="delete")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            conn.execute(f"ALTER SYSTEM SET {setting}")
        conn.execute("SELECT pg_reload_conf()")
    return server


def server_url(server) -> str:
    return os.environ.get("KNOTWORK_TEST_POSTGRES_URL") or server.get_uri()
