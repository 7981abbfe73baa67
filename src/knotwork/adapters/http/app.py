"""Composition of the HTTP app: routers per area, one error mapping, bearer-token auth, MCP at /mcp.

Adding an area (as the knowledge graph's entities and facts were) is one
router module under ``routers/`` and one entry in :data:`ROUTERS`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from fastapi import APIRouter, FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from knotwork.adapters.credentials import TokenBook
from knotwork.adapters.http import docs as api_docs
from knotwork.adapters.http import errors
from knotwork.adapters.http.guard import WRITES, BodyLimit, BrowserGuard
from knotwork.adapters.http.routers import data, hygiene, knowledge, links, memories, tools, ui
from knotwork.adapters.http.timing import SearchTimer
from knotwork.errors import InvalidInput
from knotwork.limits import REQUEST_BYTES
from knotwork.render.respond import Responder
from knotwork.service import Knotwork
from knotwork.views.access import Scope as AccessScope
from knotwork.views.access import of_workspace
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


# The web UI's page and built files, and the API docs' scripts, hold no data: a browser must load them to be
# asked for the token.
OPEN_PATHS = ("/",)
OPEN_PREFIXES = ("/ui/static/", api_docs.ASSETS + "/")


def _ui_shell(scope: Scope) -> bool:
    path = scope.get("path", "")
    return scope["method"] in ("GET", "HEAD") and (path in OPEN_PATHS or path.startswith(OPEN_PREFIXES))


#: Where :class:`Access` leaves the caller's scope for the routes (``request.state``) and for MCP tools.
CALLER_STATE = "knotwork_caller"


class Access:
    """Who is calling, for every HTTP request (REST, MCP, the UI's data) but GETs of the web UI's page and files.

    With ``KNOTWORK_API_TOKEN`` or a tokens file (:mod:`knotwork.adapters.credentials`) a request needs
    ``Authorization: Bearer <token>``: the API token is the owner's (every workspace), a file's token has
    its own scope; anything else is refused (401). Without either, every caller is the owner (until a token is
    made: from then on, even after the last one is revoked, a token is asked for). A server
    started with a workspace (``serve -w``) narrows every caller's scope to it. The scope goes to
    ``request.state`` (:data:`CALLER_STATE`), where the routes and the MCP tools find it.
    """

    def __init__(self, app: ASGIApp, token: str | None, book: TokenBook | None, server: AccessScope | None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.book = book
        self.server = server
        #: Once a server has a token, it asks for one until it stops: revoking the last token of the file
        #: must lock it, not open it to every caller as the owner.
        self.secured = self.expected is not None or bool(book)

    def _caller(self, given: bytes) -> AccessScope | None:
        found = None
        if self.expected is not None and hmac.compare_digest(given, self.expected):
            found = AccessScope()
        elif self.book is not None and given.startswith(b"Bearer "):
            found = self.book.scope_of(given[7:].decode("utf-8", errors="replace"))
        return found

    def _identify(self, scope: Scope) -> AccessScope | None:
        """The scope of the request's caller; None when it must show a token and has not shown a good one."""
        self.secured = self.secured or bool(self.book)
        if self.secured:
            caller = self._caller(dict(scope.get("headers") or ()).get(b"authorization", b""))
            if caller is None:
                return None
        else:
            caller = AccessScope()
        return caller.within(self.server) if self.server is not None else caller

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not _ui_shell(scope):
            try:
                caller = self._identify(scope)
            except InvalidInput as exc:  # a tokens file edited by hand into something unreadable: nobody but
                print(f"knotwork: {exc}", file=sys.stderr, flush=True)  # the owner's token gets in
                await _refuse(send, 503, "unavailable", "the server's tokens file cannot be read (see the server's log)")
                return
            if caller is None:
                await _refuse(send, 401, "unauthorized", "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])
                return
            scope.setdefault("state", {})[CALLER_STATE] = caller
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, kind: str, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(errors.error_body(kind, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(headers or [])],
        }
    )
    await send({"type": "http.response.body", "body": body})


def check_token(token: str | None) -> None:
    """Refuse a token no client could send as it is: blank, or with spaces around it (HTTP trims them)."""
    if token and (not token.strip() or token != token.strip()):
        raise InvalidInput("KNOTWORK_API_TOKEN", "is blank or has spaces around it; give the exact text clients will send")


def create_app(
    mem: Knotwork,
    *,
    default_workspace: str | None = None,
    api_token: str | None = None,
    mcp_server: MCPServer | None = None,
    host: str = "127.0.0.1",
    tokens: TokenBook | None = None,
    limit_to_default: bool = False,
) -> FastAPI:
    """The REST API over ``mem``; with ``mcp_server``, its streamable HTTP transport is served at ``/mcp`` too.

    ``api_token``, when given, is required as a bearer token on every request but the web UI's
    page and static files; ``tokens`` adds tokens bound to workspaces (:class:`Access`);
    ``limit_to_default`` limits every caller to ``default_workspace`` (``knotwork serve -w``). Writes are guarded against other sites' pages (:mod:`.guard`); without a
    token, a loopback ``host`` answers loopback names only.
    """
    from fastapi.staticfiles import StaticFiles

    from knotwork.version import __version__

    check_token(api_token)

    mcp_routes: list[Any] = []
    if mcp_server is not None:
        # The SDK builds a Starlette app whose lifespan runs the session manager.
        # A mounted app's lifespan never runs, so take its /mcp route and run the
        # session manager from this app's lifespan instead.
        # Stateless: every message stands alone, so whichever process of `serve --workers N` (or whichever
        # server behind a load balancer) takes a request can answer it; a session held in one process's memory
        # would be unknown to the others.
        # The SDK's own Host check (on for three loopback spellings only) is off: BrowserGuard applies one rule,
        # the same on /mcp as on every other route (KNOTWORK_ALLOWED_HOSTS included).
        from mcp.server.transport_security import TransportSecuritySettings

        unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        mcp_routes = list(
            mcp_server.streamable_http_app(
                streamable_http_path=MCP_PATH, host=host, stateless_http=True, transport_security=unchecked
            ).routes
        )
        from knotwork.adapters.mcp import KnotworkServer

        if isinstance(mcp_server, KnotworkServer):
            mcp_server.callers_required = True  # every /mcp request passes Access: a message without its scope is refused

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Trigger: more requests at once than the process can run (8 clients, 2 cores). Why: the endpoints are
        # plain functions that FastAPI runs in anyio's thread pool (40 threads by default); every thread beyond a
        # few only contends for the GIL and the cores, and keeps a SQLite reader and its cache of its own.
        # Outcome: at most ``serve_threads`` requests run at once; the others wait in the event loop.
        to_thread.current_default_thread_limiter().total_tokens = mem.settings.serve_threads
        await run_in_threadpool(mem.warm, True)  # the first recall should not pay for the tokenizer, the model or the index
        mem.start_enrichment_worker(server=True)  # the store's one worker process reads queued memories in, earlier ones too
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
        docs_url=None,  # served offline by api_docs.router instead of from a CDN
        redoc_url=None,
    )
    app.state.mem = mem
    app.state.respond = Responder(mem)
    app.state.default_workspace = default_workspace
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    app.state.search_latencies = Latencies()
    app.include_router(api_docs.router)
    app.mount(api_docs.ASSETS, api_docs.assets(), name="docs-assets")
    app.mount("/ui/static", StaticFiles(directory=ui.STATIC, check_dir=False), name="ui-static")
    app.router.routes.extend(mcp_routes)
    if mcp_server is not None:
        from knotwork.adapters.http.mcp_envelope import McpEnvelope

        app.add_middleware(McpEnvelope, path=MCP_PATH)  # inside BodyLimit: the body it reads is bounded
    app.add_middleware(SearchTimer, latencies=app.state.search_latencies)
    app.add_middleware(BodyLimit, limit=REQUEST_BYTES)
    secured = bool(api_token or tokens)
    app.add_middleware(BrowserGuard, loopback_only=not secured and is_loopback(host), allowed_hosts=mem.settings.allowed_hosts)
    server = of_workspace(default_workspace) if limit_to_default else None
    app.add_middleware(Access, token=api_token, book=tokens, server=server)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "message"],
            "properties": {"type": {"type": "string"}, "message": {"type": "string"}, "field": {"type": "string"}},
        }
    },
}
ERROR_ANSWERS = {
    "400": "invalid input, an ambiguous short id, or a request without a Host header",
    "401": "a missing or wrong bearer token (when the server has KNOTWORK_API_TOKEN or tokens)",
    "403": "what the caller may not do: a workspace outside its scope, '*', a write with a read-only token, an"
           " operation of the owner's; a request to a loopback server by a name that is not its own (Host), or"
           " a write from another site's page (Origin)",
    "404": "no such memory, relationship, entity or fact (in the path, or named in the request), or one outside"
           " the caller's scope",
    "413": "the request body is over the limit",
    "422": "a malformed request (a missing or mistyped field, a value out of range)",
    "503": "the store's database cannot be reached, or the server's tokens file cannot be read",
}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's spec, completed with what its routes cannot declare: every error answer (JSON
    ``{error: {type, message, field?}}``, not FastAPI's own 422 shape) and, where ``format`` may ask for it,
    the compact text answer beside JSON."""
    if app.openapi_schema:
        return app.openapi_schema
    from fastapi.openapi.utils import get_openapi

    spec = get_openapi(title=app.title, version=app.version, summary=app.summary, description=app.description, routes=app.routes)
    spec.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in spec.get("paths", {}).items():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            compact = any(p.get("name") == "format" for p in operation.get("parameters", []))
            for status, answer in answers.items():
                if compact and status.startswith("2"):
                    answer.setdefault("content", {})["text/plain"] = {"schema": {"type": "string"}}
            errors_here = dict(ERROR_ANSWERS)
            if method.upper() in WRITES:
                errors_here["415"] = "a write whose body is a form's (form-urlencoded, multipart, text/plain), not JSON"
            for status, description in errors_here.items():
                answers[status] = {
                    "description": description,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
    app.openapi_schema = spec
    return spec
