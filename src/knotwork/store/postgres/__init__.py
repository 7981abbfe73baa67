"""The server backend: PostgreSQL (15 or newer) with pgvector, through a connection pool."""

from knotwork.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
