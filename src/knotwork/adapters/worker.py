"""``python -m knotwork.adapters.worker TARGET``: the store's graph worker, in a process of its own.

Started by a server's ``WorkerHost`` or handed a backlog at exit (services/drainer.py), never by hand. It
lowers its own CPU priority, takes the store's ``worker`` lock as its first act (and exits at once, having
loaded nothing, when another process holds it), then reads the queue in as a worker thread would, woken by
a line on its stdin. At the end of its stdin (its host stopped, or died) it reads in what is queued and exits.

A batch that takes longer than ``enrich_timeout`` seconds ends the process (a thread stuck inside native code
cannot be stopped otherwise): the batch's claims go back to the queue under the next worker, which reads
them in one at a time, so the memory that hangs is tried alone until it is marked failed.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from knotwork.services.drainer import SETTINGS_ENV

WORKER_NICE = 10  # the process's niceness above its host's: requests first, the graph after
TIMED_OUT = 75  # the exit status of a worker whose batch ran past enrich_timeout
HOLD_ENV = "KNOTWORK_TEST_WORKER_HOLD"  # fault tests: where a worker process stops to be killed (_held_at)
log = logging.getLogger("knotwork.enrichment")


class Watchdog:
    """Ends the process when one armed stretch lasts longer than ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._armed = threading.Condition()
        self._since: float | None = None
        threading.Thread(target=self._watch, name="knotwork-enrich-watchdog", daemon=True).start()

    @contextmanager
    def armed(self) -> Iterator[None]:
        import time

        with self._armed:
            self._since = time.monotonic()
            self._armed.notify_all()
        try:
            yield
        finally:
            with self._armed:
                self._since = None
                self._armed.notify_all()

    def _watch(self) -> None:
        import time

        with self._armed:
            while True:
                if self._since is None:
                    self._armed.wait()
                    continue
                left = self._since + self.seconds - time.monotonic()
                if left <= 0:
                    log.error("a batch of the graph's queue ran past %.0f s; the worker ends (it is tried again, alone)",
                              self.seconds)
                    os._exit(TIMED_OUT)
                self._armed.wait(left)


def _held_at(spec: str | None) -> Any:
    """Fault tests only (``HOLD_ENV`` = ``BATCH:FILE``): a tracer that, inside batch BATCH (its graph written, its
    queue rows about to be deleted), writes this process's pid to FILE and waits there for the kill -9 the test
    sends. Once per FILE: a worker started after it finds FILE and goes on."""
    if not spec:
        return None
    batch, _, path = spec.partition(":")
    claims = [0]

    def tracer(sql: str, params: Any) -> None:
        if "attempts = attempts + 1" in sql and params:
            claims[0] += 1
        if claims[0] == int(batch) and sql.startswith("DELETE FROM enrich_queue") and not os.path.exists(path):
            with open(f"{path}.part", "w", encoding="ascii") as fh:
                fh.write(str(os.getpid()))
            os.replace(f"{path}.part", path)
            threading.Event().wait()

    return tracer


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m knotwork.adapters.worker TARGET", file=sys.stderr)
        return 2
    from knotwork.app import embedder_for, open_store
    from knotwork.config import Settings

    raw = os.environ.get(SETTINGS_ENV)
    settings = Settings.model_validate_json(raw) if raw else Settings()
    settings = settings.model_copy(update={"enrich": "thread", "enrich_close_wait": 0.0})  # it is the worker
    try:
        os.nice(WORKER_NICE)
    except (AttributeError, OSError):
        pass
    store = open_store(args[0], settings, _held_at(os.environ.get(HOLD_ENV)))
    held = store.enrich_lock("worker")
    if held is None:  # another process hosts the store's worker
        store.close()
        return 0
    try:
        from knotwork.service import Knotwork
        from knotwork.services.enrichment import EnrichmentWorker

        mem = Knotwork(store, settings, embedder_for(settings.embedder, settings.embed_threads))
        enrichment = mem.enrichment
        enrichment.stop()  # this process drains through the worker below, never through a close's hand-over
        enrichment.knowledge.warm()  # the parser loads before the watchdog counts: a batch's time is its own
        watchdog = Watchdog(settings.enrich_timeout)

        def drain_once() -> int:
            with watchdog.armed():
                return enrichment.drain_once()

        worker = EnrichmentWorker(drain_once, settings.enrich_interval, settings.enrich_batch, settings.enrich_gather,
                                  None, enrichment.batch_waiting).start()
        for _ in sys.stdin.buffer:  # a line: the host queued work
            worker.wake()
        worker.stop()
        while drain_once():  # the host is gone: what is queued is read in, then this process exits
            pass
        mem.close(wait=False)
    finally:
        held.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
