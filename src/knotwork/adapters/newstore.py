"""A store the command line names that does not exist yet: refused by what only reads, made (and said) by what writes.

Trigger: ``knotwork list --db /nonexistent/dir/x.db`` printed ``No memories.``, exited 0 and left a directory
and an empty store behind; a misspelt file name did the same. Why: opening a SQLite store creates it, so a
typo looked like an empty store and littered the disk. Outcome: a command that only reads refuses a path
(``--db`` or ``KNOTWORK_DB``) where no file is, with exit 2 and one line naming it, and creates nothing; a
command that writes (``add``, ``import``, ``serve``, ``mcp``) creates the store and says so in one line on
stderr, and removes it again when it fails before anything was stored. The default store
(``$KNOTWORK_HOME/knotwork.db``) is made on first use by every command, as before: it names no path a user
could have mistyped. PostgreSQL URLs and ``:memory:`` are never checked here.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

from knotwork.config import Settings
from knotwork.errors import InvalidInput


def missing(db: str | None, settings: Settings) -> Path | None:
    """The SQLite file ``--db`` (or ``KNOTWORK_DB``) names when no file is there yet; None otherwise."""
    target = db if db is not None else settings.db
    if not target:
        return None
    scheme, sep, rest = str(target).partition("://")
    if sep and scheme != "sqlite":
        return None
    path = rest if sep else str(target)
    if not path or path == ":memory:":
        return None
    found = Path(path).expanduser()
    return None if found.exists() else found


def refuse(path: Path) -> InvalidInput:
    """The error of a command that only reads, pointed at ``path`` where there is no store."""
    where = "" if path.parent.is_dir() else f" (nor its folder {path.parent})"
    return InvalidInput("db", f"no store at {path}{where}; check the path (commands that write, such as add, create it)")


def _empty(path: Path) -> bool:
    """Whether the store at ``path`` holds no memory (one that cannot be read is not taken for empty)."""
    import sqlite3

    if not path.exists():
        return True
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    except sqlite3.Error:
        return False


@contextlib.contextmanager
def created(path: Path | None, say: object) -> Iterator[None]:
    """Around a writing command that may create the store at ``path`` (None: it exists, or is not a file):
    ``say(line)`` once the command has succeeded; the store and the folders made for it are removed when
    it fails, so a failed command leaves nothing behind."""
    if path is None:
        yield
        return
    made_folder = None  # the outermost folder the store's creation makes
    if not path.parent.exists():
        made_folder = path.parent
        while not made_folder.parent.exists():
            made_folder = made_folder.parent
    try:
        yield
    except BaseException as exc:
        if getattr(exc, "kept", False) or not _empty(path):  # written after all (cli_progress.py), or by another process
            raise
        if made_folder is not None:
            shutil.rmtree(made_folder, ignore_errors=True)
        else:
            for leftover in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal", "-lock"))):
                leftover.unlink(missing_ok=True)
        raise
    if path.exists():
        say(f"knotwork: created a new store at {path}")  # type: ignore[operator]
