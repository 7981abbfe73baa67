"""The MCP stdio server and `knotwork serve` read stored memories into the knowledge graph in the background:
what their own adds queue, and what an earlier process left queued, without being asked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import mcp.client.stdio
import pytest

import knotwork
from knotwork import Settings

from ._mcp import ok, ok_json, run
from .conftest import Endpoint

BACKGROUND = {"KNOTWORK_ENRICH": "background", "KNOTWORK_EMBEDDER": "none", "KNOTWORK_ENRICH_INTERVAL": "0.2"}


async def facts_soon(endpoint: Endpoint, query: str, add: str | None = None) -> tuple[str, str]:
    """(the first search_facts answer, the first one that names a fact, or the last tried), after ``add``."""
    async with endpoint.client() as client:
        if add is not None:
            await ok(client, "add_memory", {"content": add, "workspace": "w"})
        first = found = await ok(client, "search_facts", {"query": query, "workspace": "w"})
        for _ in range(300):
            if "-->" in found:
                break
            await asyncio.sleep(0.1)
            found = await ok(client, "search_facts", {"query": query, "workspace": "w"})
        return first, found


def test_an_mcp_stdio_server_reads_its_adds_into_the_graph(start_stdio: Callable[..., Endpoint], db: Path) -> None:
    endpoint = start_stdio(db, env=BACKGROUND)
    _, found = run(facts_soon(endpoint, "Alice Moreau", add="Alice Moreau works at Acme and lives in Lisbon."))
    assert "Alice Moreau --works_at--> Acme" in found


def test_serve_reads_in_what_an_earlier_process_left_queued(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "lib", enrich="background", embedder="none", enrich_close_wait=0)
    with knotwork.open(db, settings=settings) as mem:
        mem.enrichment.stop()
        mem.add("Bruno Keller works at Globex.", workspace="w")
        assert mem.graph_backlog() == 1  # closed with the memory still queued
    endpoint = start_http(db, env=BACKGROUND)
    first, found = run(facts_soon(endpoint, "Bruno Keller"))
    assert "Bruno Keller --works_at--> Globex" in found
    with knotwork.open(db, settings=settings) as mem:
        assert mem.graph_backlog() == 0


def test_an_mcp_stdio_server_leaves_no_write_ahead_log_when_its_client_goes_and_keeps_the_rest_queued(
    start_stdio: Callable[..., Endpoint], db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=tmp_path / "lib", enrich="background", embedder="none", enrich_close_wait=0)
    lines = [f"Person{i} Example works at Company{i} and lives in City{i}." for i in range(3000)]
    with knotwork.open(db, settings=settings) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": text, "workspace": "w"} for text in lines], consolidate=False, force=True)
        assert mem.graph_backlog() == 3000
    # A close wait longer than the 2 s the SDK's client gives a server before it kills it.
    # The worker on a thread of the server (what its close waits for): a worker process of its own outlives the
    # server by design and reads the whole backlog in (tests/services/test_enrich_faults.py covers that hand-over).
    endpoint = start_stdio(db, env={**BACKGROUND, "KNOTWORK_ENRICH": "thread", "KNOTWORK_ENRICH_CLOSE_WAIT": "30",
                                    "KNOTWORK_ENRICH_QUIET": "0"})

    async def one_add_then_go() -> int:
        async with endpoint.client() as client:
            await ok(client, "add_memory", {"content": "Alice Moreau works at Acme.", "workspace": "w"})
            # Go once the worker has committed a batch (the write-ahead log has content), however long the
            # machine takes to get there.
            for _ in range(600):
                counts = (await ok_json(client, "get_status", {}))["graph_backlog"]
                waiting = counts.get("pending", 0) + counts.get("running", 0)
                if waiting < 3001:
                    return waiting
                await asyncio.sleep(0.1)
            return waiting

    # The SDK's client kills a server that has not exited 2 s after its stdin closed; on a loaded machine the
    # server may not even reach its close by then. Here it is given the time to exit by itself.
    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 60.0)
    waiting = run(one_add_then_go())
    assert 0 < waiting < 3001  # the client went while the worker was in the middle of the backlog
    # Closing merged the log into the database first: at most the pages of what the close wait read in after
    # that are left in it (a 3000-memory backlog would be MBs).
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size < 512 * 1024
    with knotwork.open(db, settings=settings) as mem:
        left = mem.graph_backlog()
        assert 0 < left < 3001  # read in partly; the rest stays queued for the next process
        assert mem.store.count_memories() == 3001


def _pids(*parts: str) -> list[int]:
    """Live processes whose command line holds every one of ``parts``, each as an argument of its own."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if all(p.encode() in args for p in parts):
            found.append(int(entry.name))
    return found


def _loaded_spacy(pid: int) -> bool:
    try:
        return "/spacy/" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
def test_stdio_servers_and_a_serve_on_one_file_share_one_worker_and_none_loads_the_parser(
    start_stdio: Callable[..., Endpoint], start_http: Callable[..., Endpoint], db: Path
) -> None:
    from contextlib import AsyncExitStack

    http = start_http(db, env=BACKGROUND)
    stdio = start_stdio(db, env={**BACKGROUND, "KNOTWORK_URL": "none"})  # each opens the file itself

    async def go() -> tuple[list[int], list[int], list[int], str]:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(stdio.client()) for _ in range(3)]
            for i, client in enumerate(clients):
                await ok(client, "add_memory", {"content": f"Person{i} Example works at Company{i}.", "workspace": "w"})
            async with http.client() as client:
                for _ in range(600):  # until the three adds are read in (a guard, not a measured time)
                    found = await ok(client, "search_facts", {"query": "Person2 Example", "workspace": "w"})
                    if "Person2 Example --works_at--> Company2" in found:
                        break
                    await asyncio.sleep(0.1)
            workers = _pids("knotwork.adapters.worker", str(db))
            servers = sorted(set(_pids("mcp", "--db", str(db))) | set(_pids("serve", str(db))))
            return workers, servers, [p for p in servers if _loaded_spacy(p)], found

    workers, servers, parsing, found = run(go())
    assert "Person2 Example --works_at--> Company2" in found
    assert len(servers) == 4  # three stdio servers and the HTTP one
    assert len(workers) == 1 and _loaded_spacy(workers[0])  # one worker process reads the graph in, with the parser
    assert parsing == []  # no server loaded it
