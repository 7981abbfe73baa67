"""The SQLite store's connections within one process: one writer's, and one read-only connection per thread.

Under WAL a reader does not wait for a writer: it reads the database as of
the last commit. One connection shared by every thread loses that (a read
waits for the lock its connection is held under), so each thread that reads
without holding the write lock gets a connection of its own, opened on first
use and closed with the store (or when a later reader finds its thread gone).
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from pathlib import Path

# A reader's page cache. Pages come through the OS's file cache, which the readers
# share; each keeps a few MB of its own. A server has one reader per request thread
# (Settings.serve_threads, 4 by default; anyio's pool would run up to 40), so this bounds
# what they hold between them (32 MB by default, as pages are read), beside the writer's 64 MB.
READER_CACHE_KIB = 8 * 1024

# Reads of the database file go through a shared memory map rather than each connection's page cache.
# Trigger: every file-backed connection (the writer's and each reader's). Why: each connection copied
# the pages it read into its own cache (64 MB for the writer, 8 MB per reader), so a server held the same
# pages up to five times, growing with the store until the caps (bench/RESULTS.md, "Server memory over
# a soak"). Outcome: pages read are mapped once per process, shared with the OS's file cache, and the
# caches keep only the pages a transaction changes or reads from the WAL. Past this size, plain reads.
MMAP_BYTES = 1 << 30


class WriterLock:
    """A re-entrant lock that knows which thread holds it (``held``): that thread uses the writer's connection."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._owner: int | None = None
        self._count = 0

    def __enter__(self) -> WriterLock:
        self._lock.acquire()
        if not self._count:
            self._owner = threading.get_ident()
        self._count += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._count -= 1
        if not self._count:
            self._owner = None
        self._lock.release()

    def held(self) -> bool:
        """True on the thread that holds the lock."""
        return self._owner == threading.get_ident()


class Readers:
    """One read-only connection per thread to the database at ``path``."""

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self._path = Path(path).expanduser()
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._closed = False

    def get(self) -> sqlite3.Connection:
        """The calling thread's reader, opened on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, timeout=self._busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        conn.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        conn.execute("PRAGMA query_only = ON")  # a write that reached a reader would skip the write gate: refuse it
        with self._lock:
            if self._closed:
                conn.close()
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            # Trigger: a new reader. Why: a thread that ended leaves its connection here (sqlite3
            # connections take no weak references). Outcome: those are closed now, so a process whose
            # threads come and go holds one reader per live thread.
            alive = []
            for thread, other in self._open:
                owner = thread()
                if owner is not None and owner.is_alive():
                    alive.append((thread, other))
                else:
                    other.close()
            alive.append((weakref.ref(threading.current_thread()), conn))
            self._open = alive
        return conn

    def count(self) -> int:
        """Readers open now."""
        with self._lock:
            return len(self._open)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for _, conn in self._open:
                conn.close()
            self._open = []
