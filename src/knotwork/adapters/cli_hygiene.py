"""Hygiene commands: ``knotwork prune``, ``duplicates``, ``merge``, ``backup`` and ``restore``."""

from __future__ import annotations

import click

from knotwork.adapters.cli_common import _answer, _settings, _workspace, through_server, with_store, workspace_option
from knotwork.config import Settings
from knotwork.domain.models import ALL_WORKSPACES
from knotwork.errors import InvalidInput
from knotwork.service import Knotwork
from knotwork.service_api import ServiceApi


@click.command()
@with_store
@through_server
def prune(mem: ServiceApi, settings: Settings, fmt: str) -> str:
    """Purge expired memories (with their vectors, links and the facts only they gave) and keep the latest
    snapshot of each day per key."""
    return _answer(mem, "prune", mem.prune(), fmt)


@click.command()
@click.option("-t", "--threshold", type=float, default=0.95, show_default=True, help="Least cosine similarity, 0.5-1.")
@workspace_option
@click.option("--agent", "agent_id", default="*", show_default=True, help="Partition (* for every one).")
@click.option("-n", "--limit", type=int, default=50, show_default=True, help="Most groups to show.")
@with_store
@through_server
def duplicates(
    mem: ServiceApi, settings: Settings, fmt: str, threshold: float, workspace: str | None, agent_id: str, limit: int
) -> str:
    """Groups of near-duplicate memories (same workspace and partition), most similar first."""
    scope = _workspace(settings, workspace) if workspace or settings.workspace else ALL_WORKSPACES
    return _answer(mem, "duplicates", mem.find_duplicates(threshold, workspace=scope, agent_id=agent_id, limit=limit), fmt)


@click.command()
@click.argument("ids", nargs=-1, required=True)
@with_store
@through_server
def merge(mem: ServiceApi, settings: Settings, fmt: str, ids: tuple[str, ...]) -> str:
    """Fold IDS into the first: it supersedes the others, which are retired (kept with history and links)."""
    return _answer(mem, "merge", mem.merge(list(ids)), fmt)




@click.command()
@click.argument("target", type=click.Path(dir_okay=False))
@with_store
def backup(mem: Knotwork, settings: Settings, fmt: str, target: str) -> str:
    """Write a consistent copy of the store to the new file TARGET, while others go on using it."""
    return _answer(mem, "backup", mem.backup(target), fmt)


@click.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--db", "db", metavar="PATH", help="Database file to restore into (default $KNOTWORK_HOME/knotwork.db).")
@click.option("--yes", is_flag=True, help="Confirm: the store's current content is replaced.")
@click.pass_context
def restore(ctx: click.Context, source: str, db: str | None, yes: bool) -> None:
    """Replace the store's content with the backup SOURCE (stop servers that hold the store open first)."""
    from knotwork.app import restore as restore_store

    if not yes:
        raise InvalidInput("restore", "replaces the store's content with the backup: pass --yes to confirm")
    path = restore_store(source, db, settings=_settings(ctx))
    click.echo(f"✓ Restored {source} into {path}")


@click.command()
@click.option("--repair", is_flag=True, help="Rebuild a full-text index that disagrees; embed memories without vectors.")
@with_store
def check(mem: Knotwork, settings: Settings, fmt: str, repair: bool) -> None:
    """Check the store's consistency (exit 1 when something is still wrong)."""
    report = mem.check(repair=repair)
    click.echo(_answer(mem, "check", report, fmt))
    if not report.ok:
        raise SystemExit(1)


COMMANDS = (prune, duplicates, merge, backup, restore, check)
