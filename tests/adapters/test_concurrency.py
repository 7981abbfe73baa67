"""Several processes writing one database file at the same time lose nothing and fail nothing."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import knotwork

from ._mcp import ID_RE, count, ok, run, text
from .conftest import Endpoint, clean_env

PER_WRITER = 400
# The 2 x 400-write tests are about locking, not search: they switch embeddings off (a real setting,
# ignored by versions without embeddings) so that embedding their texts on two shared cores does not
# dominate the suite's time. The many-calls-in-flight test keeps the default embedder.
NO_EMBEDDINGS = {"KNOTWORK_EMBEDDER": "none"}


def stored(db: Path) -> dict[str, str]:
    """id -> content of every memory in ``db``."""
    with knotwork.open(db) as mem:
        assert mem.store.count_memories() == sum(1 for _ in mem.store.iter_memories())
        return {m.id: m.content for m in mem.store.iter_memories()}


def test_two_mcp_stdio_servers_on_one_file(db: Path, start_stdio: Callable[..., Endpoint]) -> None:
    server = start_stdio(db, env=NO_EMBEDDINGS)  # the file does not exist yet: the first server creates it

    async def writer(client: Client, name: str) -> tuple[list[str], list[str], float, float]:
        ids: list[str] = []
        errors: list[str] = []
        started = time.monotonic()
        for i in range(PER_WRITER):
            result = await client.call_tool("add_memory", {"content": f"{name} memory {i}", "tags": {"writer": name}})
            if result.is_error:
                errors.append(f"{name} #{i}: {text(result)}")
            else:
                ids += ID_RE.findall(text(result))
        return ids, errors, started, time.monotonic()

    async def scenario() -> list[tuple[list[str], list[str], float, float]]:
        async with server.client() as one, server.client() as two:
            return list(await asyncio.gather(writer(one, "alpha"), writer(two, "beta")))

    (ids_a, errors_a, start_a, end_a), (ids_b, errors_b, start_b, end_b) = run(scenario())

    assert errors_a + errors_b == []
    assert max(start_a, start_b) < min(end_a, end_b), "the two writers did not overlap"
    assert len(ids_a) == len(ids_b) == PER_WRITER
    assert count(db) == 2 * PER_WRITER
    memories = stored(db)
    assert set(memories) == set(ids_a) | set(ids_b)
    assert {memories[i] for i in ids_a} == {f"alpha memory {i}" for i in range(PER_WRITER)}
    assert {memories[i] for i in ids_b} == {f"beta memory {i}" for i in range(PER_WRITER)}
    with knotwork.open(db) as mem:
        assert len(mem.list(tags={"writer": "beta"}, limit=1000)) == PER_WRITER


def test_one_mcp_server_handles_many_calls_in_flight(db: Path, start_stdio: Callable[..., Endpoint]) -> None:
    """The server runs sync tools on worker threads: concurrent calls share one SQLite connection."""
    server = start_stdio(db)
    n = 60

    async def scenario() -> list[Any]:
        async with server.client() as client:
            await ok(client, "add_memory", {"content": "seed memory about concurrency"})
            calls = []
            for i in range(n):
                calls.append(client.call_tool("add_memory", {"content": f"in flight {i}"}))
                calls.append(client.call_tool("search_memory", {"query": "concurrency flight"}))
                calls.append(client.call_tool("list_memories", {"limit": 5}))
            return list(await asyncio.gather(*calls))

    results = run(scenario())
    errors = [text(r) for r in results if r.is_error]
    assert errors == []
    added = {i for r in results[0::3] for i in ID_RE.findall(text(r))}
    assert len(added) == n
    memories = stored(db)
    assert len(memories) == n + 1 and added <= set(memories)


CHILD = r"""
import json, sys, time
from pathlib import Path
import knotwork

db, name, n, ready, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])
mem = knotwork.open(db)
ready.touch()
deadline = time.monotonic() + 60
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("never told to start")
    time.sleep(0.001)
