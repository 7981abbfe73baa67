"""The foreground of a process: its searches and adds in flight, which its graph worker thread waits for.

A library process reads memories into the graph on a thread of its own (``KNOTWORK_ENRICH=thread``, the
default there). That thread shares the process's GIL and cores with the caller's searches and adds, so it
waits while one runs: the facade holds :meth:`Foreground.held` around each, and the worker calls
:meth:`Foreground.wait_idle` before each batch and between the parts of one (services/enrichment.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Foreground:
    """A count of the operations in flight, and a wait until there are none."""

    def __init__(self) -> None:
        self._busy = 0
        self.waiting = 0  # threads in wait_idle now
        self._idle = threading.Condition()

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._idle:
            self._busy += 1
        try:
            yield
        finally:
            with self._idle:
                self._busy -= 1
                if not self._busy:
                    self._idle.notify_all()

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no operation is in flight (True), or ``timeout`` seconds (False)."""
        with self._idle:
            self.waiting += 1
            try:
                return self._idle.wait_for(lambda: not self._busy, timeout)
            finally:
                self.waiting -= 1
