"""Hostile input to a real ``knotwork mcp`` process over stdio: strict arguments, bounded errors, and an
answer to every message.

What the SDK's client can send goes through ``mcp.Client`` (values up to the 4 MiB message limit; a longer
message is refused whole, see the 20 MB line below); lines it cannot produce (not JSON, a lone
surrogate escape, nesting 100,000 deep, 20 MB on one line, a malformed envelope) are written to the
server's stdin by hand, and each must be answered — with the request's id where it has one.
"""

from __future__ import annotations

import json
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

import knotwork
from knotwork import Settings

from ._mcp import Session, add, err, ok
from .conftest import KNOTWORK, clean_env

MAX_ERROR_CHARS = 1000
ANSWER_DEADLINE_S = 30.0
NO_MODEL = {"KNOTWORK_EMBEDDER": "none"}


def count(db: Path) -> int:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        return len(mem.list(workspace="*", agent_id="*", limit=1000))


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    from anyio.from_thread import start_blocking_portal
    from mcp import StdioServerParameters

    home = tmp_path_factory.mktemp("hostile-mcp")
    db = home / "memory.db"
    params = StdioServerParameters(command=KNOTWORK, args=["mcp", "--db", str(db)], env=clean_env(home, NO_MODEL))
    client = Client(params, read_timeout_seconds=ANSWER_DEADLINE_S)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Session(portal, connected, db)


@pytest.mark.parametrize(
    ("tool", "args", "named"),
    [
        pytest.param("search_memory", {"query": "x", "limit": True}, "limit", id="true-as-limit"),
        pytest.param("search_memory", {"query": "x", "limit": "5"}, "limit", id="text-as-limit"),
        pytest.param("add_memory", {"content": "x", "importance": True}, "importance", id="true-as-importance"),
        pytest.param("add_memory", {"content": "x", "consolidate": "no"}, "consolidate", id="text-as-bool"),
        pytest.param("add_memory", {"content": "x", "colour": "red"}, "colour", id="unknown-argument"),
        pytest.param("list_memories", {"limit": 2.5}, "limit", id="fraction-as-limit"),
    ],
)
def test_loose_arguments_are_refused_in_one_line_naming_them(shared: Session, tool: str, args: dict[str, Any], named: str) -> None:
    before = count(shared.db)
    message = shared.run(lambda client: err(client, tool, args))
    assert "\n" not in message and len(message) <= MAX_ERROR_CHARS, message
    assert message.startswith(f"Invalid arguments to {tool}: {named}: "), message
    assert count(shared.db) == before


def test_a_misspelled_extra_argument_does_not_delete(shared: Session) -> None:
    mid = shared.run(lambda client: add(client, "a memory a typo must not delete"))
    message = shared.run(lambda client: err(client, "delete_memory", {"id": mid, "fromat": "json"}))
    assert "fromat: unknown argument (known: id, format)" in message
    assert shared.run(lambda client: ok(client, "get_memory", {"id": mid}))


def test_a_value_given_as_json_text_still_unpacks(shared: Session) -> None:
    out = shared.run(lambda client: ok(client, "add_memory", {"content": "tags as JSON text", "tags": '{"team": "core"}', "format": "json"}))
    assert json.loads(out)["tags"] == {"team": "core"}


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        pytest.param("add_memory", {"content": "x", "workspace": "w" * 3_000_000}, id="3MB-workspace"),
        pytest.param("search_memory", {"query": "q" * 3_000_000}, id="3MB-query"),
        pytest.param("search_nodes", {"query": "q" * 1_000_000}, id="1MB-node-query"),
        pytest.param("add_memory", {"content": "x", "artifacts": [f"a{i}" for i in range(40_000)]}, id="40k-artifacts"),
        pytest.param("list_memories", {"tags": {f"k{i}": "v" for i in range(5000)}}, id="5000-tag-filters"),
        pytest.param("get_memory", {"id": "I" * 1_000_000}, id="1MB-id"),
    ],
)
def test_huge_values_get_short_errors(shared: Session, tool: str, args: dict[str, Any]) -> None:
    before = count(shared.db)
    message = shared.run(lambda client: err(client, tool, args))
    assert len(message) <= MAX_ERROR_CHARS, f"{len(message)} characters: {message[:200]}"
    assert count(shared.db) == before


