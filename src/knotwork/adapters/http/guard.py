"""What keeps a browser page of another site from using the server: checks on Host, Origin and write bodies.

A browser sends cookies and reaches loopback on a page's behalf, but it never adds an
``Authorization`` header or a JSON body to a cross-site form post by itself, and it names the
page's site in ``Origin`` on every cross-site write. So:

- a write (POST, PUT, PATCH, DELETE) whose ``Origin`` is not this server is refused (403);
- a write with a body a plain HTML form can send (form-urlencoded, multipart, text/plain) is
  refused (415): the API takes JSON (and JSON lines for /import), which a form cannot post;
- a server bound to loopback without a token answers only requests addressed to it by address
  (``Host``): an IP literal in the loopback range, ``localhost``, or a name the operator listed in
  ``KNOTWORK_ALLOWED_HOSTS``. A site that points a name of its own at 127.0.0.1 (DNS rebinding,
  ``127.0.0.1.nip.io``) gets 403 on every route, ``/mcp`` and the web UI included; a request with an
  empty or missing ``Host`` gets 400.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knotwork.adapters.http.errors import error_body

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
_PORT = re.compile(r"[0-9]{1,5}")


def split_host(host: str) -> tuple[str, str | None] | None:
    """``Host`` as (name, port): ``[::1]:8765`` -> (``::1``, ``8765``), ``localhost`` -> (``localhost``, None);
    None when it is not a well-formed host, port included (a port is 1-5 digits up to 65535)."""
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None
        name, rest = host[1:end], host[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:] if rest else None
    elif host.count(":") == 1:
        name, port = host.split(":")
    elif ":" in host:
        return None  # an IPv6 literal must be bracketed in Host
    else:
        name, port = host, None
    if not name or (port is not None and not (_PORT.fullmatch(port) and int(port) <= 65535)):
        return None
    return name, port


def loopback_address(name: str) -> bool:
    """True for an IP literal in the loopback range (127.0.0.0/8, ::1, ::ffff:127.x.y.z), written exactly."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def allowed_names(configured: str | Iterable[str] | None) -> frozenset[str]:
    """The names of ``KNOTWORK_ALLOWED_HOSTS`` (comma-separated), lower-cased, without a trailing dot."""
    items = configured.split(",") if isinstance(configured, str) else (configured or ())
    return frozenset(n.strip().lower().rstrip(".") for n in items if n.strip().rstrip("."))


def is_loopback_name(host: str, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether a loopback server without a token answers a request with this ``Host``: by address, never by a
    name's prefix (``127.0.0.1.nip.io`` is somebody's DNS name). Case does not matter; a trailing dot does
    (``localhost.`` is a name a resolver may look up elsewhere)."""
    parts = split_host(host)
    if parts is None:
        return False
    name = parts[0].lower()
    return name == "localhost" or name in allowed or loopback_address(name)


def same_origin(origin: str, host: str) -> bool:
    """Whether a browser's ``Origin`` names the address the request was sent to (``Host``); a malformed
    Origin (``http://[::1``, ``null``) names nothing and is not."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc.lower() == host.lower()


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

    def __init__(self, app: ASGIApp, loopback_only: bool, allowed_hosts: str | Iterable[str] | None = None) -> None:
        self.app = app
        self.loopback_only = loopback_only
        self.allowed = allowed_names(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        host = headers.get("host", "")
        if self.loopback_only and not host.strip():
            await _refuse(send, 400, "invalid_request", "the request has no Host header; this server answers only"
                          " requests addressed to it (127.0.0.1, [::1] or localhost)")
            return
        if self.loopback_only and not is_loopback_name(host, self.allowed):
            await _refuse(send, 403, "forbidden", f"this server answers loopback addresses, localhost and"
                          f" KNOTWORK_ALLOWED_HOSTS only, not Host {host[:200]!r}")
            return
        if scope["method"] in WRITES:
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, host):
                await _refuse(send, 403, "forbidden", f"write refused: Origin {origin!r} is not this server ({host})")
                return
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind in FORM_TYPES:
                message = f"write refused: send JSON (Content-Type: application/json), not {kind}"
                await _refuse(send, 415, "unsupported_media_type", message)
                return
        await self.app(scope, receive, send)


class _TooLarge(HTTPException):
    """Raised from ``receive``: as an HTTPException it passes the framework's body parsing and its
    handler answers 413."""

    def __init__(self, limit: int, size: int) -> None:
        super().__init__(413, f"the request body is over {limit:,} bytes ({size:,} read); send less at once")


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413, from ``Content-Length`` before reading it, or as
    soon as a streamed body passes the limit; nothing past the limit is read."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send, int(declared))
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge(self.limit, seen)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await self._refuse(send, seen)

    async def _refuse(self, send: Send, size: int) -> None:
        await _refuse(send, 413, "request_too_large", str(_TooLarge(self.limit, size).detail))