started = time.time()
ids = [mem.add(f"{name} memory {i}").id for i in range(n)]
ended = time.time()
mem.close()
print(json.dumps({"ids": ids, "started": started, "ended": ended}))
"""


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def test_two_python_processes_on_one_file(db: Path, tmp_path: Path, children: list[subprocess.Popen[str]]) -> None:
    go = tmp_path / "go"
    env = clean_env(tmp_path / "home", NO_EMBEDDINGS)
    for name in ("alpha", "beta"):
        children.append(
            subprocess.Popen(
                [sys.executable, "-c", CHILD, str(db), name, str(PER_WRITER), str(tmp_path / f"ready-{name}"), str(go)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
        )
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{name}").exists() for name in ("alpha", "beta")):
        for proc in children:
            if proc.poll() is not None:
                pytest.fail(f"a writer exited before starting (exit {proc.returncode}): {proc.stderr.read()}")
        if time.monotonic() > deadline:
            pytest.fail("the writers did not open the database within 60 s")
        time.sleep(0.01)
    go.touch()  # both start now

    reports = []
    for proc in children:
        out, errout = proc.communicate(timeout=120)
        assert proc.returncode == 0, errout
        reports.append(json.loads(out))

    alpha, beta = reports
    assert max(alpha["started"], beta["started"]) < min(alpha["ended"], beta["ended"]), "the writers did not overlap"
    assert count(db) == 2 * PER_WRITER
    memories = stored(db)
    assert set(memories) == set(alpha["ids"]) | set(beta["ids"])
    assert {memories[i] for i in alpha["ids"]} == {f"alpha memory {i}" for i in range(PER_WRITER)}
    assert {memories[i] for i in beta["ids"]} == {f"beta memory {i}" for i in range(PER_WRITER)}


def _server_processes(port: int) -> set[int]:
    """The `knotwork serve --port PORT` process and its children (its worker processes)."""
    parents = set()
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if b"serve" in argv and str(port).encode() in argv:
            parents.add(int(entry.name))
    children = set()
    for pid in parents:
        for task in Path(f"/proc/{pid}/task").iterdir():
            children |= {int(c) for c in (task / "children").read_text().split()}
    return parents | children


def test_serve_with_worker_processes_shares_one_store(db: Path, start_http: Callable[..., Endpoint]) -> None:
    import httpx

    server = start_http(db, "--workers", "2", env={**NO_EMBEDDINGS, "KNOTWORK_KG_EXTRACT": "none"})
    assert server.base_url is not None
    port = int(server.base_url.rsplit(":", 1)[1])
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        deadline = time.monotonic() + 60
        while http.get("/status").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        ids = []
        for i in range(30):  # new connections each time, so both processes take some
            with httpx.Client(base_url=server.base_url, timeout=60) as one:
                ids.append(one.post("/memories", json={"content": f"worker note {i} on the payment retries"}).json()["id"])
        for i, mid in enumerate(ids):  # every write is seen by every process
            with httpx.Client(base_url=server.base_url, timeout=60) as one:
                got = one.get(f"/memories/{mid}")
                assert got.status_code == 200 and got.json()["content"] == f"worker note {i} on the payment retries"
                hits = one.post("/search", json={"query": f"worker note {i} payment retries", "limit": 3}).json()["hits"]
                assert mid in [h["memory"]["id"] for h in hits]
    assert len(_server_processes(port)) >= 3  # the parent and its two workers
    assert len(stored(db)) == 30


def test_mcp_over_http_works_whichever_worker_process_takes_each_request(
    db: Path, start_http: Callable[..., Endpoint]
) -> None:
    """`serve --workers 2`: an MCP client's messages may reach either process (each connection goes to the one
    that accepted it, and the SDK client opens several), so no message may depend on a session kept in one."""
    server = start_http(db, "--workers", "2", env={**NO_EMBEDDINGS, "KNOTWORK_KG_EXTRACT": "none"})

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, result
        return "".join(c.text for c in result.content if c.type == "text")

    async def one_client(i: int) -> list[str]:
        # The SDK's transport as MCP hosts use it: its POSTs, its GET stream and its closing DELETE each take a
        # connection of their own from the pool, so they reach different processes.
        async with streamable_http_client(f"{server.base_url}/mcp") as (read, write, *_), ClientSession(read, write) as session:
            await session.initialize()
            ids = [ID_RE.findall(await call(session, "add_memory", {"content": f"client {i} note {j} on retries"}))[0]
                   for j in range(3)]
            found = await call(session, "search_memory", {"query": f"client {i} note retries", "limit": 10})
            assert all(mid[-8:] in found for mid in ids), found  # short ids: the last 8 characters
            return ids

    async def scenario() -> list[list[str]]:
        return [await one_client(i) for i in range(8)]

    ids = [mid for batch in run(scenario()) for mid in batch]
    assert len(set(ids)) == 24 and len(stored(db)) == 24


def test_rest_mcp_http_and_mcp_stdio_write_one_file_at_once(
    db: Path, start_http: Callable[..., Endpoint], start_stdio: Callable[..., Endpoint]
) -> None:
    """Three writers through three surfaces at once — REST and MCP over HTTP on one `knotwork serve`, MCP over
    stdio in its own process — on one SQLite file: exactly their writes, each once, and a clean check."""
    import httpx

    per = 150
    env = {**NO_EMBEDDINGS, "KNOTWORK_KG_EXTRACT": "none"}
    http_server = start_http(db, env=env)
    stdio_server = start_stdio(db, env=env)
    assert http_server.base_url is not None

    def rest_writer() -> list[str]:
        with httpx.Client(base_url=http_server.base_url, timeout=60) as http:
            return [http.post("/memories", json={"content": f"rest note {i}", "tags": {"via": "rest"}}).json()["id"]
                    for i in range(per)]

    async def mcp_writer(endpoint: Endpoint, name: str) -> list[str]:
        ids = []
        async with endpoint.client() as client:
            for i in range(per):
                ids += ID_RE.findall(await ok(client, "add_memory", {"content": f"{name} note {i}", "tags": {"via": name}}))
        return ids

    async def scenario() -> list[list[str]]:
        return list(await asyncio.gather(
            asyncio.to_thread(rest_writer), mcp_writer(http_server, "mcp-http"), mcp_writer(stdio_server, "mcp-stdio")
        ))

    rest_ids, http_ids, stdio_ids = run(scenario())
    memories = stored(db)
    assert len(memories) == 3 * per
    for name, ids in (("rest", rest_ids), ("mcp-http", http_ids), ("mcp-stdio", stdio_ids)):
        assert len(set(ids)) == per and {memories[i] for i in ids} == {f"{name} note {i}" for i in range(per)}
    with knotwork.open(db, settings=knotwork.Settings(embedder="none")) as mem:
        report = mem.check()
        assert report.ok, report.to_dict()
