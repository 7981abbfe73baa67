"""``knotwork hook …`` and ``knotwork install …``: session hooks and their installation.

A hook command never exits with 2: Claude Code reads exit code 2 from a
UserPromptSubmit hook as "block this prompt". A hook that fails prints one
line on stderr and exits 1, which the agent shows and otherwise ignores.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import click

from knotwork.config import Settings

HOOK_KINDS = ("session-start", "user-prompt")


class UsageFailure(click.ClickException):
    """Bad input to an install command: one line on stderr, exit 2."""

    exit_code = 2


class HookFailure(click.ClickException):
    """A hook that could not answer: one line on stderr, exit 1 (never 2, which blocks a prompt)."""

    exit_code = 1


def _settings(ctx: click.Context) -> Settings:
    return ctx.ensure_object(dict).setdefault("settings", Settings())


def _hook_command(kind: str, summary: str) -> click.Command:
    @click.command(kind, help=summary)
    @click.option("--db", "db", metavar="PATH", help="Recall from this database file in-process (skips the server).")
    @click.option("-w", "--workspace", help="Workspace (default $KNOTWORK_WORKSPACE, else the project folder's name).")
    @click.option("--budget", type=click.IntRange(1, 32000), help="Most o200k tokens to inject.")
    @click.option(
        "--format", "fmt", type=click.Choice(["json", "text", "cline"]), default="json", show_default=True,
        help="json: Claude Code's hookSpecificOutput; cline: Cline's contextModification; text: the context alone.",
    )
    @click.option("--url", help="Server to ask (default http://$KNOTWORK_HOST:$KNOTWORK_PORT).")
    @click.pass_context
    def command(ctx: click.Context, db: str | None, workspace: str | None, budget: int | None, fmt: str, url: str | None) -> None:
        from knotwork.adapters.hooks import HookError, run_hook
        from knotwork.errors import KnotworkError

        from knotwork.adapters import newstore

        fresh = newstore.missing(db, _settings(ctx)) if db is not None else None
        if fresh is not None:  # a hook only reads: a misspelt --db is not an empty store
            raise HookFailure(f"hook {kind}: {newstore.refuse(fresh)}")
        try:
            out, _ = run_hook(kind, sys.stdin, _settings(ctx), fmt=fmt, workspace=workspace, budget=budget, db=db, url=url)
        except (HookError, KnotworkError, OSError) as exc:
            raise HookFailure(f"hook {kind}: {exc}") from None
        if out:
            click.echo(out)

    return command


@click.group()
def hook() -> None:
    """Print context for a coding agent's hook (reads the hook JSON on stdin)."""


hook.add_command(_hook_command("session-start", "SessionStart: directives, what is relevant, recent work."))
hook.add_command(_hook_command("user-prompt", "UserPromptSubmit: memories relevant to the prompt."))


@click.group()
def install() -> None:
    """Connect knotwork to a coding agent."""


def _executable() -> str:
    beside = Path(sys.executable).parent / "knotwork"
    return str(beside) if beside.exists() else (shutil.which("knotwork") or "knotwork")


@install.command("claude-code")
@click.option("--dry-run", is_flag=True, help="Print the entries and where they would go; write nothing.")
@click.option("--settings", "settings_path", type=click.Path(dir_okay=False), help="Hooks file (default ~/.claude/settings.json).")
@click.option("--mcp-config", "mcp_path", type=click.Path(dir_okay=False), help="MCP servers file (default ~/.claude.json).")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: Claude Code starts `knotwork mcp`; http: it connects to `knotwork serve`.")
@click.option("--command", "executable", help="The knotwork executable to run (default: this one).")
@click.pass_context
def claude_code(
    ctx: click.Context, dry_run: bool, settings_path: str | None, mcp_path: str | None, transport: str, executable: str | None
) -> None:
    """Add knotwork's MCP server and its SessionStart/UserPromptSubmit hooks to Claude Code's settings."""
    from knotwork.adapters import install as installer
    from knotwork.adapters.hooks import server_url

    settings = _settings(ctx)
    home = Path("~").expanduser()
    target_settings = Path(settings_path).expanduser() if settings_path else home / ".claude" / "settings.json"
    target_mcp = Path(mcp_path).expanduser() if mcp_path else home / ".claude.json"
    exe = executable or _executable()
    try:
        changes = installer.plan(target_settings, target_mcp, exe, transport, server_url(settings) + "/mcp", settings.api_token)
    except installer.InstallError as exc:
        raise UsageFailure(str(exc)) from None
    if dry_run:
        click.echo(json.dumps({str(c.path): c.added for c in changes}, indent=2, ensure_ascii=False))
        return
    for change in changes:
        backup = installer.apply(change)
        note = f" (previous file kept as {backup.name})" if backup else " (new file)"
        click.echo(f"✓ {change.path}: {', '.join(_summary(change.added))}{note}")


def _summary(added: dict) -> list[str]:
    if "mcpServers" in added:
        return [f"MCP server {name}" for name in added["mcpServers"]]
    return [f"{event} hook" for event in added.get("hooks", {})]


COMMANDS = (hook, install)
