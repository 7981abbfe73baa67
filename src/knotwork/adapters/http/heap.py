"""The server process's C heap: how many glibc malloc arenas it may use, and giving freed memory back.

Why: a long-running ``knotwork serve`` allocates from many threads (the request
pool, the enrichment worker, onnxruntime's, SQLite's page caches). glibc gives
each thread that meets contention an arena of its own (up to eight per core)
and returns to the OS only the free memory at the top of each; what is freed
in the middle stays counted in RSS, so at a constant store size RSS still
crept up as arenas fragmented (bench/RESULTS.md, "Server memory over a soak").
Fewer arenas, and a ``malloc_trim`` now and then, which hands back every free
page of every arena, keep RSS at what the process actually holds.

Both are glibc's; on another C library (musl, macOS, Windows) they do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading

M_ARENA_MAX = -8  # mallopt parameter (glibc malloc.h)

log = logging.getLogger("knotwork.serve")


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt, libc.malloc_trim  # noqa: B018 -- glibc has both; another libc may lack them
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int) -> bool:
    """Let malloc use at most ``arenas`` arenas from now on (0: glibc's default); True when it took effect.

    Threads that already have an arena keep it: call this before the server starts its threads.
    """
    libc = _libc()
    if not arenas or libc is None:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, ctypes.c_int(arenas)))


def trim() -> bool:
    """Give every free page of every arena back to the OS now; True when some memory was released."""
    libc = _libc()
    return bool(libc.malloc_trim(ctypes.c_size_t(0))) if libc is not None else False


class Trimmer:
    """A daemon thread that calls :func:`trim` every ``every`` seconds until :meth:`stop`."""

    def __init__(self, every: float) -> None:
        self.every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Trimmer:
        if self.every > 0 and _libc() is not None:
            self._thread = threading.Thread(target=self._run, name="knotwork-trim", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                trim()
            except Exception:  # noqa: BLE001 -- housekeeping must never take the server down
                log.warning("malloc_trim failed", exc_info=True)
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
