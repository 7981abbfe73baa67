"""Workspaces as an access boundary over MCP: streamable HTTP at ``/mcp`` (each call in the scope of the
token of the request it came in) and stdio (``knotwork mcp -w lab``, limited like ``serve -w``).

A caller limited to lab calls every tool and reads every resource on shop's memories, links, entities and
facts: each answer is a tool error (not found, or refused), and none shows one of shop's ids or words; its
own workspace and the global scope still work.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ._mcp import http_session, text
from ._scoped import FAST, OWNER, SHOP_TEXT, Store, seed
from .conftest import Endpoint

MISSING, REFUSED, OK = "missing", "refused", "ok"
Call = tuple[str, dict[str, Any], str]


def calls(s: Store) -> list[Call]:
    """(tool, arguments, what a caller limited to lab must get)."""
    out: list[Call] = []
    for ref in (s.shop, s.shop[-10:]):
        out += [
            ("get_memory", {"id": ref}, MISSING),
            ("get_memory", {"id": ref, "format": "json"}, MISSING),
            ("update_memory", {"id": ref, "content": "taken over"}, MISSING),
            ("delete_memory", {"id": ref}, MISSING),
            ("get_related_memories", {"id": ref}, MISSING),
            ("get_memory_graph", {"id": ref}, MISSING),
            ("link_memories", {"from_id": s.lab, "to_id": ref, "type": "relates_to"}, MISSING),
            ("link_memories", {"from_id": ref, "to_id": s.glob, "type": "relates_to"}, MISSING),
            ("merge_memories", {"ids": [s.lab, ref]}, MISSING),
        ]
    out += [
        ("unlink_memories", {"relationship_id": s.shop_link}, MISSING),
        ("unlink_memories", {"relationship_id": s.shop_link[-10:]}, MISSING),
        ("delete_fact", {"id": s.shop_fact}, MISSING),
        ("get_communities", {"workspace": "lab", "entity": s.shop_entity}, MISSING),
        ("search_nodes", {"query": "deploys", "center": s.shop_entity, "workspace": "lab"}, MISSING),
        ("search_facts", {"query": "deploys", "center": "Shopfront", "workspace": "lab"}, MISSING),
        ("get_memory", {"id": s.prefix}, REFUSED),  # ambiguous among lab's own memories only
    ]
    for ws in ("shop", "*"):
        out += [
            ("add_memory", {"content": "planted", "workspace": ws}, REFUSED),
            ("search_memory", {"query": "deploys", "workspace": ws}, REFUSED),
            ("list_memories", {"workspace": ws}, REFUSED),
            ("search_nodes", {"query": "deploys", "workspace": ws}, REFUSED),
            ("search_facts", {"query": "deploys", "workspace": ws}, REFUSED),
            ("get_episodes", {"workspace": ws}, REFUSED),
            ("clear_graph", {"workspace": ws, "confirm": True}, REFUSED),
            ("get_communities", {"workspace": ws}, REFUSED),
            ("ambient_recall", {"workspace": ws}, REFUSED),
            ("find_duplicates", {"workspace": ws}, REFUSED),
        ]
    out += [
        ("update_memory", {"id": s.glob, "content": "planted over global"}, REFUSED),
        ("get_memory_stats", {}, REFUSED),
        ("get_extraction_status", {}, REFUSED),
        # in scope
        ("get_memory", {"id": s.lab[-10:]}, OK),
        ("search_memory", {"query": "deploys", "workspace": "lab", "relation_detail": "full"}, OK),
        ("list_memories", {"workspace": "lab", "limit": 50}, OK),
        ("get_related_memories", {"id": s.glob}, OK),
        ("get_memory_graph", {"id": s.glob}, OK),
        ("search_nodes", {"query": "Labrunner", "workspace": "lab"}, OK),
        ("search_facts", {"query": "deploys", "workspace": "lab"}, OK),
        ("get_episodes", {"workspace": "lab"}, OK),
        ("get_communities", {"workspace": "lab"}, OK),
        ("ambient_recall", {"workspace": "lab"}, OK),
        ("get_status", {"format": "json"}, OK),
        ("add_memory", {"content": "A lab note about ovens", "workspace": "lab"}, OK),
    ]
    return out


RESOURCES = ("memory://memory/{shop}/related", "memory://graph/{shop}")


async def _run(make: Callable[[], Any], s: Store) -> dict[str, Any]:
    """Every call of :func:`calls` and every resource, on one session; (call, is_error, text) each."""
    out: dict[str, Any] = {"calls": [], "resources": []}
    async with make() as mcp:
        for tool, args, want in calls(s):
            result = await mcp.call_tool(tool, args)
            out["calls"].append(((tool, args, want), bool(result.is_error), text(result)))
        for uri in RESOURCES:
            try:
                read = await mcp.read_resource(uri.format(shop=s.shop))
                out["resources"].append((uri.format(shop=s.shop), False, str(read)))
            except Exception as exc:  # the SDK raises a failed read
                out["resources"].append((uri.format(shop=s.shop), True, str(exc)))
        listing = await mcp.read_resource("memory://relationships")
        out["relationships"] = str(listing)
    return out


def check(s: Store, got: dict[str, Any]) -> None:
    for (tool, args, want), is_error, answer in got["calls"]:
        if want == OK:
            assert not is_error, (tool, args, answer)
        else:
            assert is_error, (tool, args, answer)
        if want == MISSING:
            assert "no memory" in answer or "no entity" in answer or "no fact" in answer or "no relationship" in answer, (
                tool, args, answer)
    for uri, is_error, answer in got["resources"]:
        assert is_error and "no memory" in answer, (uri, answer)
    answers = [((c[0], c[1]), a) for c, _, a in got["calls"]] + [(u, a) for u, _, a in got["resources"]]
    assert s.leaked([*answers, ("", got["relationships"])]) == []
    found = {c[0][0]: a for c in got["calls"] if c[0][2] == OK for a in [c[2]]}
    assert "Fridays" in found["search_memory"]
    assert json.loads(found["get_status"])["memories"] == 5  # lab's four and the global one


@pytest.fixture
def store(db: Path, tmp_path: Path) -> Store:
    return seed(db, tmp_path / "tokens.json")


def test_mcp_over_http_answers_each_call_in_its_callers_scope(start_http: Callable[..., Endpoint], db: Path,
                                                              store: Store) -> None:
    assert store.book is not None
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)})
    url = str(server.base_url)
    check(store, asyncio.run(_run(http_session(url, store.tokens["lab"]), store)))

    async def owner_and_reader() -> tuple[str, str, bool]:
        async with http_session(url, OWNER)() as mcp:  # the owner's calls on the same server see everything
            owner = text(await mcp.call_tool("get_memory", {"id": store.shop}))
        async with http_session(url, store.tokens["shop-read"])() as mcp:
            written = await mcp.call_tool("add_memory", {"content": "x", "workspace": "shop"})
            return owner, text(written), bool(written.is_error)

    owner, written, refused = asyncio.run(owner_and_reader())
    assert SHOP_TEXT in owner
    assert refused and "read only" in written


def test_a_token_revoked_during_an_mcp_session_stops_working(start_http: Callable[..., Endpoint], db: Path,
                                                            store: Store) -> None:
    assert store.book is not None
    server = start_http(db, env={**FAST, "KNOTWORK_TOKENS_FILE": str(store.book.path)})

    async def scenario() -> tuple[str, str]:
        async with http_session(str(server.base_url), store.tokens["lab"])() as mcp:
            before = text(await mcp.call_tool("get_memory", {"id": store.lab}))
            assert store.book is not None
            store.book.revoke("lab-bot")
            try:
                after = await mcp.call_tool("get_memory", {"id": store.lab})
                return before, text(after) if after.is_error else "answered"
            except Exception as exc:  # the SDK raises on the transport's 401
                return before, f"raised: {exc}"

    before, after = asyncio.run(scenario())
    assert "Fridays" in before and after != "answered" and "Fridays" not in after


def test_mcp_over_stdio_with_a_workspace_is_limited_to_it(start_stdio: Callable[..., Endpoint], db: Path,
                                                          store: Store) -> None:
    server = start_stdio(db, "-w", "lab", env=FAST)
    check(store, asyncio.run(_run(server.client, store)))


def test_mcp_over_stdio_without_a_workspace_is_the_owners(start_stdio: Callable[..., Endpoint], db: Path,
                                                          store: Store) -> None:
    server = start_stdio(db, env=FAST)

    async def scenario() -> tuple[str, bool]:
        async with server.client() as mcp:
            got = await mcp.call_tool("search_memory", {"query": "deploys", "workspace": "*"})
            return text(got), bool(got.is_error)

    found, failed = asyncio.run(scenario())
    assert not failed and "blue-green" in found and "Fridays" in found
