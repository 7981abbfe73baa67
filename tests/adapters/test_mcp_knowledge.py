"""The knowledge-graph MCP tools over stdio, with the SDK's real client and a real server process."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client

import knotwork

from ._mcp import Session, err, ok, ok_json
from .conftest import Endpoint

NO_EMBEDDER = {"KNOTWORK_EMBEDDER": "none"}


@pytest.fixture(scope="class")
def session(start_stdio_shared: Callable[..., Endpoint], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    db = tmp_path_factory.mktemp("kg") / "memory.db"
    endpoint = start_stdio_shared(db, "--workspace", "shop", env=NO_EMBEDDER)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(endpoint.client()) as client:
        yield Session(portal, client, db)


@pytest.fixture(scope="class")
def owner(start_stdio_shared: Callable[..., Endpoint], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A server started without a workspace: the owner's, for every workspace and the store-wide tools
    (``--workspace`` limits a server's calls to that workspace)."""
    db = tmp_path_factory.mktemp("kg-owner") / "memory.db"
    endpoint = start_stdio_shared(db, env=NO_EMBEDDER)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(endpoint.client()) as client:
        yield Session(portal, client, db)


class TestKnowledgeTools:
    def test_add_memory_invites_entities_and_facts(self, session: Session) -> None:
        async def scenario(client: Client) -> dict:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools["add_memory"].input_schema["properties"]

        props = session.run(scenario)
        assert "entities" in props and "facts" in props
        assert "retires" in props["facts"]["description"]

    def test_facts_from_the_caller_and_the_rules_then_search_and_delete(self, session: Session) -> None:
        async def scenario(client: Client) -> tuple[str, str, dict, str, str]:
            await ok(client, "add_memory", {
                "content": "Ana lives in Boston.", "valid_at": "2025-01-01",
                "facts": [{"subject": "Ana", "predicate": "lives in", "object": "Boston"}],
            })
            await ok(client, "add_memory", {
                "content": "The ReportsModule uses Redis for caching.", "valid_at": "2026-01-03",
                "entities": [{"name": "Redis", "type": "library", "summary": "in-memory cache"}],
            })
            await ok(client, "add_memory", {
                "content": "Ana moved.", "valid_at": "2026-02-01",
                "facts": [{"subject": "Ana", "predicate": "lives in", "object": "Berlin"}],
            })
            nodes = await ok(client, "search_nodes", {"query": "redis"})
            current = await ok(client, "search_facts", {"query": "Ana lives"})
            everything = await ok_json(client, "search_facts", {"query": "Ana lives", "include_invalid": True})
            past = await ok(client, "search_facts", {"query": "Ana lives", "as_of": "2025-06-01"})
            episodes = await ok(client, "get_episodes", {"limit": 5})
            groups = await ok_json(client, "get_communities", {"entity": "Ana"})
            return nodes, current, everything, past, episodes, groups

        nodes, current, everything, past, episodes, groups = session.run(scenario)
        assert [set(c["members"]) for c in groups["communities"]] == [{"Ana", "Berlin"}]
        assert nodes.startswith('Found ') and '1. Redis [library] @shop (community: Redis, ReportsModule) - in-memory cache' in nodes
        assert "Ana --lives_in--> Berlin (since 2026-02-01; caller 1)" in current and "Boston" not in current
        assert "Ana --lives_in--> Boston" in past and "Berlin" not in past
        facts = [h["fact"] for h in everything["facts"]]
        assert [f["object"]["name"] for f in facts] == ["Berlin", "Boston"]
        assert facts[1]["invalid_at"].startswith("2026-02-01") and facts[1]["superseded_by"] == facts[0]["id"]
        assert "{Redis, ReportsModule} 1 fact" in episodes

        berlin = facts[0]["id"]

        async def delete(client: Client) -> tuple[str, str, str]:
            gone = await ok(client, "delete_fact", {"id": berlin[-8:]})
            now = await ok(client, "search_facts", {"query": "Ana lives"})
            missing = await err(client, "delete_fact", {"id": berlin})
            return gone, now, missing

        gone, now, missing = session.run(delete)
        assert gone.startswith("✓ Deleted fact Ana --lives_in--> Berlin")
        assert "Ana --lives_in--> Boston (since 2025-01-01; caller 1)" in now
        assert "no fact matches" in missing

    def test_bad_graph_input_is_a_tool_error(self, session: Session) -> None:
        async def scenario(client: Client) -> str:
            return await err(client, "add_memory", {"content": "x y z", "facts": [{"subject": "a", "predicate": "p"}]})

        assert "facts[0].object: is missing" in session.run(scenario)

    def test_search_facts_min_confidence(self, session: Session) -> None:
        async def scenario(client: Client) -> tuple[str, str, dict, str]:
            await ok(client, "add_memory", {
                "content": "Bo's editors", "facts": [{"subject": "Bo", "predicate": "uses", "object": "Helix"},
                                                      {"subject": "Bo", "predicate": "uses", "object": "Kakoune", "confidence": 0.25}],
            })
            every = await ok(client, "search_facts", {"query": "Bo uses"})
            sure = await ok(client, "search_facts", {"query": "Bo uses", "min_confidence": 0.5})
            shaped = await ok_json(client, "search_facts", {"query": "Bo uses", "min_confidence": 0.2})
            bad = await err(client, "search_facts", {"query": "Bo uses", "min_confidence": 1.5})
            return every, sure, shaped, bad

        every, sure, shaped, bad = session.run(scenario)
        assert "Bo --uses--> Kakoune (" in every and "; caller 0.25) id " in every and "Bo --uses--> Helix" in every
        assert "Kakoune" not in sure and "Bo --uses--> Helix" in sure
        bo = {(h["fact"]["object"]["name"], h["fact"]["confidence"]) for h in shaped["facts"] if h["fact"]["subject"]["name"] == "Bo"}
        assert bo == {("Helix", 1.0), ("Kakoune", 0.25)}
        assert "min_confidence" in bad

    def test_clear_graph_needs_confirm(self, owner: Session) -> None:
        session = owner
        async def scenario(client: Client) -> tuple[str, str, str]:
            await ok(client, "add_memory", {"content": "The Blog uses Hugo.", "workspace": "blog"})
            await ok(client, "add_memory", {"content": "The Shop caches pages in Redis.", "workspace": "shop"})
            refused = await err(client, "clear_graph", {"confirm": False, "workspace": "blog"})
            done = await ok(client, "clear_graph", {"confirm": True, "workspace": "blog"})
            after = await ok(client, "search_nodes", {"query": "hugo", "workspace": "blog"})
            return refused, done, after

        refused, done, after = session.run(scenario)
        assert "confirm" in refused
        assert re.match(r"✓ Cleared the graph of workspace blog: \d+ entities, \d+ facts", done)
        assert after.startswith("No entities found")
        with knotwork.open(session.db, settings=knotwork.Settings(embedder="none")) as mem:
            assert mem.search_nodes("redis", workspace="shop")  # other workspaces untouched

    def test_extraction_status_tool(self, owner: Session, session: Session) -> None:
        async def scenario(client: Client) -> tuple[dict, str]:
            status = await ok_json(client, "get_extraction_status", {})
            bad = await err(client, "get_extraction_status", {"status": "stuck"})
            return status, bad

        status, bad = owner.run(scenario)
        # this server has no LLM configured: nothing is queued, and it says so
        assert status["enabled"] is False and status["counts"] == {"pending": 0, "running": 0, "done": 0, "failed": 0}
        assert "status" in bad

        async def limited(client: Client) -> str:
            return await err(client, "get_extraction_status", {})

        # the queue is the whole store's: a server limited to a workspace keeps it to the owner
        assert "unrestricted caller" in session.run(limited)
