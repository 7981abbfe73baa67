"""``KNOTWORK_SERVE_THREADS``: how many requests one server process works on at once.

A real uvicorn server over a real store, eight clients searching at once: the endpoints run in anyio's
thread pool, whose threads are named "AnyIO worker thread"; the threads that pool starts during the
test are the requests the server ran at the same time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Settings

from ._http import serving

POOL_THREAD = "AnyIO worker thread"
CLIENTS = 8
SEARCHES = 6


def _pool_threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.name == POOL_THREAD and t.ident is not None}


def _new_pool_threads_under_load(tmp_path: Path, serve_threads: int) -> tuple[int, list[int]]:
    with knotwork.open(tmp_path / f"t{serve_threads}.db", settings=Settings(serve_threads=serve_threads)) as mem:
        mem.add_many([{"content": f"deploy note {i}: the cache of service {i} warms on start", "workspace": "w"}
                      for i in range(40)])
        with serving(mem) as http:
            base = str(http.base_url)
            before = _pool_threads()
            start = threading.Barrier(CLIENTS)
            statuses: list[int] = []

            def client(n: int) -> None:
                with httpx2.Client(base_url=base, timeout=60) as own:
                    start.wait()
                    for i in range(SEARCHES):
                        answer = own.post("/search", json={"query": f"cache warm service {n} {i}", "workspace": "w"})
                        statuses.append(answer.status_code)

            clients = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
            for t in clients:
                t.start()
            for t in clients:
                t.join()
            return len(_pool_threads() - before), statuses


def test_a_server_runs_at_most_serve_threads_requests_at_once(tmp_path: Path) -> None:
    started, statuses = _new_pool_threads_under_load(tmp_path, serve_threads=2)
    assert statuses == [200] * (CLIENTS * SEARCHES)  # every request waited its turn and was answered
    assert 1 <= started <= 2


def test_a_larger_pool_runs_more_at_once(tmp_path: Path) -> None:
    """The control: the same load with room for every client starts more threads than two, so the limit
    above is the setting's doing, not the load's."""
    started, statuses = _new_pool_threads_under_load(tmp_path, serve_threads=CLIENTS)
    assert statuses == [200] * (CLIENTS * SEARCHES)
    assert started > 2


@pytest.mark.parametrize("value", [0, -1])
def test_serve_threads_must_be_positive(value: int) -> None:
    with pytest.raises(ValueError, match="serve_threads"):
        Settings(serve_threads=value)
