"""Going through a running ``knotwork serve``: finding it, and the stdio MCP server as a client of its ``/mcp``.

An agent session starts ``knotwork mcp`` over stdio. On its own, that process
opens the store and loads the models (a few hundred MB per session). When a
server holds the same store, the stdio process is instead a client of the
server's MCP endpoint: each message the agent sends goes to ``/mcp`` as it
came, and each answer comes back as the server gave it. The server parses,
calls the service and renders, with the same scope rules as for any other
client (its token, ``serve -w``); this process holds no store and no model.

Which server: ``KNOTWORK_URL`` names one (it must answer), ``KNOTWORK_URL=none``
turns this off, and otherwise the default address (``KNOTWORK_HOST``/``PORT``)
is asked once, briefly, and used only when it answers for the same database
this process would open. The discovery reads the environment with the
standard library, so a process that goes through a server never imports the
service, numpy or a model (see :func:`fast_mcp`, run by ``entry.main``).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

OFF = ("none", "off", "local")
PROBE_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class Server:
    """A server this process goes through: its base URL and the token it is shown (None: none)."""

    url: str
    token: str | None


def _env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """``KNOTWORK_*`` variables, lower-cased names (as pydantic matches them)."""
    return {k.lower(): v for k, v in (os.environ if environ is None else environ).items() if k[:9].lower() == "knotwork_"}


def _default_database(env: dict[str, str]) -> str:
    """The database this process would open (``Settings.database``): ``KNOTWORK_DB`` or ``KNOTWORK_HOME/knotwork.db``."""
    if env.get("knotwork_db"):
        return env["knotwork_db"]
    return str(Path(env.get("knotwork_home") or "~/.knotwork").expanduser() / "knotwork.db")


def _same_file(a: str, b: str) -> bool:
    if "://" in a or "://" in b:
        return a == b
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return False


def _status(base: str, token: str | None, timeout_s: float) -> dict | None:
    """The server's ``GET /status`` as JSON; None when nothing answers there, or the answer is not its status."""
    from urllib.error import HTTPError, URLError
    from urllib.request import Request, urlopen

    headers = {"accept": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    try:
        with urlopen(Request(f"{base}/status?format=json", headers=headers), timeout=timeout_s) as answer:  # noqa: S310 - http(s) only, see find_server
            body = json.loads(answer.read())
    except (HTTPError, URLError, OSError, ValueError):
        return None
    return body if isinstance(body, dict) and "store" in body else None


class ServerUnavailable(Exception):
    """``KNOTWORK_URL`` names a server that does not answer."""


def find_server(
    url: str | None, token: str | None, host: str = "127.0.0.1", port: int | str = 8765, database: str = ""
) -> Server | None:
    """The server this process goes through, or None to work in-process (see the module docstring).

    ``url``: ``KNOTWORK_URL`` (None: unset); ``host``/``port``: the default address; ``database``: the one this
    process would open, which a server at the default address must hold to be used. Raises
    :class:`ServerUnavailable` when ``url`` names a server that does not answer: the caller asked for that
    server, so falling back to another store silently would be wrong.
    """
    named = (url or "").strip()
    if named.lower() in OFF:
        return None
    if named:
        if not named.startswith(("http://", "https://")):
            raise ServerUnavailable(f"KNOTWORK_URL must be an http:// or https:// URL (or none), got {named!r}")
        base = named.rstrip("/")
        if _status(base, token, PROBE_TIMEOUT_S * 5) is None:
            raise ServerUnavailable(f"no knotwork server answers at {base} (KNOTWORK_URL); unset it or set it to none")
        return Server(base, token)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    status = _status(base, token, PROBE_TIMEOUT_S)
    if status is None or not _same_file(str(status["store"]), database):
        return None
    return Server(base, token)


def light_server(environ: dict[str, str] | None = None) -> Server | None:
    """:func:`find_server` from ``KNOTWORK_*`` variables read with the standard library (as the session hooks'
    ``light_settings`` do): a process that goes through a server never imports the settings' machinery."""
    env = _env(environ)
    port = env.get("knotwork_port", "8765").strip()
    if not port.isdigit():
        return None  # left to the full settings, which name the problem
    return find_server(env.get("knotwork_url"), env.get("knotwork_api_token") or None, env.get("knotwork_host", "127.0.0.1"),
                       port, _default_database(env))


def bridge(server: Server) -> None:
    """Serve MCP on stdin/stdout by passing every message to the server's ``/mcp`` and its answers back."""
    import anyio

    anyio.run(_bridge, server)


async def _bridge(server: Server) -> None:
    import anyio
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.stdio import stdio_server
    from mcp.shared._httpx_utils import create_mcp_http_client

    from knotwork.adapters.mcp_stdio import AnsweringReader

    reader = AnsweringReader(sys.stdin.buffer)
    headers = {"authorization": f"Bearer {server.token}"} if server.token else None
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(f"{server.url}/mcp", http_client=client) as (remote_in, remote_out),
        stdio_server(stdin=reader) as (local_in, local_out),  # type: ignore[arg-type]
    ):
        reader.answer_to(local_out)
        async with anyio.create_task_group() as tg:

            async def upstream() -> None:
                async for message in local_in:
                    if not isinstance(message, Exception):  # the reader answered malformed lines already
                        await remote_out.send(message)
                tg.cancel_scope.cancel()  # the agent closed stdin: the session is over

            async def downstream() -> None:
                async for message in remote_in:
                    if isinstance(message, Exception):
                        print(f"knotwork mcp: {server.url}/mcp: {message}", file=sys.stderr)
                        continue
                    await local_out.send(message)

            tg.start_soon(upstream)
            tg.start_soon(downstream)


def _light_mcp_args(args: list[str]) -> bool:
    """True when ``knotwork mcp ARGS`` asks nothing a server could not give: no ``--db`` (a store named here),
    no workspace of its own (``-w``; the server's scope for this caller applies instead) and the full tool set."""
    return args in ([], ["--tools", "all"], ["--tools=all"])


def fast_mcp(args: list[str]) -> int | None:
    """Run ``knotwork mcp ARGS`` through a running server; None when it must run in-process instead."""
    if not _light_mcp_args(args):
        return None
    env = _env()
    if env.get("knotwork_workspace") and not env.get("knotwork_api_token"):
        return None  # a workspace of its own and no token the server could scope by: in-process, limited to it
    try:
        server = light_server()
    except ServerUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if server is None:
        return None
    print(f"knotwork mcp: through the server at {server.url}", file=sys.stderr)
    bridge(server)
    return 0
