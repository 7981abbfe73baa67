"""Memory hygiene through MCP, REST and the CLI, and the MCP catalog read as a client would."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

import knotwork
from knotwork import Knotwork
from knotwork.adapters.mcp import build_server
from knotwork.config import Settings

from tests._cli import run

from ._http import serving
from ._mcp import err, ok


# -- MCP ------------------------------------------------------------------------------------
NAMES = itertools.count()  # every text a client makes up is new, as a new call's would be
def _value(schema: dict[str, Any], world: dict[str, Any], taken: list[str]) -> Any:
    """A valid value for one property, from its schema alone (type, enum, bounds, description)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind, text = schema.get("type"), schema.get("description", "")
    if kind == "string":
        for name in ("memory id", "relationship id", "fact id"):
            if name in text:
                pool = [v for v in world[name] if v not in taken]
                taken.append(pool[0])
                return pool[0]
        return "2030-01-01T00:00:00Z" if "ISO-8601" in text else f"release train {next(world['n'])}"
    if kind in ("integer", "number"):
        return schema.get("default", schema.get("minimum", 1))
    if kind == "boolean":
        return schema.get("default", True)
    if kind == "array":
        return [_value(schema.get("items", {}), world, taken) for _ in range(max(schema.get("minItems", 1), 1))]
    if kind == "object":
        return {}
    raise AssertionError(f"a schema a client cannot fill: {schema}")


def _arguments(tool: Any, world: dict[str, Any]) -> dict[str, Any]:
    """The required properties, then optional ones in listed order while ``minProperties`` asks for more."""
    schema = tool.input_schema
    taken: list[str] = []
    args = {name: _value(schema["properties"][name], world, taken) for name in schema.get("required", [])}
    for name, prop in schema["properties"].items():
        if len(args) >= schema.get("minProperties", 0):
            break
        args.setdefault(name, _value(prop, world, taken))
    return args


def _world(mem: Knotwork) -> dict[str, Any]:
    """Fresh things for a tool to act on: memories, a link between two of them, a fact."""
    a = mem.add("The release train leaves on Tuesdays", consolidate=False, force=True)
    b = mem.add("Release train tickets live in the ops board", consolidate=False, force=True)
    c = mem.add("The release train is owned by Dana", consolidate=False, force=True,
                facts=[{"subject": "release train", "predicate": "owned by", "object": "Dana"}])
    link = mem.link(a.id, b.id, "relates_to")
    fact = mem.search_facts("release train Dana")[0].fact
    return {"memory id": [a.id, b.id, c.id], "relationship id": [link.id], "fact id": [fact.id], "n": NAMES}


def test_a_client_calls_every_tool_from_its_schema_alone(tmp_path: Path) -> None:
    async def go() -> dict[str, str]:
        with knotwork.open(tmp_path / "catalog.db", settings=Settings(home=tmp_path)) as mem:
            async with Client(build_server(mem)) as client:
                tools = (await client.list_tools()).tools
                answers = {}
                for tool in tools:
                    args = _arguments(tool, _world(mem))
                    result = await client.call_tool(tool.name, args)
                    answers[tool.name] = ("ERROR " if result.is_error else "") + result.content[0].text
                return answers

    answers = asyncio.run(go())
    assert len(answers) == 22
    failed = {name: text for name, text in answers.items() if text.startswith("ERROR")}
    assert failed == {}


def test_add_memory_reports_the_decision_over_mcp(tmp_path: Path) -> None:
    async def go() -> list[Any]:
        with knotwork.open(tmp_path / "m.db", settings=Settings(home=tmp_path)) as mem:
            async with Client(build_server(mem, default_workspace="w")) as client:
                first = json.loads(await ok(client, "add_memory", {"content": "The API uses Python 3.11", "format": "json"}))
                second = await ok(client, "add_memory", {"content": "The API uses Python 3.12"})
                ignored = await ok(client, "add_memory", {"content": "maybe the API is slow"})
                forced = await ok(client, "add_memory", {"content": "maybe the API is slow", "force": True})
                bad = await err(client, "add_memory", {"content": "A note", "ttl": "soonish"})
                shared = await ok(client, "search_memory", {"query": "Python API"})
                return [first, second, ignored, forced, bad, shared, mem.store.count_memories()]

    first, second, ignored, forced, bad, shared, count = asyncio.run(go())
    assert first["decision"] == "ADD" and first["touched"] is None and first["workspace"] == "w"
    assert second.startswith("✓ SUPERSEDE") and first["id"] in second
    assert ignored.startswith("✗ IGNORE") and "speculation" in ignored
    assert forced.startswith("✓ Stored")
    assert "✗ Store failed: ttl:" in bad
    hits = [line for line in shared.splitlines() if not line.startswith("  ")]  # relation lines may name the retired one
    assert "3.12" in hits[0] and not any("3.11" in line for line in hits)  # the superseded one is retired
    assert count == 3


