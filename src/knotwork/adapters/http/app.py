"""Composition of the HTTP app: routers per area, one error mapping, bearer-token auth, MCP at /mcp.

Adding an area (as the knowledge graph's entities and facts were) is one
router module under ``routers/`` and one entry in :data:`ROUTERS`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from knotwork.adapters.http import errors
from knotwork.adapters.http.routers import data, hygiene, knowledge, links, memories, tools
from knotwork.render.respond import Responder
from knotwork.service import Knotwork

if TYPE_CHECKING:
    from mcp.server import MCPServer

ROUTERS: tuple[APIRouter, ...] = (memories.router, links.router, data.router, tools.router, knowledge.router, hygiene.router)
MCP_PATH = "/mcp"


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BearerToken:
    """Refuse every HTTP request (REST and MCP) that lacks ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps(errors.error_body("unauthorized", "missing or wrong bearer token")).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def create_app(
    mem: Knotwork,
    *,
    default_workspace: str | None = None,
    api_token: str | None = None,
    mcp_server: MCPServer | None = None,
    host: str = "127.0.0.1",
) -> FastAPI:
    """The REST API over ``mem``; with ``mcp_server``, its streamable HTTP transport is served at ``/mcp`` too.

    ``api_token``, when given, is required as a bearer token on every request.
    """
    from knotwork import __version__

    mcp_routes: list[Any] = []
    if mcp_server is not None:
        # The SDK builds a Starlette app whose lifespan runs the session manager.
        # A mounted app's lifespan never runs, so take its /mcp route and run the
        # session manager from this app's lifespan instead.
        mcp_routes = list(mcp_server.streamable_http_app(streamable_http_path=MCP_PATH, host=host).routes)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(mem.warm)  # the first recall should not pay for the tokenizer, the model or the index
        async with AsyncExitStack() as stack:
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            yield

    app = FastAPI(
        title="knotwork",
        version=__version__,
        summary="Long-term memory for AI agents",
        description="Every operation of the knotwork service. Errors are JSON: {error: {type, message, …}}.",
        lifespan=lifespan,
    )
    app.state.mem = mem
    app.state.respond = Responder(mem)
    app.state.default_workspace = default_workspace
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    app.router.routes.extend(mcp_routes)
    if api_token:
        app.add_middleware(BearerToken, token=api_token)
    return app
