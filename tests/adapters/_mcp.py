"""The MCP contract, written once and run over every transport.

``test_mcp_stdio.py`` and ``test_mcp_http.py`` subclass :class:`McpContract`
and provide ``start_mcp(db, *args, env=None) -> Endpoint`` (function scope)
and ``start_mcp_shared`` (class scope, for the one server the bad-input
tests share, to keep process start-ups down). Each
test drives a real ``knotwork`` server process through the SDK's real
``mcp.Client`` and checks the database afterwards through the Python API.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

import knotwork
from knotwork import NotFound
from knotwork.config import Settings

T = TypeVar("T")
ID_RE = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
SHOWN_RE = re.compile(r"^([0-9A-HJKMNP-TV-Z]{8,26}) ", re.M)  # the (short) id opening a search or list line
TOOLS = {"add_memory", "search_memory", "get_memory", "update_memory", "delete_memory", "list_memories"}
# Added with typed relationships (commit 9e0919b, after these tests were specified); not exercised here.
RELATIONSHIP_TOOLS = {"link_memories", "unlink_memories", "get_related_memories", "get_memory_graph"}
# The knowledge graph's tools (tested in test_mcp_knowledge.py).
KNOWLEDGE_TOOLS = {
    "search_nodes", "search_facts", "get_episodes", "delete_fact", "clear_graph", "get_communities", "get_extraction_status",
}
RECALL_TOOLS = {"ambient_recall", "get_status", "get_memory_stats"}  # exercised in test_serve_hooks.py
HYGIENE_TOOLS = {"find_duplicates", "merge_memories"}  # exercised in test_hygiene_adapters.py
ABSENT_ID = "00000000000000000000000000"  # well-formed, never generated (time 0)
SCENARIO_TIMEOUT_S = 120


def run(coro: Awaitable[T]) -> T:
    """Run one async scenario to completion, failing (not hanging) after a deadline."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, SCENARIO_TIMEOUT_S)

    return asyncio.run(bounded())