def test_a_long_tool_name_or_resource_uri_is_not_echoed(shared: Session) -> None:
    message = shared.run(lambda client: err(client, "x" * 1_000_000, {}))
    assert message.startswith("Unknown tool: xxx") and len(message) <= MAX_ERROR_CHARS

    async def read(client: Client) -> str:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("memory://graph/" + "A" * 1_000_000)
        return str(caught.value)

    message = shared.run(read)
    assert "uri" in message and "1,000,015 characters" in message and len(message) <= MAX_ERROR_CHARS


# -- raw lines -------------------------------------------------------------------------------------
class Pipe:
    """A ``knotwork mcp`` process spoken to line by line."""

    def __init__(self, db: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [KNOTWORK, "mcp", "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=clean_env(home, NO_MODEL),
        )
        assert self.proc.stdin and self.proc.stdout
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def send(self, line: bytes) -> None:
        self.stdin.write(line + b"\n")
        self.stdin.flush()

    def answer(self) -> dict[str, Any]:
        ready, _, _ = select.select([self.stdout], [], [], ANSWER_DEADLINE_S)
        assert ready, "no answer"
        return json.loads(self.stdout.readline())

    def request(self, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode())
        return self.answer()

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipe]:
    home = tmp_path_factory.mktemp("pipe")
    p = Pipe(home / "memory.db", home)
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    assert "result" in p.request(0, "initialize", hello)
    p.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield p
    p.close()


def call(rid: Any, arguments: str, name: str = "add_memory") -> bytes:
    return (f'{{"jsonrpc": "2.0", "id": {json.dumps(rid)}, "method": "tools/call", '
            f'"params": {{"name": "{name}", "arguments": {arguments}}}}}').encode()


DEEP = "[" * 100_000 + "]" * 100_000
MALFORMED = [
    pytest.param(b"this is not JSON", None, -32700, id="not-json"),
    pytest.param(call(7, '{"content": "a\\ud800b"}'), 7, -32700, id="lone-surrogate"),
    pytest.param(call("deep", '{"content": "x", "metadata": {"a": ' + DEEP + "}}"), "deep", -32700, id="100k-deep"),
    pytest.param(b'{"params": ' + DEEP.encode() + b', "jsonrpc": "2.0", "id": 9, "method": "ping"}', 9, -32700, id="deep-before-id"),
    pytest.param(call(10, '{"query": "' + "a" * 20_000_000 + '"}', "search_memory"), 10, -32600, id="20MB-line"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": 5}', 11, -32600, id="params-not-object"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 12}', 12, -32600, id="no-method"),
    pytest.param(b"[1, 2]", None, -32600, id="array"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": 5}}', 13, None, id="bad-tool-name"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 14, "method": "no/such/method"}', 14, None, id="unknown-method"),
]


@pytest.mark.parametrize(("line", "rid", "code"), MALFORMED)
def test_every_malformed_message_is_answered(pipe: Pipe, line: bytes, rid: Any, code: int | None) -> None:
    started = time.monotonic()
    pipe.send(line)
    answer = pipe.answer()
    assert answer["id"] == rid and "error" in answer, answer
    if code is not None:
        assert answer["error"]["code"] == code, answer
    assert len(json.dumps(answer)) <= MAX_ERROR_CHARS
    # and the server still works
    ping = pipe.request(100, "tools/call", {"name": "list_memories", "arguments": {}})
    assert ping["id"] == 100 and "result" in ping, ping
    assert time.monotonic() - started < ANSWER_DEADLINE_S


def test_nothing_malformed_was_written(pipe: Pipe) -> None:
    answer = pipe.request(200, "tools/call", {"name": "list_memories", "arguments": {"format": "json"}})
    assert json.loads(answer["result"]["content"][0]["text"])["memories"] == []
