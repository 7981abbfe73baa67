"""``knotwork mcp`` over stdio goes through a running server of the same database: one process holds the models.

Real processes throughout: ``knotwork serve`` on a free loopback port, ``knotwork mcp`` launched by the
official MCP SDK client (through ``sh`` only to learn its pid and keep its stderr), the database checked
through the Python API afterwards.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

import knotwork

from .conftest import CALL_TIMEOUT_S, KNOTWORK, HttpLauncher, clean_env, free_port
from ._mcp import ok, text


def _stdio(home: Path, run: Path, env: dict[str, str]) -> Client:
    """A client of ``knotwork mcp`` (no --db: the default database of ``home``); its pid and stderr land in ``run``."""
    script = f'echo $$ > "{run}/pid"; exec "{KNOTWORK}" mcp 2> "{run}/stderr"'
    params = StdioServerParameters(command="sh", args=["-c", script], env=clean_env(home, env))
    return Client(params, read_timeout_seconds=CALL_TIMEOUT_S)


def _mapped(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_stdio_mcp_goes_through_the_server_and_loads_no_model(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    served = launcher.start(home / "knotwork.db")
    port = served.base_url.rsplit(":", 1)[1]
    run = tmp_path / "run"
    run.mkdir()

    async def scenario() -> tuple[str, str, str]:
        async with _stdio(home, run, {"KNOTWORK_PORT": port}) as client:
            added = await ok(client, "add_memory", {"content": "The release train leaves every second Thursday", "workspace": "ops"})
            found = await ok(client, "search_memory", {"query": "when does the release train leave", "workspace": "ops"})
            maps = _mapped(int((run / "pid").read_text()))
            return added, found, maps

    added, found, maps = anyio.run(scenario)
    assert added.startswith("✓ Stored ") and "second Thursday" in found
    assert "through the server at http://127.0.0.1:" in (run / "stderr").read_text()
    # the stdio process holds neither the embedding model's runtime nor numpy: the server did the work
    assert "onnxruntime" not in maps and "_multiarray_umath" not in maps
    with knotwork.open(home / "knotwork.db") as mem:  # the server wrote it, to the database it serves
        assert [m.content for m in mem.list(workspace="ops")] == ["The release train leaves every second Thursday"]


def test_through_the_server_the_callers_scope_is_the_servers(launcher: HttpLauncher, tmp_path: Path) -> None:
    """A token bound to one workspace: through the server, the stdio session may use that one only."""
    home = tmp_path / "home"
    made = subprocess.run([KNOTWORK, "token", "create", "--name", "agent", "-w", "team-a"], env=clean_env(home),
                          capture_output=True, text=True, check=True)
    token = made.stdout.strip()
    served = launcher.start(home / "knotwork.db")
    port = served.base_url.rsplit(":", 1)[1]
    run = tmp_path / "run"
    run.mkdir()

    async def scenario() -> tuple[str, object]:
        async with _stdio(home, run, {"KNOTWORK_PORT": port, "KNOTWORK_API_TOKEN": token}) as client:
            mine = await ok(client, "add_memory", {"content": "Team A deploys from the main branch", "workspace": "team-a"})
            other = await client.call_tool("add_memory", {"content": "Team B deploys on Fridays", "workspace": "team-b"})
            return mine, other

    mine, other = anyio.run(scenario)
    assert mine.startswith("✓ Stored ")
    assert other.is_error and "team-b" in text(other)
    assert "through the server" in (run / "stderr").read_text()
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.store.count_memories() == 1


def test_a_server_of_another_database_is_not_used(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    served = launcher.start(tmp_path / "other.db")
    port = served.base_url.rsplit(":", 1)[1]
    run = tmp_path / "run"
    run.mkdir()

    async def scenario() -> str:
        async with _stdio(home, run, {"KNOTWORK_PORT": port, "KNOTWORK_EMBEDDER": "none"}) as client:
            return await ok(client, "add_memory", {"content": "Kept in this session's own database"})

    assert anyio.run(scenario).startswith("✓ Stored ")
    assert "through the server" not in (run / "stderr").read_text()
    with knotwork.open(home / "knotwork.db", settings=knotwork.Settings(embedder="none")) as mem:
        assert mem.store.count_memories() == 1
    with knotwork.open(tmp_path / "other.db") as mem:
        assert mem.store.count_memories() == 0


def test_a_named_server_that_does_not_answer_is_an_error(tmp_path: Path) -> None:
    dead = free_port()
    done = subprocess.run([KNOTWORK, "mcp"], env=clean_env(tmp_path / "home", {"KNOTWORK_URL": f"http://127.0.0.1:{dead}"}),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: no knotwork server answers at http://127.0.0.1:{dead} (KNOTWORK_URL); unset it or set it to none"]
    assert not (tmp_path / "home" / "knotwork.db").exists()  # nothing opened in its place
