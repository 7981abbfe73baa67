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
from knotwork.adapters.http.guard import BrowserGuard
from knotwork.adapters.http.routers import data, hygiene, knowledge, links, memories, tools, ui
from knotwork.adapters.http.timing import SearchTimer
from knotwork.render.respond import Responder
from knotwork.service import Knotwork
from knotwork.services.recall import Latencies

if TYPE_CHECKING:
    from mcp.server import MCPServer

ROUTERS: tuple[APIRouter, ...] = (
    memories.router, links.router, data.router, tools.router, knowledge.router, hygiene.router, ui.router
)
MCP_PATH = "/mcp"


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# The web UI's page and built files hold no data: a browser must load them to be asked for the token.
OPEN_PATHS = ("/",)
OPEN_PREFIX = "/ui/static/"


def _ui_shell(scope: Scope) -> bool:
    path = scope.get("path", "")
    return scope["method"] in ("GET", "HEAD") and (path in OPEN_PATHS or path.startswith(OPEN_PREFIX))


class BearerToken:
    """Refuse every HTTP request (REST, MCP, the UI's data) that lacks ``Authorization: Bearer <token>``,
    except GETs of the web UI's page and static files."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not _ui_shell(scope):
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

    ``api_token``, when given, is required as a bearer token on every request but the web UI's
    page and static files. Writes are guarded against other sites' pages (:mod:`.guard`); without a
    token, a loopback ``host`` answers loopback names only.
    """
    from fastapi.staticfiles import StaticFiles

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
    app.state.search_latencies = Latencies()
    app.mount("/ui/static", StaticFiles(directory=ui.STATIC, check_dir=False), name="ui-static")
    app.router.routes.extend(mcp_routes)
    app.add_middleware(SearchTimer, latencies=app.state.search_latencies)
    app.add_middleware(BrowserGuard, loopback_only=not api_token and is_loopback(host))
    if api_token:
        app.add_middleware(BearerToken, token=api_token)
    return app