# -- REST ---------------------------------------------------------------------------------------
@pytest.fixture
def http(tmp_path: Path) -> Iterator[tuple[httpx2.Client, Knotwork]]:
    with knotwork.open(tmp_path / "api.db", settings=Settings(home=tmp_path)) as mem:
        with serving(mem, default_workspace="shop") as client:
            yield client, mem


def test_rest_add_decisions_stats_duplicates_merge_and_prune(http: tuple[httpx2.Client, Knotwork]) -> None:
    client, mem = http
    r = client.post("/memories", json={"content": "Checkout retries payment twice"})
    assert r.status_code == 201 and r.json()["decision"] == "ADD"
    again = client.post("/memories", json={"content": "checkout retries payment twice."})
    assert again.status_code == 200 and again.json()["decision"] == "NOOP" and again.json()["touched"] == r.json()["id"]
    ignored = client.post("/memories", json={"content": "possibly a CDN issue"})
    assert ignored.status_code == 200 and ignored.json()["decision"] == "IGNORE"
    dup = client.post("/memories", json={"content": "Checkout retries the payment 2 times", "consolidate": False})
    other = client.post("/memories", json={"content": "Checkout retries payment twice", "workspace": "blog"})
    assert dup.status_code == 201 and other.status_code == 201

    groups = client.get("/duplicates", params={"threshold": 0.8, "workspace": "shop"}).json()["groups"]
    assert [sorted(g["ids"]) for g in groups] == [sorted([r.json()["id"], dup.json()["id"]])]
    bad = client.get("/duplicates", params={"threshold": 1.5})
    assert bad.status_code == 400 and "threshold" in bad.json()["error"]["message"]
    across = client.post("/merge", json={"ids": [r.json()["id"], other.json()["id"]]})
    assert across.status_code == 400 and "different workspaces" in across.json()["error"]["message"]
    assert mem.store.count_links() == 0
    merged = client.post("/merge", json={"ids": [r.json()["id"], dup.json()["id"]]}).json()
    assert merged == {"kept": r.json()["id"], "merged": [dup.json()["id"]]}

    expiring = client.post("/memories", json={"content": "Sale banner is live", "ttl": "1h"}).json()
    assert expiring["expires_at"] is not None
    assert client.post("/prune").json()["expired"] == 0
    stats = client.get("/stats").json()
    assert stats["health"]["duplicates_merged"] == 1 and stats["health"]["ignored_adds"] == 1
    assert stats["health"]["orphaned"] == {"links": 0, "vectors": 0, "similar": 0}
    assert stats["by_workspace"] == {"shop": 3, "blog": 1}
    compact = client.get("/stats", params={"format": "compact"}).text
    assert "health: duplicates 1 detected, 1 merged" in compact


# -- CLI --------------------------------------------------------------------------------------------
def test_cli_add_decisions_prune_duplicates_and_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_HOME", str(tmp_path))
    db = str(tmp_path / "cli.db")
    code, out, _ = run(capsys, "add", "The nightly backup runs at 02:00 UTC", "--db", db, "--json")
    first = json.loads(out)
    assert code == 0 and first["decision"] == "ADD"
    code, out, _ = run(capsys, "add", "The nightly backup runs at 03:00 UTC", "--db", db)
    assert code == 0 and out.startswith("✓ SUPERSEDE") and first["id"] in out
    code, out, _ = run(capsys, "add", "The nightly backup runs at 03:00 UTC", "--db", db, "--no-consolidate", "-w", "x")
    assert code == 0 and out.startswith("✓ Stored")
    code, out, _ = run(capsys, "add", "Scratch note for today", "--db", db, "--ttl", "2h", "--json")
    assert json.loads(out)["expires_at"] is not None
    code, out, err_text = run(capsys, "add", "Another note", "--db", db, "--ttl", "2 fortnights")
    assert code == 2 and err_text.startswith("error: ttl:") and out == ""
    code, out, err_text = run(capsys, "duplicates", "--db", db, "-t", "0.1")
    assert code == 2 and "threshold" in err_text
    code, out, err_text = run(capsys, "list", "--db", db, "--agent", "bad*name")
    assert code == 2 and "agent_id" in err_text
    code, out, _ = run(capsys, "prune", "--db", db)
    assert code == 0 and out.startswith("✓ Pruned 0 expired memories")
    code, out, _ = run(capsys, "stats", "--db", db)
    assert code == 0 and "superseded" in out and "orphans 0" in out
    with knotwork.open(db, settings=Settings(home=tmp_path)) as mem:
        assert mem.store.count_memories() == 4
