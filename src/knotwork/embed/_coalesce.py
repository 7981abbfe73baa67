"""Concurrent ``embed`` calls share model runs: while one runs, the others queue, and the next run takes them all.

A server's request threads each embed a few texts; run one by one they queue for the model anyway, each
paying a run's fixed cost and its own padding. Here the first caller runs at once (no window, no added
latency when alone); whoever arrives while a run is in flight waits, and when it ends one of the waiting
callers runs every queued text in one call, and hands each caller its own rows. Errors reach every caller
of the run that failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy loads with the first vector: opening a store to read it needs none
    import numpy as np


class _Request:
    __slots__ = ("texts", "result", "error", "done")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.result: np.ndarray | None = None
        self.error: BaseException | None = None
        self.done = False


class Coalescer:
    """Runs ``run(texts) -> rows`` for concurrent callers, one call at a time, each call over all queued texts."""

    def __init__(self, run: Callable[[list[str]], np.ndarray], max_texts: int = 512) -> None:
        self._run = run
        self.max_texts = max_texts  # a queue longer than this is run in more than one call
        self._cv = threading.Condition()
        self._queue: list[_Request] = []
        self._busy = False
        self.runs = 0
        self.calls = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        mine = _Request(texts)
        with self._cv:
            self._queue.append(mine)
            self.calls += 1
        while True:  # a caller whose texts did not fit in the run it led leads the next one
            with self._cv:
                while self._busy and not mine.done:
                    self._cv.wait()
                if mine.done:
                    return self._answer(mine)
                self._busy = True
                batch, size = [], 0
                while self._queue and (not batch or size + len(self._queue[0].texts) <= self.max_texts):
                    request = self._queue.pop(0)
                    batch.append(request)
                    size += len(request.texts)
            self._execute(batch)

    def _execute(self, batch: list[_Request]) -> None:
        try:
            rows = self._run([t for r in batch for t in r.texts])
            at = 0
            for r in batch:
                r.result, at = rows[at : at + len(r.texts)], at + len(r.texts)
        except BaseException as exc:  # noqa: BLE001 - each caller of this run gets the error
            for r in batch:
                r.error = exc
        finally:
            with self._cv:
                for r in batch:
                    r.done = True
                self.runs += 1
                self._busy = False
                self._cv.notify_all()

    @staticmethod
    def _answer(request: _Request) -> np.ndarray:
        if request.error is not None:
            raise request.error
        assert request.result is not None
        return request.result
