"""Concurrent embed() calls share model runs: callers that arrive while a run is in flight are run together
next, each gets its own rows back, in order, and an error reaches every caller of the run that failed."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from knotwork.embed._base import BaseEmbedder
from knotwork.embed._coalesce import Coalescer


def rows_of(texts: list[str]) -> np.ndarray:
    return np.array([[float(len(t)), float(sum(map(ord, t)))] for t in texts])


class Gated:
    """A run that holds its first call until released, and records what each call got."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.release = threading.Event()
        self.fail_on = fail_on

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            assert self.release.wait(10)
        if self.fail_on in texts:
            raise RuntimeError("model failed")
        return rows_of(texts)


def waiting(co: Coalescer, n: int) -> None:
    for _ in range(1000):
        with co._cv:
            if len(co._queue) >= n:
                return
        threading.Event().wait(0.005)
    raise AssertionError("callers did not queue")


def test_callers_that_queue_during_a_run_share_the_next_run() -> None:
    run = Gated()
    co = Coalescer(run)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(co, ["a"])
        waiting(co, 0)
        while not run.calls:
            threading.Event().wait(0.005)
        later = [pool.submit(co, t) for t in (["bb", "ccc"], ["dddd"], ["e", "ff"])]
        waiting(co, 3)
        run.release.set()
        assert np.array_equal(first.result(), rows_of(["a"]))
        for f, t in zip(later, (["bb", "ccc"], ["dddd"], ["e", "ff"])):
            assert np.array_equal(f.result(), rows_of(t))
    assert len(run.calls) == 2 and sorted(run.calls[1]) == ["bb", "ccc", "dddd", "e", "ff"]
    assert co.calls == 4 and co.runs == 2


def test_a_failed_run_fails_each_of_its_callers_and_the_next_run_goes_on() -> None:
    run = Gated(fail_on="bad")
    co = Coalescer(run)
    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(co, ["a"])
        while not run.calls:
            threading.Event().wait(0.005)
        doomed = [pool.submit(co, ["bad"]), pool.submit(co, ["fine"])]
        waiting(co, 2)
        run.release.set()
        first.result()
        for f in doomed:
            with pytest.raises(RuntimeError, match="model failed"):
                f.result()
    assert np.array_equal(co(["after"]), rows_of(["after"]))


def test_a_long_queue_is_run_in_parts_of_at_most_max_texts() -> None:
    run = Gated()
    co = Coalescer(run, max_texts=3)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(co, ["a"])
        while not run.calls:
            threading.Event().wait(0.005)
        later = [pool.submit(co, [f"{i}x", f"{i}y"]) for i in range(3)]
        waiting(co, 3)
        run.release.set()
        first.result()
        assert [f.result().shape[0] for f in later] == [2, 2, 2]
    assert [len(c) for c in run.calls[1:]] == [2, 2, 2]  # 2 + 2 > 3: one caller per run


def test_threads_embedding_at_once_get_what_each_would_get_alone(minilm) -> None:
    texts = [[f"note {i}: the deploy of service {i} moved to blue-green", f"short {i}"] for i in range(12)]
    alone = [minilm.embed(t) for t in texts]
    before = minilm.coalescer.runs
    with ThreadPoolExecutor(6) as pool:
        together = list(pool.map(minilm.embed, texts))
    for a, b in zip(alone, together):
        assert np.allclose(a, b, atol=1e-5)
    assert minilm.coalescer.runs - before <= len(texts)


class Held(BaseEmbedder):
    """A provider whose runs over a text containing "slow" wait until released."""

    model_id = "held@1"

    def __init__(self) -> None:
        super().__init__(batch_size=8)
        self.release = threading.Event()
        self.started = threading.Event()

    @property
    def dim(self) -> int:
        return 2

    @property
    def max_tokens(self) -> int:
        return 64

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        if any("slow" in t for t in texts):
            self.started.set()
            assert self.release.wait(10)
        return rows_of(texts) + 1.0


def test_a_query_does_not_queue_behind_a_write_run() -> None:
    embedder = Held()
    with ThreadPoolExecutor(1) as pool:
        write = pool.submit(embedder.embed, ["slow write"])
        assert embedder.started.wait(10)
        query = embedder.embed_query("where is the cache?")  # answered while the write's run is held
        assert not write.done() and query.shape == (2,)
        embedder.release.set()
        assert write.result().shape == (1, 2)
