"""Reads do not wait for the writer: a read on another thread answers while a write transaction is open.

Each test holds a real write transaction open on one thread (an event keeps it open), reads on another
thread, and checks that the read answered before the transaction ended, with the committed state only.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork
from knotwork.config import Settings

WAIT_S = 20.0


def _hold_transaction(mem: Knotwork, opened: threading.Event, release: threading.Event, write) -> threading.Thread:
    """A thread that opens a write transaction, writes, signals ``opened`` and keeps it open until ``release``."""

    def run() -> None:
        with mem.store.transaction():
            write()
            opened.set()
            assert release.wait(WAIT_S)

    thread = threading.Thread(target=run)
    thread.start()
    assert opened.wait(WAIT_S)
    return thread


def test_a_read_answers_while_another_thread_holds_the_write_transaction(mem: Knotwork) -> None:
    kept = mem.add("the build uses uv and a lock file", workspace="w")
    opened, release = threading.Event(), threading.Event()
    holder = _hold_transaction(mem, opened, release, lambda: mem.store.delete_memory(kept.id))
    try:
        answers: dict[str, object] = {}

        def read() -> None:
            answers["get"] = mem.store.get_memory(kept.id)
            answers["count"] = mem.store.count_memories()
            answers["open"] = not release.is_set()

        reader = threading.Thread(target=read)
        reader.start()
        reader.join(WAIT_S)
        assert not reader.is_alive(), "the read waited for the write transaction"
        assert answers["open"] is True  # it answered while the transaction was still open
        assert answers["get"] is not None and answers["get"].id == kept.id  # the uncommitted delete is not seen
        assert answers["count"] == 1
    finally:
        release.set()
        holder.join(WAIT_S)
    assert mem.store.get_memory(kept.id) is None  # committed: every thread sees it now


def test_the_writing_thread_reads_its_own_uncommitted_writes(mem: Knotwork) -> None:
    kept = mem.add("deploys go out on Tuesdays", workspace="w")
    with mem.store.transaction():
        assert mem.store.delete_memory(kept.id)
        assert mem.store.get_memory(kept.id) is None
        assert mem.store.count_memories() == 0
        seen: list[object] = []
        other = threading.Thread(target=lambda: seen.append(mem.store.get_memory(kept.id)))
        other.start()
        other.join(WAIT_S)
        assert not other.is_alive() and seen[0] is not None  # another thread still sees the committed row


def test_search_answers_while_writers_queue(mem: Knotwork) -> None:
    """Writers queued behind an open write transaction (the one an add runs in, which syncs the vector
    index) hold neither the index nor read capacity: a search still answers."""
    for text in ("the cache lives in redis", "redis runs on port 6380 in staging", "the queue is rabbitmq"):
        mem.add(text, workspace="w")
    opened, release = threading.Event(), threading.Event()

    def hold() -> None:
        with mem._similar.transaction():
            opened.set()
            assert release.wait(WAIT_S)

    holder = threading.Thread(target=hold)
    holder.start()
    assert opened.wait(WAIT_S)
    adds = [threading.Thread(target=mem.add, args=(f"queued write number {i} about redis",), kwargs={"workspace": "w"})
            for i in range(3)]
    # more store-level writers than a PostgreSQL pool has connections
    metas = [threading.Thread(target=mem.store.set_meta, args=(f"queued-{i}", "x")) for i in range(12)]
    queued = adds + metas
    try:
        for t in queued:
            t.start()
        time.sleep(0.3)  # the writers reach the write lock and wait there
        found: list[object] = []
        searcher = threading.Thread(target=lambda: found.append(mem.search("redis port", workspace="w")))
        searcher.start()
        searcher.join(WAIT_S)
        assert not searcher.is_alive(), "the search waited behind the queued writers"
        assert not release.is_set() and all(t.is_alive() for t in queued)  # they were still waiting
        texts = [hit.memory.content for hit in found[0]]
        assert texts and texts[0] == "redis runs on port 6380 in staging"
        assert not any("queued write" in t for t in texts)
    finally:
        release.set()
        holder.join(WAIT_S)
        for t in queued:
            t.join(WAIT_S)
    assert mem.store.count_memories() == 6
    assert mem.store.get_meta("queued-11") == "x"


def test_readers_of_ended_threads_are_closed(db_path: Path) -> None:
    with knotwork.open(db_path, settings=Settings(embedder="none")) as m:
        m.add("one", workspace="w")
        for _ in range(5):
            t = threading.Thread(target=lambda: m.store.count_memories())
            t.start()
            t.join()
        m.store.count_memories()  # a new reader (this thread's) closes those of the threads that ended
        assert m.store._readers.count() <= 2


def test_a_reader_refuses_writes(db_path: Path) -> None:
    """A write that skipped the writer's connection would skip the write gate: the reader refuses it."""
    import sqlite3

    with knotwork.open(db_path, settings=Settings(embedder="none")) as m:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            m.store._run("DELETE FROM memories")


def test_an_in_memory_store_reads_through_its_one_connection() -> None:
    with knotwork.open(":memory:", settings=Settings(embedder="none")) as m:
        added = m.add("kept in memory only", workspace="w")
        assert m.get(added.id).content == "kept in memory only"
