"""Session hooks for coding agents: read the agent's hook JSON, answer with the context to inject.

Claude Code runs a hook command with a JSON object on stdin (``session_id``,
``cwd``, ``hook_event_name``, and ``prompt`` for UserPromptSubmit, ``source``
for SessionStart) and adds what the command prints to the conversation: plain
text, or ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}``.
Cline takes ``{"cancel": false, "contextModification": ...}``; ``text`` prints
the context alone, for anything else.

A hook asks the running ``knotwork serve`` of its own store first (``POST
/tools/ambient_recall``) and, when none runs or it does not answer, recalls
in-process from the store file. Which server serves its store is read from the
record a server writes beside the database it serves (:func:`record_path`),
so a hook never reads another store's server and pays one small file read for
the check instead of a status request.

A hook runs as a new process on every prompt, so its import time is part of
every round trip. This module imports only what the interpreter has loaded
anyway plus ``json`` and ``socket`` (no click, pydantic, urllib, dataclasses,
numpy or the store): :func:`fast_hook` reads the few settings a hook needs
from the environment itself and speaks HTTP/1.1 over a plain socket. Anything
it cannot do alone (no server, an option it does not know, input to report
as an error) goes to the full ``knotwork hook`` command.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sys

TYPE_CHECKING = False  # typing itself is not imported at run time: it costs a hook tens of milliseconds
if TYPE_CHECKING:
    from typing import IO, Any

    from knotwork.config import Settings

SESSION_START = "SessionStart"
USER_PROMPT = "UserPromptSubmit"
_NOT_NAME = re.compile(r"[^A-Za-z0-9._:@/+-]+")
_LOOPBACK_FOR_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


class HookError(Exception):
    """The hook input cannot be used (not JSON, not an object, a field of the wrong type)."""


class HookInput:
    """The fields of an agent's hook JSON that knotwork uses."""

    __slots__ = ("event", "cwd", "session_id", "prompt", "source")

    def __init__(
        self,
        event: str,
        cwd: str | None = None,
        session_id: str | None = None,
        prompt: str | None = None,
        source: str | None = None,  # SessionStart: startup, resume, clear or compact
    ) -> None:
        self.event, self.cwd, self.session_id, self.prompt, self.source = event, cwd, session_id, prompt, source

    def __repr__(self) -> str:
        return f"HookInput({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HookInput) and all(getattr(self, n) == getattr(other, n) for n in self.__slots__)


def read_input(stream: IO[str], default_event: str) -> HookInput:
    """Parse the hook JSON on ``stream``; an empty stream is an event with no fields."""
    return parse_input(stream.read(), default_event)


