"""MCP over stdio with an answer to every message.

The SDK's stdio transport parses each line and hands a line it cannot parse
to the session as an error, which the session drops: a client that sent a
non-JSON line, a lone-surrogate escape, nesting too deep for the parser, a
request whose envelope is malformed (``"params": 5``) or one huge line waits
for an answer forever. :class:`AnsweringReader` stands in front of it: each
line is read with a bound on its size (the rest of an oversized line is read
and dropped in chunks), parsed as the SDK would, and a line that fails is
answered with a JSON-RPC error — with the request's ``id`` when a linear scan
of the line's top level finds one (so the client's waiting call ends), else
``null``, as JSON-RPC says — and never reaches the session. Good lines go on
to the SDK's transport unchanged.
"""

from __future__ import annotations

import json
import re
import sys
from json.decoder import scanstring
from typing import IO, Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from knotwork.errors import quote
from knotwork.limits import MCP_MESSAGE_BYTES, QUOTE_CHARS

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_SKIP = re.compile(r'[^"{}\[\],]+')
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_CHUNK = 1 << 20


def top_level_id(text: str) -> int | str | None:
    """The ``id`` of the JSON object ``text`` opens, found in one pass without parsing nested values
    (which may be too deep or malformed to parse); None when there is none or it is not a string or number."""
    pos = _SPACE.match(text).end()
    if not text.startswith("{", pos):
        return None
    depth, expecting_key, end = 0, False, len(text)
    while pos < end:
        char = text[pos]
        if char == '"':
            try:
                key, pos = scanstring(text, pos + 1, False)
            except ValueError:
                return None
            if depth == 1 and expecting_key:
                expecting_key = False
                colon = _SPACE.match(text, pos).end()
                if key == "id" and text.startswith(":", colon):
                    try:
                        value, _ = _DECODER.raw_decode(text, _SPACE.match(text, colon + 1).end())
                    except (ValueError, RecursionError):
                        return None
                    return value if isinstance(value, int | str) and not isinstance(value, bool) else None
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return None
        elif char == "," and depth == 1:
            expecting_key = True
        if depth == 1 and char == "{":
            expecting_key = True
        pos += 1
        skipped = _SKIP.match(text, pos)
        if skipped:
            pos = skipped.end()
    return None


def problem(exc: ValidationError) -> tuple[int, str]:
    """The JSON-RPC error code and one-line message for a message the SDK's parser refused."""
    errors = exc.errors()
    if any(e["type"] == "json_invalid" for e in errors):
        detail = str(errors[0]["msg"]).removeprefix("Invalid JSON: ")
        return PARSE_ERROR, f"Parse error: the message is not valid JSON ({detail[:QUOTE_CHARS]})"
    first = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "message"
    shown = quote(first.get("input"), 40) if "input" in first else ""
    return INVALID_REQUEST, f"Invalid request: not a JSON-RPC 2.0 message ({where[:60]}: {first.get('msg', 'invalid')}, got {shown})"


class AnsweringReader:
    """Lines of an MCP client's stdin, for the SDK's stdio transport; malformed ones answered, not passed on."""

    def __init__(self, stream: IO[bytes], limit: int = MCP_MESSAGE_BYTES) -> None:
        self.stream = stream
        self.limit = limit
        self._replies: MemoryObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def answer_to(self, replies: MemoryObjectSendStream[SessionMessage]) -> None:
        """Where answers go: the transport's stream to stdout (it exists only once the transport runs)."""
        self._replies = replies
        self._ready.set()

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> str:
        while True:
            read = await anyio.to_thread.run_sync(self._readline)
            if read is None:
                raise StopAsyncIteration
            data, size = read
            if size > self.limit:
                head = data.decode("utf-8", errors="replace")
                await self._answer(top_level_id(head), INVALID_REQUEST, f"Invalid request: the message is {size:,} bytes; the limit is {self.limit:,} bytes")
                continue
            line = data.decode("utf-8", errors="replace")  # as the SDK's transport decodes
            if not line.strip():
                continue
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValidationError as exc:
                code, message = problem(exc)
                await self._answer(top_level_id(line), code, message)
                continue
            return line

    def _readline(self) -> tuple[bytes, int] | None:
        """One line, at most ``limit + 1`` bytes of it kept, and its whole size."""
        data = self.stream.readline(self.limit + 1)
        if not data:
            return None
        size = len(data)
        if size > self.limit and not data.endswith(b"\n"):
            while chunk := self.stream.readline(_CHUNK):
                size += len(chunk)
                if chunk.endswith(b"\n"):
                    break
        return data, size

    async def _answer(self, request_id: Any, code: int, message: str) -> None:
        await self._ready.wait()
        assert self._replies is not None
        error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
        try:
            await self._replies.send(SessionMessage(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass


async def serve(lowlevel: Any) -> None:
    """Run an SDK low-level server on this process's stdin and stdout, every message answered."""
    reader = AnsweringReader(sys.stdin.buffer)
    async with stdio_server(stdin=reader) as (read_stream, write_stream):  # type: ignore[arg-type]
        reader.answer_to(write_stream)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
