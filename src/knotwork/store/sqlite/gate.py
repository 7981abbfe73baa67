"""The write gate: writers of one SQLite file, in any process, queue on a lock file before ``BEGIN IMMEDIATE``.

SQLite's own busy handler makes a writer that finds the write lock taken
sleep and try again, in steps that grow to 100 ms: under steady concurrent
writes from several processes (``knotwork serve --workers 2``, several
``knotwork mcp`` on one file) one write in ten waited more than 30 ms for a
lock held for a few. An exclusive ``flock`` on ``<file>-lock`` is handed to the
next waiter as soon as it is released, so the write lock is free when it asks.

The gate only orders writers; SQLite's lock still guards the data (a writer
that does not use the gate, e.g. the ``sqlite3`` shell, is waited for by the
busy timeout as before). The kernel drops the gate of a process that dies.
Where ``fcntl`` does not exist (Windows) or the lock file cannot be made,
there is no gate and the busy handler alone orders writers.
"""

from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_POLL_S = (0.0002, 0.0005, 0.001, 0.002)  # waits between tries after a busy answer; the last repeats


class WriteGate:
    """An exclusive lock across processes on ``<path>-lock``; :meth:`enter` waits at most ``timeout_s``."""

    def __init__(self, path: str, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._fd: int | None = None
        if fcntl is None or path == ":memory:":
            return
        try:
            self._fd = os.open(f"{path}-lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            self._fd = None

    def enter(self) -> bool:
        """Take the gate; False (no gate taken) when there is none or the wait ran out: the caller then
        relies on SQLite's busy timeout, which answers with its own error if the lock stays taken."""
        if self._fd is None:
            return False
        deadline = time.monotonic() + self.timeout_s
        tries = 0
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(_POLL_S[min(tries, len(_POLL_S) - 1)])
                tries += 1

    def leave(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
