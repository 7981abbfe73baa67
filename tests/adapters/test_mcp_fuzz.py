"""A fuzz of every MCP tool's arguments over stdio: each tool's published input schema drives what is sent.

For every tool ``tools/list`` names, arguments are drawn from its own schema (seeded, so a failure
repeats): values of the declared types, ranges and enums, then hostile variants (a wrong type for each
argument, an unknown argument, a null, a 100,000-character string, a list nested 200 deep, every
argument missing). Every call must be answered — a result or a tool error of one line — within the
deadline, and the server must still answer afterwards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT

from ._mcp import Session, text
from .conftest import KNOTWORK, clean_env

SEED = 20261124
ANSWER_DEADLINE_S = 30.0
VALID_DRAWS = 4
MAX_ERROR_CHARS = 1000
WORDS = ["deploy", "billing", "release", "kafka", "cache", "Ada", "postgres", "shop"]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    from anyio.from_thread import start_blocking_portal
    from mcp import StdioServerParameters

    home = tmp_path_factory.mktemp("fuzz-mcp")
    db = home / "memory.db"
    env = clean_env(home, {"KNOTWORK_EMBEDDER": "none", "KNOTWORK_KG_EXTRACT": "none"})
    params = StdioServerParameters(command=KNOTWORK, args=["mcp", "--db", str(db)], env=env)
    client = Client(params, read_timeout_seconds=ANSWER_DEADLINE_S)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Session(portal, connected, db)


def draw(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A value the schema allows (most of the time: formats such as ids are drawn as plain text)."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return draw(rng.choice(options), rng, depth)
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "integer":
        low, high = schema.get("minimum", -3), schema.get("maximum", 60)
        return rng.randint(int(low), int(min(high, low + 100)))
    if kind == "number":
        low, high = schema.get("minimum", 0.0), schema.get("maximum", 1.0)
        return round(rng.uniform(low, min(high, low + 100)), 3)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        return [draw(items, rng, depth + 1) for _ in range(rng.randint(schema.get("minItems", 0), max(schema.get("minItems", 0), 3)))]
    if kind == "object":
        props = schema.get("properties", {})
        if not props or depth > 2:
            return {rng.choice(WORDS): rng.choice(WORDS)}
        return {k: draw(v, rng, depth + 1) for k, v in props.items() if k in schema.get("required", []) or rng.random() < 0.5}
    length = rng.randint(max(1, schema.get("minLength", 1)), 8)
    return " ".join(rng.choice(WORDS) for _ in range(length))


def wrong(schema: dict[str, Any]) -> Any:
    """A value of a type the schema does not take."""
    kind = schema.get("type")
    return {"string": 12345, "integer": "twelve", "number": [1], "boolean": "yes", "array": {"not": "a list"},
            "object": ["not", "an", "object"]}.get(kind if isinstance(kind, str) else "", {"odd": 1})


def cases(name: str, schema: dict[str, Any], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    props: dict[str, Any] = schema.get("properties", {})
    required = schema.get("required", [])

    def valid() -> dict[str, Any]:
        return {k: draw(v, rng) for k, v in props.items() if k in required or rng.random() < 0.6}

    out = [(f"valid-{i}", valid()) for i in range(VALID_DRAWS)]
    base = valid()
    for key, prop in props.items():
        out.append((f"wrong-type-{key}", {**base, key: wrong(prop)}))
    some = rng.choice(list(props)) if props else None
    out += [
        ("unknown-argument", {**base, "zz_unknown": 1}),
        ("all-missing", {}),
        ("deep-nesting", {**base, **({some: _nested(200)} if some else {"deep": _nested(200)})}),
        ("huge-string", {**base, **({some: "x" * 100_000} if some else {"huge": "x" * 100_000})}),
        ("null", {**base, **({some: None} if some else {})}),
    ]
    return out


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def test_every_tool_answers_every_argument_it_is_sent(shared: Session) -> None:
    async def fuzz(client: Client) -> tuple[int, list[str]]:
        await client.call_tool("add_memory", {"content": "The shop deploys with blue-green releases", "workspace": "shop"})
        tools = (await client.list_tools()).tools
        assert len(tools) >= 20
        rng = random.Random(SEED)
        calls, problems = 0, []
        for tool in tools:
            for label, args in cases(tool.name, tool.input_schema, rng):
                try:
                    result = await client.call_tool(tool.name, args)
                    failed, answer = bool(result.is_error), text(result)
                except MCPError as exc:  # a protocol error (e.g. nesting past the parser's limit) is an answer too
                    if exc.code == REQUEST_TIMEOUT:
                        problems.append(f"{tool.name} {label}: no answer in {ANSWER_DEADLINE_S:.0f} s")
                    failed, answer = True, str(exc)
                calls += 1
                if failed and ("\n" in answer.strip() or len(answer) > MAX_ERROR_CHARS):
                    problems.append(f"{tool.name} {label}: {answer[:200]!r}")
                # A crash in a tool comes back as the bare "Error executing tool <name>" (the SDK keeps its text).
                if failed and ("Traceback" in answer or answer.strip().rstrip(".") == f"Error executing tool {tool.name}"):
                    problems.append(f"{tool.name} {label}: crashed: {answer[:200]!r}")
        still = await client.call_tool("get_status", {})
        assert not still.is_error and "schema" in text(still)
        return calls, problems

    calls, problems = shared.run(fuzz)
    assert calls >= 200, calls
    assert not problems, "\n".join(problems)
