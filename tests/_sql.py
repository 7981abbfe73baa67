"""One raw SQL statement on a conformance test's store, whichever backend it is: for the tests that set
up a state no API call makes (a memory whose expiry has passed, a store from before an upgrade)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any


def execute(target: str, sql: str, params: Sequence[Any] = ()) -> None:
    """Run ``sql`` (``?`` placeholders) on the SQLite file or PostgreSQL URL ``target`` and commit."""
    if "://" in target and not target.startswith("sqlite://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]
        return
    with sqlite3.connect(target.removeprefix("sqlite://")) as conn:
        conn.execute(sql, params)


def query(target: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (``?`` placeholders) on the SQLite file or PostgreSQL URL ``target``."""
    if "://" in target and not target.startswith("sqlite://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            return [tuple(r) for r in conn.execute(sql.replace("?", "%s"), params)]  # type: ignore[arg-type]
    conn = sqlite3.connect(target.removeprefix("sqlite://"))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
