"""Token-lean answers over MCP: relation_detail, short ids taken back, write failures, --tools core."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import knotwork
from knotwork.adapters.mcp import CORE_TOOLS, build_server
from knotwork.config import Settings

from ._mcp import TOOLS, err, ok, run, shown_ids

NO_VECTORS = Settings(embedder="none")


def _in_process(db: Path, scenario: Callable[[Client], Any], **options: Any) -> Any:
    async def go() -> Any:
        with knotwork.open(db, settings=NO_VECTORS) as mem:
            async with Client(build_server(mem, **options)) as client:
                return await scenario(client)

    return asyncio.run(go())


def _seed(db: Path) -> tuple[str, str]:
    with knotwork.open(db, settings=NO_VECTORS) as mem:
        a = mem.add("Report queries are cached in Redis for ten minutes", category="decision", tags={"team": "platform"},
                    artifacts=["src/reports/cache.py"], evidence=["ADR-014"], metadata={"written_via": "cursor"})
        b = mem.add("Redis runs with allkeys-lru eviction", artifacts=["ops/redis.conf", "ops/ttl.md"])
        return a.id, b.id


def test_relation_detail_shapes_the_search_answer(db: Path) -> None:
    a, b = _seed(db)

    async def scenario(client: Client) -> dict[str, Any]:
        out = {d: await ok(client, "search_memory", {"query": "Redis", "relation_detail": d}) for d in
               ("none", "minimal", "standard", "full")}
        out["default"] = await ok(client, "search_memory", {"query": "Redis"})
        out["json"] = json.loads(await ok(client, "search_memory", {"query": "Redis", "format": "json", "relation_detail": "minimal"}))
        out["bad"] = await err(client, "search_memory", {"query": "Redis", "relation_detail": "everything"})
        return out

    out = _in_process(db, scenario)
    assert set(shown_ids(db, out["none"])) == {a, b}
    assert all(not line.startswith("  ") for line in out["none"].splitlines())
    assert "  artifact: src/reports/cache.py" in out["minimal"] and "tags:" not in out["minimal"]
    assert "  tags: team=platform" in out["standard"] and "  evidence: ADR-014" in out["standard"]
    assert "  artifacts: ops/redis.conf, ops/ttl.md" in out["standard"]
    assert out["default"] == out["standard"]
    assert "  written_via app=cursor" in out["full"] and "cursor" not in out["standard"]
    by_id = {h["memory"]["id"]: h["relations"] for h in out["json"]["hits"]}
    assert by_id == {a: {"artifact": "src/reports/cache.py"}, b: {"artifacts": ["ops/redis.conf", "ops/ttl.md"]}}
    assert "relation_detail" in out["bad"]


def test_every_id_tool_takes_back_the_ids_search_shows(db: Path) -> None:
    a, b = _seed(db)

    async def scenario(client: Client) -> list[str]:
        found = await ok(client, "search_memory", {"query": "Redis eviction"})
        refs = [line.split()[0] for line in found.splitlines() if not line.startswith("  ")]
        assert all(len(r) < 26 for r in refs)  # short ids were shown
        by_full = dict(zip(shown_ids(db, found), refs))
        ra, rb = by_full[a], by_full[b]
        assert json.loads(await ok(client, "get_memory", {"id": rb, "format": "json"}))["id"] == b
        linked = json.loads(await ok(client, "link_memories", {"from_id": ra, "to_id": rb, "type": "relates_to", "format": "json"}))
        assert (linked["from"], linked["to"]) == (a, b)
        related = await ok(client, "get_related_memories", {"id": rb})
        graph = await ok(client, "get_memory_graph", {"id": ra})
        updated = await ok(client, "update_memory", {"id": ra, "importance": 0.9})
        deleted = await ok(client, "delete_memory", {"id": rb})
        return [related, graph, updated, deleted, ra, rb]

    related, graph, updated, deleted, ra, rb = _in_process(db, scenario)
    assert related.startswith(f"d1 {ra} -relates_to-> {rb}: ")  # a reached from b, through a --relates_to--> b
    assert graph.startswith("graph of ") and "2 nodes, 1 edges" in graph
    assert updated == f"✓ Updated {a} (now v2)" and deleted.startswith(f"✓ Deleted {b}")


def test_a_failed_write_says_so(db: Path) -> None:
    async def scenario(client: Client) -> tuple[str, str, str]:
        return (
            await err(client, "delete_memory", {"id": "00000000000000000000000000"}),
            await err(client, "add_memory", {"content": "   "}),
            await err(client, "get_memory", {"id": "00000000000000000000000000"}),
        )

    deleted, added, got = _in_process(db, scenario)
    # The SDK puts "Error executing tool <name>: " before every tool error's text.
    assert deleted == "Error executing tool delete_memory: ✗ Delete failed: no memory matches id '00000000000000000000000000'"
    assert added.startswith("Error executing tool add_memory: ✗ Store failed: content") and "empty" in added
    assert got == "Error executing tool get_memory: no memory matches id '00000000000000000000000000'"  # not a write


def test_core_tools_in_process(db: Path) -> None:
    async def names(client: Client) -> set[str]:
        return {t.name for t in (await client.list_tools()).tools}

    core = _in_process(db, names, tools="core")
    assert core == CORE_TOOLS & _in_process(db, names) == TOOLS | {"ambient_recall"}
    with knotwork.open(db, settings=NO_VECTORS) as mem, pytest.raises(ValueError, match="tools must be one of all, core"):
        build_server(mem, tools="some")


def test_knotwork_mcp_tools_core_over_stdio(db: Path, start_stdio: Callable[..., Any]) -> None:
    server = start_stdio(db, "--tools", "core", env={"KNOTWORK_EMBEDDER": "none"})

    async def scenario() -> tuple[set[str], str]:
        async with server.client() as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            await ok(client, "add_memory", {"content": "core tools still store and find"})
            return tools, await ok(client, "search_memory", {"query": "core tools"})

    tools, found = run(scenario())
    assert tools == TOOLS | {"ambient_recall"}
    assert len(shown_ids(db, found)) == 1


def test_the_catalog_carries_no_generated_titles_or_null_unions(db: Path) -> None:
    async def scenario(client: Client) -> tuple[list[Any], str, str]:
        tools = (await client.list_tools()).tools
        # the published schema is slimmer, validation is not: explicit nulls pass, wrong types fail
        fine = await ok(client, "search_memory", {"query": "anything", "workspace": None, "tags": None})
        wrong = await err(client, "search_memory", {"query": "anything", "limit": "ten"})
        return tools, fine, wrong

    tools, fine, wrong = _in_process(db, scenario)
    for tool in tools:
        text = json.dumps(tool.input_schema)
        assert '"title"' not in text and '{"type": "null"}' not in text, tool.name
    search = next(t for t in tools if t.name == "search_memory").input_schema["properties"]
    assert search["workspace"]["type"] == "string" and "default" not in search["workspace"]
    assert search["limit"] == {"default": 10, "maximum": 100, "minimum": 1, "type": "integer"}
    assert search["relation_detail"]["enum"] == ["none", "minimal", "standard", "full"]
    assert fine == "No matching memories." and "limit" in wrong


def test_the_server_records_token_metrics_when_a_file_is_set(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    db = tmp_path / "m.db"

    async def go() -> str:
        with knotwork.open(db, settings=Settings(embedder="none", metrics_file=path)) as mem:
            async with Client(build_server(mem)) as client:
                await ok(client, "add_memory", {"content": "Metrics are written per call", "artifacts": ["a.py"]})
                sent = await ok(client, "search_memory", {"query": "metrics per call", "relation_detail": "minimal"})
                await ok(client, "search_facts", {"query": "metrics"})  # a knowledge-graph tool: recorded too
                return sent

    sent = asyncio.run(go())
    from knotwork.metrics import count_tokens, read

    records = read(path)
    assert [(r["operation"], r["relation_detail"]) for r in records] == [
        ("add", "standard"),
        ("search", "minimal"),
        ("search_facts", "standard"),
    ]
    assert records[1]["sent_tokens"] == count_tokens(sent) < records[1]["raw_tokens"]
