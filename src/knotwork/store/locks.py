"""Locks of a store across every process that opens it, taken without waiting: who reads the graph in.

The enrichment queue is read in one batch at a time, in the order its memories
hold in time, by whichever process holds the store's ``drain`` lock for that
batch; the ``worker`` lock names the one process that hosts a store's worker for
all the servers on it (services/drainer.py). SQLite's are ``flock`` locks on
files beside the database (``<file>-drain.lock``, ``<file>-worker.lock``);
PostgreSQL's are session advisory locks, each on a connection of its own. The
kernel, or the server, drops the lock of a process that dies, kill -9 included.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

NAMES = ("drain", "worker")


class Held:
    """A lock this process holds; :meth:`release` (or leaving a ``with`` block) gives it back, once."""

    def __init__(self, release: Callable[[], None]) -> None:
        self._release: Callable[[], None] | None = release

    def release(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def take_file(path: str) -> Held | None:
    """An exclusive ``flock`` on ``path`` (made if missing), or None when another open file holds it. Each call
    opens the file anew, so two holders in one process exclude each other as two processes do. Where there is
    no ``flock`` (Windows) every caller gets it: claims alone keep two workers from reading an item twice."""
    if fcntl is None:
        return Held(lambda: None)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return Held(lambda: os.close(fd))  # closing the file drops its lock


def take_thread_lock(lock: threading.Lock) -> Held | None:
    """``lock`` without waiting (an in-memory database: one process is all there is)."""
    return Held(lock.release) if lock.acquire(blocking=False) else None
