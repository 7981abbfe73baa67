"""The stages of the write path, each timed: what an add spent where (``Knotwork.write_stats``).

An add runs validate → embed → decide → store (the transaction, commit included); reading the new
memories into the knowledge graph (enrich) follows from the queue, or inside ``store`` when
``Settings.enrich`` is ``inline``. Times add up per stage over this process's writes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

STAGES = ("validate", "embed", "decide", "store", "enrich")


class StageTimes:
    """Seconds and runs per stage of the write path, kept by one ``Knotwork``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seconds = dict.fromkeys(STAGES, 0.0)
        self._runs = dict.fromkeys(STAGES, 0)
        self._local = threading.local()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time one stage; a stage inside another (the inline enrich in ``store``) counts once, in the inner."""
        assert name in self._seconds, name
        outer = getattr(self._local, "open", None)
        self._local.open = name
        start = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - start
            self._local.open = outer
            with self._lock:
                self._seconds[name] += spent
                self._runs[name] += 1
                if outer is not None:
                    self._seconds[outer] -= spent

    def add(self, name: str, seconds: float, runs: int = 1) -> None:
        with self._lock:
            self._seconds[name] += seconds
            self._runs[name] += runs

    def snapshot(self) -> dict[str, dict[str, float]]:
        """{stage: {seconds, runs}} in the order the stages run."""
        with self._lock:
            return {s: {"seconds": round(self._seconds[s], 6), "runs": self._runs[s]} for s in STAGES}
