"""Wire knotwork into Claude Code: its MCP server entry and its session hooks.

Claude Code reads hooks from ``~/.claude/settings.json`` and user-scope MCP
servers from ``~/.claude.json``. Both files hold other settings that are not
ours: every change here is a merge (our entries added or replaced, nothing
else touched), the previous file is kept as a timestamped backup, and the new
one replaces it atomically. A file that is not a JSON object is refused,
never overwritten.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SERVER_NAME = "knotwork"
HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt"}
HOOK_TIMEOUT_S = 10


class InstallError(Exception):
    """A settings file cannot be merged into (unreadable, not a JSON object, wrong shape)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file to write: where, what it holds now (merged), and what knotwork put in it."""

    path: Path
    merged: dict[str, Any]
    added: dict[str, Any]
    existed: bool


def hook_command(executable: str, kind: str) -> str:
    quoted = f'"{executable}"' if " " in executable else executable
    return f"{quoted} hook {kind}"


def _is_ours(hook: Any, kind: str) -> bool:
    return isinstance(hook, dict) and str(hook.get("command", "")).endswith(f" hook {kind}") and "knotwork" in str(
        hook.get("command", "")
    )


def merge_hooks(settings: dict[str, Any], executable: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``settings`` with knotwork's SessionStart and UserPromptSubmit hooks (replacing earlier knotwork ones)."""
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("'hooks' is not a JSON object")
    added: dict[str, Any] = {}
    for event, kind in HOOK_EVENTS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"'hooks.{event}' is not a list")
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                rest = [h for h in group["hooks"] if not _is_ours(h, kind)]
                if not rest:
                    continue
                group = {**group, "hooks": rest}
            kept.append(group)
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": hook_command(executable, kind), "timeout": HOOK_TIMEOUT_S}]}
        if event == "SessionStart":
            entry = {"matcher": "startup|resume|clear|compact", **entry}
        hooks[event] = [*kept, entry]
        added[event] = [entry]
    return out, {"hooks": added}


def mcp_entry(executable: str, transport: str, url: str, token: str | None) -> dict[str, Any]:
    if transport == "http":
        entry: dict[str, Any] = {"type": "http", "url": url}
        if token:
            entry["headers"] = {"Authorization": f"Bearer {token}"}
        return entry
    return {"type": "stdio", "command": executable, "args": ["mcp"]}


def merge_mcp(config: dict[str, Any], entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    out = copy.deepcopy(config)
    servers = out.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InstallError("'mcpServers' is not a JSON object")
    servers[SERVER_NAME] = entry
    return out, {"mcpServers": {SERVER_NAME: entry}}


def read_json(path: Path) -> tuple[dict[str, Any], bool]:
    """The JSON object in ``path`` ({} when absent) and whether the file existed."""
    if not path.exists():
        return {}, False
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InstallError(f"{path}: cannot read it as JSON ({exc}); fix or move it, then run again") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: holds a JSON {type(data).__name__}, not an object; fix or move it, then run again")
    return data, True


def plan(settings_path: Path, mcp_path: Path, executable: str, transport: str, url: str, token: str | None) -> list[Change]:
    """The changes ``install claude-code`` makes, computed without writing anything."""
    settings, settings_existed = read_json(settings_path)
    try:
        merged_settings, added_hooks = merge_hooks(settings, executable)
    except InstallError as exc:
        raise InstallError(f"{settings_path}: {exc}") from None
    config, config_existed = read_json(mcp_path)
    try:
        merged_config, added_server = merge_mcp(config, mcp_entry(executable, transport, url, token))
    except InstallError as exc:
        raise InstallError(f"{mcp_path}: {exc}") from None
    return [
        Change(mcp_path, merged_config, added_server, config_existed),
        Change(settings_path, merged_settings, added_hooks, settings_existed),
    ]


def apply(change: Change, at: datetime | None = None) -> Path | None:
    """Write one change atomically, keeping the earlier file as ``<name>.knotwork-backup-<time>``; returns the backup."""
    change.path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if change.existed:
        stamp = (at or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
        backup = change.path.with_name(f"{change.path.name}.knotwork-backup-{stamp}")
        shutil.copy2(change.path, backup)
    fd, tmp = tempfile.mkstemp(dir=change.path.parent, prefix=f".{change.path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(change.merged, out, indent=2, ensure_ascii=False)
            out.write("\n")
        if change.existed:
            shutil.copymode(change.path, tmp)
        os.replace(tmp, change.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
