"""One-line answers to malformed MCP messages over HTTP, as over stdio.

The SDK's streamable HTTP transport answers a body that is not a JSON-RPC
message with pydantic's report: one paragraph per member of the message
union, quoting the input, in a dozen lines. :class:`McpEnvelope` checks each
POST to ``/mcp`` first, with the same parser and the same messages as the
stdio transport (:func:`knotwork.adapters.mcp_stdio.problem`), answers a
malformed one itself (400, a JSON-RPC error with the request's ``id`` when
one is found), and passes a good one on unchanged. The body is already
bounded by :class:`~knotwork.adapters.http.guard.BodyLimit`, which stands
outside this middleware.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knotwork.adapters.mcp_stdio import problem, top_level_id


class McpEnvelope:
    """Refuse a POST to ``path`` whose body is not one JSON-RPC message, with a one-line JSON-RPC error."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if b"application/json" not in headers.get(b"content-type", b""):
            await self.app(scope, receive, send)  # the SDK's own answer (415) names the problem
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        text = body.decode("utf-8", errors="replace")  # as the SDK's transport decodes
        try:
            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValidationError as exc:
            code, message_text = problem(exc)
            await _answer(send, top_level_id(text), code, message_text)
            return
        await self.app(scope, _replay(body, receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _answer(send: Send, request_id: Any, code: int, message: str) -> None:
    payload = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": 400,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})
