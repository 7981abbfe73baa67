"""The graph's worker in a process of its own: one per store, for every process that opens it.

``KNOTWORK_ENRICH=process`` (and ``background`` in ``knotwork serve`` and
``knotwork mcp``): a server process does not read memories into the graph
itself. Its :class:`WorkerHost`, a small thread that loads nothing, keeps a
worker process (``python -m knotwork.adapters.worker``) running for the store
while no process anywhere holds the store's ``worker`` lock (store/locks.py):
whichever host finds it free starts one, the child takes the lock as its first
act (a second child finds it taken and exits before it loads anything), and
when the holder exits (kill -9 included) the lock is free again and the next
host's look starts another. So eight ``knotwork mcp`` processes and a
``serve`` on one file have one worker between them; the others never load the
parser, and a search never waits for the worker's GIL or its cores (the child
runs at a lower CPU priority, ``os.nice``).

The host writes a line to its own child's stdin when its process queued work
(the child wakes at once; adds of other processes are seen within
``enrich_interval`` seconds). When the host stops, it closes that pipe: the
child reads in what is queued, then exits, so a store closed, or a process that
exits, hands its backlog to a worker that outlives it (:func:`hand_over`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.store.protocol import Store

SETTINGS_ENV = "KNOTWORK_WORKER_SETTINGS"  # the opener's settings, JSON, for the worker process
LOOK_EVERY = 5.0  # seconds at most between a host's looks at the store's worker lock (enrich_interval if shorter)
log = logging.getLogger("knotwork.enrichment")


def target_of(store: Store) -> str | None:
    """What another process opens to reach ``store`` (None: an in-memory database, which no other can)."""
    target = getattr(store, "target", None)
    return None if not target or target == ":memory:" else str(target)


def spawn(target: str, settings: Settings, *, detached: bool) -> subprocess.Popen[bytes]:
    """Start a worker process for the store at ``target``. ``detached``: in a session of its own, with nothing
    to read (it reads the queue in and exits); else its stdin is a pipe its host wakes it through."""
    env = {**os.environ, SETTINGS_ENV: settings.model_dump_json()}
    return subprocess.Popen(
        [sys.executable, "-m", "knotwork.adapters.worker", target],
        stdin=subprocess.DEVNULL if detached else subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if detached else None,
        env=env,
        close_fds=True,
        start_new_session=detached,
    )


def worker_running(store: Store) -> bool:
    """Whether some process holds the store's worker lock now (a look: the lock is given back at once)."""
    held = store.enrich_lock("worker")
    if held is None:
        return True
    held.release()
    return False


def hand_over(store: Store, settings: Settings) -> bool:
    """Memories are queued and no worker process runs for the store: start one that outlives this process and
    reads them in (it exits once the queue is empty). True when one was started."""
    target = target_of(store)
    if target is None or worker_running(store):
        return False
    spawn(target, settings, detached=True)
    return True


class WorkerHost:
    """Keeps a worker process running for the store while no process holds its worker lock (module docstring)."""

    def __init__(self, store: Store, settings: Settings, target: str) -> None:
        self.store = store
        self.settings = settings
        self.target = target
        self.child: subprocess.Popen[bytes] | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="knotwork-enrich-host", daemon=True)

    def start(self) -> WorkerHost:
        self._thread.start()
        return self

    def _alive(self) -> bool:
        return self.child is not None and self.child.poll() is None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if not self._alive():
                    with self._lock:
                        if not self._stop.is_set() and not worker_running(self.store):
                            self.child = spawn(self.target, self.settings, detached=False)
            except Exception:  # noqa: BLE001 - a busy database now is no reason to stop looking
                log.warning("could not look for the store's worker process; trying again", exc_info=True)
            self._wake.wait(min(LOOK_EVERY, self.settings.enrich_interval))
            self._wake.clear()

    def wake(self) -> None:
        """This process queued work: tell its own worker process (another process's worker sees it within
        ``enrich_interval`` seconds)."""
        child = self.child
        if child is None or child.stdin is None or child.poll() is not None:
            return
        try:
            child.stdin.write(b"\n")
            child.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def state(self) -> dict[str, Any]:
        child = self.child
        return {"host": os.getpid(), "child": child.pid if child is not None and child.poll() is None else None}

    def stop(self) -> None:
        """Stop looking; this process's worker process reads in what is queued, then exits (it is not waited for)."""
        self._stop.set()
        self._wake.set()
        with self._lock:
            child, self.child = self.child, None
        if child is not None and child.stdin is not None:
            try:
                child.stdin.close()
            except OSError:
                pass
        if self._thread is not threading.current_thread() and self._thread.is_alive():
            self._thread.join(timeout=30)