def parse_input(raw: str, default_event: str) -> HookInput:
    """Parse hook JSON text; empty text is an event with no fields."""
    if not raw.strip():
        return HookInput(default_event)
    if any("\udc80" <= ch <= "\udcff" for ch in raw):  # bytes that were not UTF-8, as Python reads stdin
        from knotwork.adapters.encoding import not_utf8

        problem = not_utf8(raw.encode("utf-8", "surrogateescape"), "hook input on stdin", likely="the agent sent another encoding")
        if problem:
            raise HookError(problem)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HookError(f"hook input is not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(data, dict):
        raise HookError(f"hook input must be a JSON object, got {type(data).__name__}")
    for name in ("hook_event_name", "cwd", "session_id", "prompt", "source"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise HookError(f"hook input field {name!r} must be a string, got {type(data[name]).__name__}")
    # Cursor names the project in workspace_roots, Cline in workspaceRoots and nests the prompt.
    roots = data.get("workspace_roots") or data.get("workspaceRoots") or []
    nested = data.get("userPromptSubmit") if isinstance(data.get("userPromptSubmit"), dict) else {}
    return HookInput(
        event=data.get("hook_event_name") or data.get("hookName") or default_event,
        cwd=data.get("cwd") or (roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None),
        session_id=data.get("session_id"),
        prompt=data.get("prompt") or (nested.get("prompt") if isinstance(nested.get("prompt"), str) else None),
        source=data.get("source"),
    )


def project_root(cwd: str) -> str:
    """The nearest folder at or above ``cwd`` holding ``.git`` (a folder, or a file in a worktree); else ``cwd``."""
    folder = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.abspath(cwd)
        folder = parent


def workspace_for(cwd: str | None, configured: str | None) -> str | None:
    """The configured workspace, else the project's folder name made into a valid workspace name."""
    if configured:
        return configured
    if not cwd:
        return None
    name = _NOT_NAME.sub("-", os.path.basename(project_root(os.path.expanduser(cwd)))).strip("-._:@/+")[:128]
    return name or None


def recall_request(hook: HookInput, kind: str, settings: Settings, workspace: str | None, budget: int | None) -> dict[str, Any]:
    """The ``/tools/ambient_recall`` body for a hook of ``kind`` (session-start or user-prompt)."""
    ws = workspace_for(hook.cwd, workspace or settings.workspace)
    if kind == "session-start":
        context = hook.source if hook.source in ("startup", "resume", "clear", "compact") else "startup"
        return {"context": context, "workspace": ws, "budget_tokens": budget or settings.hook_budget_tokens}
    return {
        "context": "prompt",
        "workspace": ws,
        "query": hook.prompt or None,
        "budget_tokens": budget or settings.hook_prompt_budget_tokens,
        # Directives and the clock came with the session start; a turn gets what is relevant to it.
        "sections": ["facts"],
    }


def server_url(settings: Settings, url: str | None = None, host: str | None = None, port: int | None = None) -> str:
    """``url``, or the loopback address of a server on ``host``/``port`` (default: the settings')."""
    if url:
        return url.rstrip("/")
    host = host if host is not None else settings.host
    host = _LOOPBACK_FOR_ANY.get(host, host)
    port = port if port is not None else settings.port
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


# -- the server of this store ---------------------------------------------------------
def record_path(database: str, home: str) -> str | None:
    """Where a ``knotwork serve`` of ``database`` records itself: beside a database file
    (``knotwork.db`` → ``knotwork.db-server.json``), or ``HOME/server.json`` for a database URL; None for ``:memory:``."""
    if database == ":memory:":
        return None
    if "://" in database:
        return os.path.join(os.path.expanduser(home), "server.json")
    return os.path.expanduser(database) + "-server.json"


def _identity(database: str) -> str:
    """How a record names its database: the resolved path of a file; a URL's digest (never its password)."""
    if "://" in database:
        import hashlib

        return "sha256:" + hashlib.sha256(database.encode()).hexdigest()
    return os.path.realpath(os.path.expanduser(database))


def write_record(database: str, home: str, url: str) -> str | None:
    """Record that this process serves ``database`` at ``url`` (see :func:`served_url`); the record's path."""
    path = record_path(database, home)
    if path is None:
        return None
    record = {"url": url, "database": _identity(database), "pid": os.getpid()}
    try:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(tmp, path)
    except OSError:
        return None  # a read-only folder: hooks then recall in-process, as with no server
    return path


def remove_record(path: str | None) -> None:
    """Remove this process's record when it stops (not another server's that replaced it)."""
    if path is None:
        return
    try:
        with open(path, encoding="utf-8") as f:
            mine = json.load(f).get("pid") == os.getpid()
        if mine:
            os.remove(path)
    except (OSError, ValueError, AttributeError):
        pass


def served_url(database: str, home: str) -> str | None:
    """The URL of the running server of ``database``, from its record; None when no server serves this store.

    The record must name this database (a copied folder carries its original's record) and a process that is
    still alive (a killed server leaves its record behind); anything unreadable counts as no server.
    """
    path = record_path(database, home)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        url, pid = record["url"], record["pid"]
        if record["database"] != _identity(database) or not isinstance(url, str) or not url.startswith("http"):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if os.name == "posix":  # elsewhere signal 0 is not a probe
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return None
        except (PermissionError, ValueError, TypeError, OverflowError):
            pass  # alive under another user, or an odd pid: the request itself tells
    return url.rstrip("/")


def hook_server(settings: Settings | HookSettings, url: str | None = None) -> str | None:
    """The server a hook asks: ``--url`` when given, else the one recorded as serving this store (None: none)."""
    if url:
        return url.rstrip("/")
    return served_url(settings.database(), str(settings.home))


_SILENT: set[str] = set()  # servers that did not answer this process: not asked twice


def ask_server(base: str, body: dict[str, Any], token: str | None, timeout_s: float) -> dict[str, Any] | None:
    """The server's answer, or None when no server answers (refused, unreachable, timed out).

    A server that answers with an error is not "down": its JSON error is
    raised as :class:`HookError`, so a bad request is not silently retried
    in-process.
    """
    if base in _SILENT:
        return None
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    try:
        status, raw = post(f"{base}/tools/ambient_recall", json.dumps(body).encode(), headers, timeout_s)
    except OSError:  # refused, unreachable, timed out, cut off
        _SILENT.add(base)
        return None
    if status >= 400:
        try:
            message = json.loads(raw)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {status}"
        raise HookError(f"server at {base}: {message}")
    try:
        return json.loads(raw)
    except ValueError:
        raise HookError(f"server at {base}: the answer is not JSON") from None


def post(url: str, data: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
    """POST ``data``; (status, body). Plain HTTP goes over a socket (one request, then the
    connection closes); anything else (https) through urllib. Network failures raise OSError."""
    if not url.startswith("http://"):
        return _post_urllib(url, data, headers, timeout_s)
    location, _, path = url[len("http://") :].partition("/")
    host, _, port = location[1:].partition("]") if location.startswith("[") else ("", "", "")
    if host:
        port = port.removeprefix(":")
    else:
        host, _, port = location.partition(":")
    if not (host and (port.isdigit() or not port)):
        raise HookError(f"cannot read the server address {url!r}")
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = f"POST /{path} HTTP/1.1\r\nhost: {location}\r\ncontent-length: {len(data)}\r\nconnection: close\r\n{head}\r\n"
    with socket.create_connection((host, int(port or 80)), timeout=timeout_s) as conn:
        conn.sendall(request.encode("latin-1") + data)
        pieces = []
        while piece := conn.recv(65536):
            pieces.append(piece)
    return _response(b"".join(pieces))


def _response(raw: bytes) -> tuple[int, bytes]:
    head, sep, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split()
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ConnectionError("the server's answer is not HTTP")
    fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    if fields.get("transfer-encoding", "").lower() == "chunked":
        out = bytearray()
        while True:
            size_line, _, body = body.partition(b"\r\n")
            try:
                size = int(size_line.split(b";")[0] or b"0", 16)
            except ValueError:
                raise ConnectionError("the server's chunked answer is cut or garbled") from None
            if size == 0:
                break
            out += body[:size]
            body = body[size + 2 :]
        body = bytes(out)
    elif fields.get("content-length", "").isdigit():
        body = body[: int(fields["content-length"])]
    return int(parts[1]), body


def _post_urllib(url: str, data: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def recall_in_process(body: dict[str, Any], settings: Settings, db: str | None) -> dict[str, Any]:
    """The same recall, done here on the store file (when no server runs)."""
    from knotwork.app import open as open_store

    with open_store(db, settings=settings) as mem:
        return mem.recall(
            body["context"],
            workspace=body.get("workspace"),
            query=body.get("query"),
            budget_tokens=body["budget_tokens"],
            sections=body.get("sections"),
        ).to_dict()


def hook_output(text: str, event: str, fmt: str) -> str:
    """What the hook prints: plain text, Claude Code's JSON, or Cline's JSON; nothing when there is no context."""
    if fmt == "cline":
        return json.dumps({"cancel": False, "contextModification": text}, ensure_ascii=False)
    if not text:
        return ""
    if fmt == "text":
        return text
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}, ensure_ascii=False)


def run_hook(
    kind: str,
    stream: IO[str],
    settings: Settings,
    *,
    fmt: str = "json",
    workspace: str | None = None,
    budget: int | None = None,
    db: str | None = None,
    url: str | None = None,
) -> tuple[str, str]:
    """Run one hook: (what to print, "server" or "local" for where the recall ran)."""
    default_event = SESSION_START if kind == "session-start" else USER_PROMPT
    hook = read_input(stream, default_event)
    body = recall_request(hook, kind, settings, workspace, budget)
    if kind == "user-prompt" and not body.get("query"):
        return "", "none"  # nothing asked: nothing to add
    base = None if db else hook_server(settings, url)
    answer = None if base is None else ask_server(base, body, settings.api_token, settings.hook_timeout_s)
    where = "server"
    if answer is None:
        answer, where = recall_in_process(body, settings, db), "local"
    return hook_output(answer["text"], hook.event, fmt), where


# -- the light path ---------------------------------------------------------------------
class HookSettings:
    """The settings a hook reads, from the environment as :class:`knotwork.config.Settings` reads them."""

    __slots__ = ("host", "port", "api_token", "hook_timeout_s", "workspace", "hook_budget_tokens", "hook_prompt_budget_tokens",
                 "home", "db")

    def __init__(self, **values: Any) -> None:
        for name in self.__slots__:
            setattr(self, name, values[name])

    def database(self) -> str:
        """The database this process would open (as ``Settings.database``): ``KNOTWORK_DB`` or ``HOME/knotwork.db``."""
        return self.db or os.path.join(os.path.expanduser(self.home), "knotwork.db")


def light_settings(environ: dict[str, str] | None = None) -> HookSettings | None:
    """:class:`HookSettings` from ``KNOTWORK_*`` variables (any case, as pydantic matches them);
    None when a value needs pydantic's judgement (not plainly valid), so the full path reports it."""
    env = {k.lower(): v for k, v in (os.environ if environ is None else environ).items() if k[:9].lower() == "knotwork_"}

    def number(name: str, default: int, low: int, high: int) -> int | None:
        raw = env.get(f"knotwork_{name}")
        if raw is None:
            return default
        value = raw.strip()
        return int(value) if value.isdigit() and low <= int(value) <= high else None

    def seconds(name: str, default: float) -> float | None:
        raw = env.get(f"knotwork_{name}")
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            return None
        return value if 0 < value < float("inf") else None

    values = {
        "host": env.get("knotwork_host", "127.0.0.1"),
        "port": number("port", 8765, 1, 65535),
        "api_token": env.get("knotwork_api_token"),
        "hook_timeout_s": seconds("hook_timeout_s", 2.0),
        "workspace": env.get("knotwork_workspace"),
        "hook_budget_tokens": number("hook_budget_tokens", 1500, 1, 32000),
        "hook_prompt_budget_tokens": number("hook_prompt_budget_tokens", 600, 1, 32000),
        "home": env.get("knotwork_home") or "~/.knotwork",
        "db": env.get("knotwork_db") or None,
    }
    return None if None in (values["port"], values["hook_timeout_s"], values["hook_budget_tokens"], values["hook_prompt_budget_tokens"]) else HookSettings(**values)


_FORMATS = ("json", "text", "cline")
_VALUED = {"-w": "workspace", "--workspace": "workspace", "--budget": "budget", "--format": "fmt", "--url": "url"}


def _light_args(args: list[str]) -> dict[str, Any] | None:
    """The options of ``knotwork hook KIND ...`` when they are plainly valid and need no store; else None."""
    if not args or args[0] not in ("session-start", "user-prompt"):
        return None
    out: dict[str, Any] = {"kind": args[0], "workspace": None, "budget": None, "fmt": "json", "url": None}
    rest = args[1:]
    while rest:
        name, eq, value = rest.pop(0).partition("=")
        if name not in _VALUED or (eq and name == "-w"):
            return None  # --db, --help, anything unusual: the full command
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        out[_VALUED[name]] = value
    if out["budget"] is not None:
        if not (out["budget"].isdigit() and 1 <= int(out["budget"]) <= 32000):
            return None
        out["budget"] = int(out["budget"])
    return out if out["fmt"] in _FORMATS else None


def fast_hook(args: list[str]) -> int | None:
    """Run ``knotwork hook ARGS`` against the running server with the standard library alone.

    Returns the exit code, or None when the full command must run instead
    (no server answered, an option or value it leaves to click, hook input
    to report as an error); the hook input read from stdin is then put back
    for it, and the server that did not answer is not asked again.
    """
    options = _light_args(args)
    settings = light_settings()
    if options is None or settings is None:
        return None
    raw = sys.stdin.read() if sys.stdin is not None else ""
    sys.stdin = io.StringIO(raw)
    kind = options["kind"]
    try:
        hook = parse_input(raw, SESSION_START if kind == "session-start" else USER_PROMPT)
    except HookError:
        return None
    body = recall_request(hook, kind, settings, options["workspace"], options["budget"])
    if kind == "user-prompt" and not body.get("query"):
        return 0  # nothing asked: nothing to add
    base = hook_server(settings, options["url"])
    if base is None:
        return None  # no server serves this store: the full command recalls in-process
    try:
        answer = ask_server(base, body, settings.api_token, settings.hook_timeout_s)
    except HookError as exc:
        print(f"error: hook {kind}: {exc}", file=sys.stderr)
        return 1
    if answer is None:
        return None
    out = hook_output(answer["text"], hook.event, options["fmt"])
    try:
        if out:
            print(out)
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0
