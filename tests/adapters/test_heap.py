"""The server's C heap upkeep (adapters/http/heap.py): arenas limited, free memory handed back to the OS."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import subprocess
import sys
import textwrap
import time

import pytest

from knotwork.adapters.http import heap

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt and malloc_trim are glibc's")


def run(code: str) -> str:
    """Run ``code`` in a fresh interpreter (its heap is its own) and return what it printed."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


FRAGMENT = """
    import ctypes, ctypes.util
    from pathlib import Path
    from knotwork.adapters.http import heap

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]

    def anon_kb():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1])

    # 40 MB of small blocks (below the mmap threshold, so from the heap), each written to, then all freed
    # but the last: the free memory sits below a block in use, where free() alone cannot give it back
    blocks = [libc.malloc(1000) for _ in range(40_000)]
    for b in blocks:
        ctypes.memset(b, 1, 1000)
    for b in blocks[:-1]:
        libc.free(b)
    before = anon_kb()
    released = {call}
    print(before - anon_kb(), released)
"""


@glibc
def test_trim_hands_freed_heap_memory_back() -> None:
    released_kb, said = run(FRAGMENT.replace("{call}", "heap.trim()")).split()
    assert said == "True"
    assert int(released_kb) > 20_000  # most of the 40 MB freed came back


@glibc
def test_without_trim_freed_memory_stays_counted() -> None:
    """The control for the test above: the same frees, no trim, and RSS keeps them."""
    released_kb, _ = run(FRAGMENT.replace("{call}", "None")).split()
    assert int(released_kb) < 5_000


@glibc
def test_limit_arenas_takes_effect() -> None:
    assert heap.limit_arenas(2) is True
    assert heap.limit_arenas(0) is False  # 0: glibc's default, nothing set


@glibc
def test_trimmer_trims_until_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr(heap, "trim", lambda: calls.append(time.monotonic()) or True)
    trimmer = heap.Trimmer(0.02).start()
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    trimmer.stop()
    assert len(calls) >= 3
    settled = len(calls)
    time.sleep(0.1)
    assert len(calls) == settled  # stopped: no more trims


def test_trimmer_off_starts_no_thread() -> None:
    trimmer = heap.Trimmer(0).start()
    assert trimmer._thread is None
    trimmer.stop()


def test_settings_validate_heap_fields() -> None:
    from pydantic import ValidationError

    from knotwork.config import Settings

    assert Settings(serve_malloc_arenas=4, serve_trim_interval=0).serve_trim_interval == 0
    with pytest.raises(ValidationError, match="serve_trim_interval"):
        Settings(serve_trim_interval=-1)
    with pytest.raises(ValidationError, match="serve_malloc_arenas"):
        Settings(serve_malloc_arenas=-1)


def test_libc_without_glibc_functions_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A C library lacking mallopt/malloc_trim (musl's has no malloc_trim) turns both into no-ops."""
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert heap._libc() is None
    assert heap.trim() is False
    assert heap.limit_arenas(2) is False