@dataclass
class Session:
    """One client connected for a whole test class, kept open on an event loop in a background thread."""

    portal: BlockingPortal
    client: Client
    db: Path

    def run(self, scenario: Callable[[Client], Awaitable[T]]) -> T:
        async def bounded() -> T:
            with anyio.fail_after(SCENARIO_TIMEOUT_S):
                return await scenario(self.client)

        return self.portal.call(bounded)


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def ok(client: Client, tool: str, args: dict[str, Any]) -> str:
    """Call a tool that must succeed; return its text."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool}({args}) failed: {text(result)}"
    return text(result)


async def ok_json(client: Client, tool: str, args: dict[str, Any]) -> Any:
    return json.loads(await ok(client, tool, {**args, "format": "json"}))


async def err(client: Client, tool: str, args: dict[str, Any]) -> str:
    """Call a tool that must fail with a tool error; return the error text."""
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool}({args}) should have been a tool error, got: {text(result)}"
    return text(result)


async def add(client: Client, content: str, **fields: Any) -> str:
    """add_memory; return the new id (from the compact answer)."""
    out = await ok(client, "add_memory", {"content": content, **fields})
    assert out.startswith("✓ Stored "), out
    found = ID_RE.findall(out)
    assert len(found) == 1, out
    return found[0]


async def ambiguous_pair(client: Client) -> tuple[str, str]:
    """Two memories whose ids share their first 8 characters.

    ULIDs start with 10 characters of milliseconds, so the 8-character prefix
    changes about once a second: two adds in quick succession share it unless
    they straddle a boundary, in which case try again.
    """
    tag = uuid.uuid4().hex
    for attempt in range(10):
        # the attempt inside the tag's token: "pair X 0 first" -> "pair X 1 first" would read as a count changing
        a = await add(client, f"ambiguous pair {tag}{attempt} first")
        b = await add(client, f"ambiguous pair {tag}{attempt} second")
        if a[:8] == b[:8]:
            return a, b
    pytest.fail("could not create two memories whose ids share an 8-character prefix")


def shown_ids(db: Path, out: str) -> list[str]:
    """Full ids of the memories a compact search or list answer shows, in order (short ids resolved)."""
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        return [mem.resolve(ref) for ref in SHOWN_RE.findall(out)]


def snapshot(db: Path) -> list[tuple[Any, ...]]:
    """Every memory as (id, version, content), plus its past versions: what "nothing written" compares."""
    with knotwork.open(db) as mem:
        return [
            (m.id, m.version, m.content, tuple(old.content for old in mem.store.memory_versions(m.id)))
            for m in mem.store.iter_memories()
        ]


def count(db: Path) -> int:
    with knotwork.open(db) as mem:
        return mem.store.count_memories()


def versions(db: Path, memory_id: str) -> list[str]:
    with knotwork.open(db) as mem:
        return [m.content for m in mem.history(memory_id)]


class McpContract:
    """Behaviour every MCP transport must show. Subclasses provide ``start_mcp`` and ``start_mcp_shared``."""

    transport: str

    @pytest.fixture
    def server(self, start_mcp: Callable[..., Any], db: Path) -> Any:
        return start_mcp(db)

    @pytest.fixture(scope="class")
    @classmethod
    def shared(cls, start_mcp_shared: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
        """One server and one connected client for the class, on a database only this class uses.

        Tests on it must not depend on what other tests left behind: they
        compare the database before and after their own calls.
        """
        db = tmp_path_factory.mktemp("shared") / "memory.db"
        endpoint = start_mcp_shared(db)
        with start_blocking_portal() as portal, portal.wrap_async_context_manager(endpoint.client()) as client:
            yield Session(portal, client, db)

    @pytest.fixture
    def small_server(self, start_mcp: Callable[..., Any], db: Path) -> Any:
        """A server whose content limit is 1000 bytes."""
        return start_mcp(db, env={"KNOTWORK_MAX_CONTENT_BYTES": "1000"})

    # -- the tool list ------------------------------------------------------
    def test_list_tools_is_exactly_the_memory_tools(self, shared: Session) -> None:
        async def scenario(client: Client) -> Any:
            return (await client.list_tools()).tools

        tools = shared.run(scenario)
        names = [t.name for t in tools]
        assert len(names) == len(set(names)), names
        assert set(names) == TOOLS | RELATIONSHIP_TOOLS | KNOWLEDGE_TOOLS | RECALL_TOOLS | HYGIENE_TOOLS, names
        by_name = {t.name: t for t in tools}
        for tool in tools:
            assert tool.description and tool.description.strip(), f"{tool.name} has no description"
            schema = tool.input_schema
            assert schema.get("type") == "object", (tool.name, schema)
            assert "format" in schema["properties"], tool.name
        required = {name: set(by_name[name].input_schema.get("required", [])) for name in TOOLS}
        assert required == {
            "add_memory": {"content"},
            "search_memory": {"query"},
            "get_memory": {"id"},
            "update_memory": {"id"},
            "delete_memory": {"id"},
            "list_memories": set(),
        }
        assert {"workspace", "tags", "category", "valid_at"} <= set(by_name["add_memory"].input_schema["properties"])
        assert {"cursor", "limit", "tags", "category"} <= set(by_name["list_memories"].input_schema["properties"])

    # -- one memory, start to end ------------------------------------------
    def test_add_search_get_update_delete(self, server: Any, db: Path) -> None:
        async def scenario() -> str:
            async with server.client() as client:
                mid = await add(
                    client,
                    "The payments service deploys with blue-green releases",
                    category="Decision",
                    tags={"team": "payments"},
                )
                # a prefix is case-insensitive (only one memory yet, so 8 characters are unique)
                assert (await ok_json(client, "get_memory", {"id": mid[:8].lower()}))["id"] == mid
                await add(client, "Unrelated note about the office coffee machine")

                # best match first (search may rank, not only filter: assert the order, not the absence of others)
                found = await ok(client, "search_memory", {"query": "how does payments deploy"})
                assert shown_ids(db, found)[0] == mid, found
                hits = (await ok_json(client, "search_memory", {"query": "blue-green releases"}))["hits"]
                assert hits[0]["memory"]["id"] == mid
                assert hits[0]["memory"]["content"] == "The payments service deploys with blue-green releases"
                assert hits[0]["memory"]["category"] == "decision"
                assert hits[0]["memory"]["tags"] == {"team": "payments"}
                assert hits[0]["score"] > 0

                short = mid[-8:]
                shown = await ok(client, "get_memory", {"id": short})
                assert shown.splitlines()[0].startswith(mid)
                assert "v1" in shown.splitlines()[0]
                assert "tags: team=payments" in shown
                assert shown.splitlines()[-1] == "The payments service deploys with blue-green releases"

                updated = await ok(
                    client, "update_memory", {"id": short, "content": "The payments service deploys with canary releases"}
                )
                assert updated == f"✓ Updated {mid} (now v2)"
                assert versions(db, mid) == [
                    "The payments service deploys with blue-green releases",
                    "The payments service deploys with canary releases",
                ]
                now = await ok_json(client, "get_memory", {"id": short})
                assert now["content"] == "The payments service deploys with canary releases"
                assert now["version"] == 2
                assert now["tags"] == {"team": "payments"} and now["category"] == "decision"  # untouched fields kept
                hits = (await ok_json(client, "search_memory", {"query": "canary releases"}))["hits"]
                assert hits[0]["memory"]["id"] == mid and hits[0]["memory"]["version"] == 2
                stale = (await ok_json(client, "search_memory", {"query": "blue-green"}))["hits"]
                assert all("blue-green" not in h["memory"]["content"] for h in stale), stale  # no old text served

                tagged = await ok_json(client, "update_memory", {"id": mid, "tags": {"team": "billing"}})
                assert tagged["version"] == 3 and tagged["tags"] == {"team": "billing"}
                assert len(versions(db, mid)) == 3

                gone = await ok(client, "delete_memory", {"id": short})
                assert gone.startswith(f"✓ Deleted {mid}")
                missing = await err(client, "get_memory", {"id": mid})
                assert mid in missing and "no memory" in missing
                assert mid not in shown_ids(db, await ok(client, "search_memory", {"query": "canary releases"}))
                return mid

        mid = run(scenario())
        with knotwork.open(db) as mem:
            assert [m.content for m in mem.store.iter_memories()] == ["Unrelated note about the office coffee machine"]
            with pytest.raises(NotFound):
                mem.get(mid)
            assert mem.store.memory_versions(mid) == []  # its history went with it

    def test_list_filters_and_cursor_pagination(self, server: Any, db: Path) -> None:
        async def scenario() -> None:
            async with server.client() as client:
                ids = []
                for i in range(5):
                    ids.append(
                        await add(
                            client,
                            f"note number {i}",
                            category="decision" if i % 2 == 0 else "lesson",
                            tags={"team": "payments" if i < 3 else "search", f"n{i}": "x"},
                        )
                    )
                other = await add(client, "note in another workspace", workspace="other", category="decision")
                newest_first = ids[::-1]

                listed = await ok_json(client, "list_memories", {})
                assert [m["id"] for m in listed["memories"]] == newest_first  # global scope only
                assert listed["next_cursor"] is None

                by_category = await ok_json(client, "list_memories", {"category": "decision"})
                assert [m["id"] for m in by_category["memories"]] == [ids[4], ids[2], ids[0]]
                by_tag = await ok_json(client, "list_memories", {"tags": {"team": "search"}})
                assert [m["id"] for m in by_tag["memories"]] == [ids[4], ids[3]]
                both = await ok_json(client, "list_memories", {"tags": {"team": "payments"}, "category": "lesson"})
                assert [m["id"] for m in both["memories"]] == [ids[1]]
                in_other = await ok_json(client, "list_memories", {"workspace": "other", "category": "decision"})
                assert [m["id"] for m in in_other["memories"]] == [other, ids[4], ids[2], ids[0]]

                seen: list[str] = []
                cursor = None
                pages = 0
                while True:
                    args: dict[str, Any] = {"limit": 2}
                    if cursor:
                        args["cursor"] = cursor
                    page = await ok_json(client, "list_memories", args)
                    pages += 1
                    seen += [m["id"] for m in page["memories"]]
                    cursor = page["next_cursor"]
                    if cursor is None:
                        break
                    assert pages < 10, "pagination does not end"
                assert pages == 3
                assert seen == newest_first

                compact = await ok(client, "list_memories", {"limit": 2})
                lines = compact.splitlines()
                assert shown_ids(db, "\n".join(lines[:2])) == newest_first[:2]
                assert lines[-1] == f"next cursor: {newest_first[1]}"
                rest = await ok(client, "list_memories", {"limit": 10, "cursor": newest_first[1]})
                assert shown_ids(db, rest) == newest_first[2:]
                assert "next cursor" not in rest
                assert await ok(client, "list_memories", {"category": "nothing-here"}) == "No memories."

        run(scenario())

    def test_workspace_scoping(self, server: Any, db: Path) -> None:
        async def scenario() -> None:
            async with server.client() as client:
                in_a = await add(client, "Team A stores invoices in Postgres", workspace="team-a")
                shared = await add(client, "Everyone stores audit logs in Postgres")

                from_b = shown_ids(db, await ok(client, "search_memory", {"query": "Postgres", "workspace": "team-b"}))
                assert shared in from_b and in_a not in from_b
                from_a = shown_ids(db, await ok(client, "search_memory", {"query": "Postgres", "workspace": "team-a"}))
                assert shared in from_a and in_a in from_a
                from_global = shown_ids(db, await ok(client, "search_memory", {"query": "Postgres"}))
                assert shared in from_global and in_a not in from_global

                listed_b = await ok_json(client, "list_memories", {"workspace": "team-b"})
                assert [m["id"] for m in listed_b["memories"]] == [shared]
                listed_a = await ok_json(client, "list_memories", {"workspace": "team-a"})
                assert [m["id"] for m in listed_a["memories"]] == [shared, in_a]

                # the same content is a different memory in another workspace, and a duplicate in the same one
                again = await ok_json(client, "add_memory", {"content": "Team A stores invoices in Postgres", "workspace": "team-a"})
                assert again["id"] == in_a and again["duplicate"] is True
                elsewhere = await ok_json(client, "add_memory", {"content": "Team A stores invoices in Postgres", "workspace": "team-b"})
                assert elsewhere["id"] != in_a and elsewhere["duplicate"] is False

        run(scenario())

    def test_server_default_workspace_applies_when_a_call_names_none(self, start_mcp: Callable[..., Any], db: Path) -> None:
        server = start_mcp(db, "--workspace", "team-a")

        async def scenario() -> None:
            async with server.client() as client:
                stored = await ok_json(client, "add_memory", {"content": "Default workspace memory about kafka"})
                assert stored["workspace"] == "team-a"
                assert stored["id"] in shown_ids(db, await ok(client, "search_memory", {"query": "kafka"}))
                # a server started with a workspace (serve -w, mcp -w) limits its callers to it
                other = await client.call_tool("search_memory", {"query": "kafka", "workspace": "team-b"})
                assert other.is_error and "outside this caller's scope" in text(other)

        run(scenario())

    # -- bad input: a tool error naming the problem, and nothing written ----
    @pytest.mark.parametrize(
        ("args", "expected"),
        [
            pytest.param({"content": ""}, ["content", "empty"], id="empty-content"),
            pytest.param({"content": "  \n\t  "}, ["content", "empty"], id="whitespace-content"),
            pytest.param({"content": "a\x00b"}, ["content", "NUL"], id="nul-in-content"),
            pytest.param({"content": "x", "tags": {"bad key": "v"}}, ["tags", "bad key"], id="tag-key-with-space"),
            pytest.param({"content": "x", "tags": {"": "v"}}, ["tags", "key"], id="empty-tag-key"),
            pytest.param({"content": "x", "valid_at": "yesterday-ish"}, ["valid_at", "yesterday-ish"], id="bad-valid-at"),
            pytest.param({"content": "x", "workspace": "bad workspace!"}, ["workspace", "bad workspace!"], id="bad-workspace"),
            pytest.param({"content": "x", "agent_id": "no spaces please"}, ["agent_id", "no spaces please"], id="bad-agent"),
            pytest.param({"content": "x", "importance": 1.5}, ["importance"], id="importance-above-1"),
        ],
    )
    def test_add_rejects_bad_input_and_writes_nothing(
        self, shared: Session, args: dict[str, Any], expected: list[str]
    ) -> None:
        before = snapshot(shared.db)
        message = shared.run(lambda client: err(client, "add_memory", args))
        for fragment in expected:
            assert fragment in message, f"{fragment!r} not in {message!r}"
        assert snapshot(shared.db) == before

    def test_content_size_limit_is_bytes_and_inclusive(self, small_server: Any, db: Path) -> None:
        async def scenario() -> None:
            async with small_server.client() as client:
                too_big = await err(client, "add_memory", {"content": "a" * 1001})
                assert "content" in too_big and "1001" in too_big and "1000" in too_big
                wide = "€" * 333 + "ab"  # 335 characters, 1001 UTF-8 bytes
                assert len(wide.encode()) == 1001
                too_wide = await err(client, "add_memory", {"content": wide})
                assert "1001" in too_wide and "1000" in too_wide
                assert count(db) == 0

                exact = await ok_json(client, "add_memory", {"content": "a" * 1000})
                assert len(exact["content"]) == 1000
                padded = await ok_json(client, "add_memory", {"content": "  " + "b" * 1000 + "\n"})  # trimmed first
                assert padded["content"] == "b" * 1000
                assert count(db) == 2

                # the limit holds for updates too, and a rejected update changes nothing
                grown = await err(client, "update_memory", {"id": exact["id"], "content": "c" * 1001})
                assert "1001" in grown
                assert versions(db, exact["id"]) == ["a" * 1000]

        run(scenario())

    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            pytest.param({"content": "   "}, ["content", "empty"], id="whitespace-content"),
            pytest.param({"tags": {"bad key": "v"}}, ["tags", "bad key"], id="tag-key-with-space"),
            pytest.param({"valid_at": "yesterday-ish"}, ["valid_at", "yesterday-ish"], id="bad-valid-at"),
            pytest.param({"invalid_at": "soon"}, ["invalid_at", "soon"], id="bad-invalid-at"),
            pytest.param({"importance": -0.1}, ["importance"], id="importance-below-0"),
            pytest.param({}, ["nothing to change"], id="no-changes"),
        ],
    )
    def test_update_rejects_bad_input_and_keeps_the_memory(
        self, shared: Session, changes: dict[str, Any], expected: list[str]
    ) -> None:
        original = f"original text {uuid.uuid4().hex}"
        mid = shared.run(lambda client: add(client, original, tags={"team": "core"}))
        before = snapshot(shared.db)
        message = shared.run(lambda client: err(client, "update_memory", {"id": mid, **changes}))
        for fragment in expected:
            assert fragment in message, f"{fragment!r} not in {message!r}"
        assert snapshot(shared.db) == before
        with knotwork.open(shared.db) as mem:
            m = mem.get(mid)
            assert (m.version, m.content, m.tags) == (1, original, {"team": "core"})

    @pytest.mark.parametrize("tool", ["get_memory", "update_memory", "delete_memory"])
    def test_unknown_and_malformed_ids_are_tool_errors(self, shared: Session, tool: str) -> None:
        extra = {"content": f"new {uuid.uuid4().hex}"} if tool == "update_memory" else {}
        shared.run(lambda client: add(client, f"a memory that must survive {uuid.uuid4().hex}"))
        before = snapshot(shared.db)

        async def scenario(client: Client) -> None:
            for ref in (ABSENT_ID, ABSENT_ID[:8], ABSENT_ID.lower(), "ZZZZZZZZZZ"):
                message = await err(client, tool, {"id": ref, **extra})
                assert "no memory" in message and ref in message, (ref, message)
            for ref in ("abc", "not-an-id!", "I" * 26):  # too short, bad characters, no I in Crockford base 32
                message = await err(client, tool, {"id": ref, **extra})
                assert repr(ref) in message and "not an id" in message, (ref, message)

        shared.run(scenario)
        assert snapshot(shared.db) == before

    def test_ambiguous_short_id_lists_every_match_and_changes_nothing(self, server: Any, db: Path) -> None:
        # Own server and file: on the shared one, other tests' memories of the same second share the prefix too.
        async def scenario() -> None:
            async with server.client() as client:
                a, b = await ambiguous_pair(client)
                prefix = a[:8]
                before = snapshot(db)
                for tool, extra in [("get_memory", {}), ("update_memory", {"content": "changed"}), ("delete_memory", {})]:
                    message = await err(client, tool, {"id": prefix, **extra})
                    assert "ambiguous" in message and prefix in message, (tool, message)
                    assert a in message and b in message, (tool, message)
                assert (await ok_json(client, "get_memory", {"id": b}))["id"] == b  # the full id always resolves
                assert snapshot(db) == before

        run(scenario())


__all__ = ["McpContract", "Session", "add", "err", "ok", "ok_json", "run", "text"]


def http_session(url: str, token: str) -> Callable[[], Any]:
    def make() -> Any:
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)

        class Session:
            async def __aenter__(self) -> Client:
                await http.__aenter__()
                self.client = Client(streamable_http_client(f"{url}/mcp", http_client=http))
                return await self.client.__aenter__()

            async def __aexit__(self, *exc: Any) -> None:
                await self.client.__aexit__(*exc)
                await http.__aexit__(*exc)

        return Session()

    return make
