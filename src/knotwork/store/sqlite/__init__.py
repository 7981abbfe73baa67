"""The embedded default: one SQLite file (WAL, FTS5)."""

from knotwork.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
