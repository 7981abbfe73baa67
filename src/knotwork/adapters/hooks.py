"""Session hooks for coding agents: read the agent's hook JSON, answer with the context to inject.

Claude Code runs a hook command with a JSON object on stdin (``session_id``,
``cwd``, ``hook_event_name``, and ``prompt`` for UserPromptSubmit, ``source``
for SessionStart) and adds what the command prints to the conversation: plain
text, or ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}``.
Cline takes ``{"cancel": false, "contextModification": ...}``; ``text`` prints
the context alone, for anything else.

A hook asks the running ``knotwork serve`` first (``POST /tools/ambient_recall``)
and, when nothing answers, recalls in-process from the store file. This module
imports only the standard library and the settings at load time, so a hook
that reaches the server starts quickly; the store is opened only when needed.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from knotwork.config import Settings

SESSION_START = "SessionStart"
USER_PROMPT = "UserPromptSubmit"
_NOT_NAME = re.compile(r"[^A-Za-z0-9._:@/+-]+")
_LOOPBACK_FOR_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


class HookError(Exception):
    """The hook input cannot be used (not JSON, not an object, a field of the wrong type)."""


@dataclass(frozen=True, slots=True)
class HookInput:
    """The fields of an agent's hook JSON that knotwork uses."""

    event: str
    cwd: str | None = None
    session_id: str | None = None
    prompt: str | None = None
    source: str | None = None  # SessionStart: startup, resume, clear or compact


def read_input(stream: IO[str], default_event: str) -> HookInput:
    """Parse the hook JSON on ``stream``; an empty stream is an event with no fields."""
    raw = stream.read()
    if not raw.strip():
        return HookInput(default_event)
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


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.git`` (a folder, or a file in a worktree); else ``cwd``."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def workspace_for(cwd: str | None, configured: str | None) -> str | None:
    """The configured workspace, else the project's folder name made into a valid workspace name."""
    if configured:
        return configured
    if not cwd:
        return None
    name = _NOT_NAME.sub("-", project_root(Path(cwd).expanduser()).name).strip("-._:@/+")[:128]
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


def server_url(settings: Settings, url: str | None = None) -> str:
    if url:
        return url.rstrip("/")
    host = _LOOPBACK_FOR_ANY.get(settings.host, settings.host)
    return f"http://[{host}]:{settings.port}" if ":" in host else f"http://{host}:{settings.port}"


def ask_server(base: str, body: dict[str, Any], token: str | None, timeout_s: float) -> dict[str, Any] | None:
    """The server's answer, or None when no server answers (refused, unreachable, timed out).

    A server that answers with an error is not "down": its JSON error is
    raised as :class:`HookError`, so a bad request is not silently retried
    in-process.
    """
    request = urllib.request.Request(
        f"{base}/tools/ambient_recall",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {exc.code}"
        raise HookError(f"server at {base}: {message}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError):
        return None


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
    answer = None if db else ask_server(server_url(settings, url), body, settings.api_token, settings.hook_timeout_s)
    where = "server"
    if answer is None:
        answer, where = recall_in_process(body, settings, db), "local"
    return hook_output(answer["text"], hook.event, fmt), where
