"""What keeps a browser page of another site from using the server: checks on Host, Origin and write bodies.

A browser sends cookies and reaches loopback on a page's behalf, but it never adds an
``Authorization`` header or a JSON body to a cross-site form post by itself, and it names the
page's site in ``Origin`` on every cross-site write. So:

- a write (POST, PUT, PATCH, DELETE) whose ``Origin`` is not this server is refused (403);
- a write with a body a plain HTML form can send (form-urlencoded, multipart, text/plain) is
  refused (415): the API takes JSON (and JSON lines for /import), which a form cannot post;
- a server bound to loopback without a token answers only requests addressed to a loopback
  name (``Host``), so a site that points its own name at 127.0.0.1 (DNS rebinding) gets 403.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from knotwork.adapters.http.errors import error_body

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def _host_name(host: str) -> str:
    """``Host`` without its port: ``[::1]:8765`` -> ``::1``, ``127.0.0.1:80`` -> ``127.0.0.1``."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback_name(host: str) -> bool:
    name = _host_name(host).lower()
    return name in LOOPBACK_NAMES or name.startswith("127.")


async def _refuse(send: Send, status: int, kind: str, message: str) -> None:
    body = json.dumps(error_body(kind, message)).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
    })
    await send({"type": "http.response.body", "body": body})


class BrowserGuard:
    """Refuse cross-site writes, form bodies, and (with ``loopback_only``) requests to a non-loopback Host."""

    def __init__(self, app: ASGIApp, loopback_only: bool) -> None:
        self.app = app
        self.loopback_only = loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        host = headers.get("host", "")
        if self.loopback_only and host and not is_loopback_name(host):
            await _refuse(send, 403, "forbidden", f"this server answers loopback names only, not Host {host!r}")
            return
        if scope["method"] in WRITES:
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
                await _refuse(send, 403, "forbidden", f"write refused: Origin {origin!r} is not this server ({host})")
                return
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind in FORM_TYPES:
                message = f"write refused: send JSON (Content-Type: application/json), not {kind}"
                await _refuse(send, 415, "unsupported_media_type", message)
                return
        await self.app(scope, receive, send)
