"""A query with no letters or digits is refused on every surface: the CLI (exit 2, one line), REST (400 JSON
naming the field) and MCP (a tool error), and ``search -`` still reads the query from stdin."""

from __future__ import annotations

import subprocess
from pathlib import Path

import knotwork
from knotwork import Settings

from ._http import serving
from ._mcp import err, ok, run
from ._rest import error_of
from .conftest import KNOTWORK, clean_env

MESSAGE = "has no letters or digits, so nothing can match it; give some words to search for"


def seeded(db: Path) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add("Deploys need two approvals", workspace="ops")


def cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KNOTWORK, *args], env=clean_env(home, {"KNOTWORK_URL": "none", "KNOTWORK_EMBEDDER": "none"}),
                          input=stdin, capture_output=True, text=True, timeout=120,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def test_the_cli_refuses_with_exit_2_and_one_line(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seeded(db)
    r = cli(tmp_path, "search", "???", "--db", str(db), "-w", "ops")
    assert (r.returncode, r.stdout) == (2, "") and r.stderr == f"error: query: '???' {MESSAGE}\n"
    r = cli(tmp_path, "search", "-", "--db", str(db), "-w", "ops", stdin="...\n")  # `-` reads stdin: "..." is refused
    assert r.returncode == 2 and r.stderr == f"error: query: '...' {MESSAGE}\n"
    r = cli(tmp_path, "search", "-", "--db", str(db), "-w", "ops", stdin="deploys approvals\n")
    assert r.returncode == 0 and "Deploys need two approvals" in r.stdout


def test_rest_answers_400_naming_the_query(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seeded(db)
    with knotwork.open(db, settings=Settings(embedder="none")) as mem, serving(mem) as http:
        for path in ("/search", "/search/entities"):
            body = error_of(http.post(path, json={"query": "-", "workspace": "ops"}), 400)
            assert body["field"] == "query" and MESSAGE in body["message"]
        assert http.post("/search", json={"query": "deploys", "workspace": "ops"}).json()["hits"]


def test_mcp_answers_a_tool_error(start_stdio, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seeded(db)
    server = start_stdio(db, env={"KNOTWORK_EMBEDDER": "none"})

    async def calls(client):
        async with client:
            refused = [await err(client, tool, {"query": "???", "workspace": "ops"}) for tool in ("search_memory", "search_nodes")]
            found = await ok(client, "search_memory", {"query": "deploys", "workspace": "ops"})
            return refused, found

    refused, found = run(calls(server.client()))
    assert all("query" in e and MESSAGE in e for e in refused), refused
    assert "Deploys need two approvals" in found
