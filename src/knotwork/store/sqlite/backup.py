"""Online backup and restore of a SQLite store, through SQLite's backup API.

A backup is a consistent copy of the database as of one moment, taken while
other processes go on reading and writing (the API copies pages and starts
again if a writer changes one it has copied). A restore copies a backup over
a store's file the same way, as one write transaction of the target: readers
see the old database or the restored one, never a mix. The restored copy is a
plain knotwork database, so opening it applies any newer migrations.

Processes that hold the store open keep in-memory indexes (vectors, BM25,
links) that follow the database through change logs; a restore moves the
database back in time, so stop them first (``knotwork serve``, MCP servers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from knotwork.errors import InvalidInput
from knotwork.store.sqlite import migrate

PAGES_PER_STEP = 1024  # pages copied between progress reports (4 MB with 4 KiB pages)


def copy(source: sqlite3.Connection, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
    """Copy the database of ``source`` into a new file ``target`` (its WAL folded in), page by page."""
    if target.exists():
        raise InvalidInput("backup", f"{target} exists; name a new file")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    dest = sqlite3.connect(partial)
    try:
        source.backup(dest, pages=PAGES_PER_STEP, progress=(lambda _s, left, total: progress(total - left, total)) if progress else None)
        dest.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
        check = dest.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise InvalidInput("backup", f"the copy failed its integrity check: {check}")
    except BaseException:
        dest.close()
        partial.unlink(missing_ok=True)
        raise
    dest.close()
    partial.rename(target)  # the backup appears whole or not at all


def check_backup(path: Path) -> int:
    """The schema version of a knotwork backup at ``path``; InvalidInput when it is not one this knotwork can open."""
    if not path.is_file():
        raise InvalidInput("backup", f"{path} is not a file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            version = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise InvalidInput("backup", f"{path} is not a knotwork database ({exc})") from None
    if check != "ok":
        raise InvalidInput("backup", f"{path} fails SQLite's integrity check: {check}")
    known = max(m.version for m in migrate.available())
    if version is None or version > known:
        raise InvalidInput("backup", f"{path} has schema version {version}; this knotwork knows up to {known}")
    return int(version)


def restore(backup: Path, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
    """Copy the backup at ``backup`` over the database at ``target`` (created when missing)."""
    check_backup(backup)
    if target.exists() and target.resolve() == backup.resolve():
        raise InvalidInput("backup", "the backup and the store are the same file")
    target.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    dest = sqlite3.connect(target, timeout=30)
    try:
        source.backup(dest, pages=PAGES_PER_STEP, progress=(lambda _s, left, total: progress(total - left, total)) if progress else None)
    finally:
        source.close()
        dest.close()
