"""Hygiene commands: ``knotwork prune``, ``knotwork duplicates``, ``knotwork merge``."""

from __future__ import annotations

import click

from knotwork.adapters.cli import _answer, _workspace, with_store, workspace_option
from knotwork.config import Settings
from knotwork.domain.models import ALL_WORKSPACES
from knotwork.service import Knotwork


@click.command()
@with_store
def prune(mem: Knotwork, settings: Settings, fmt: str) -> str:
    """Purge expired memories (with their vectors, links and the facts only they gave) and keep the latest
    snapshot of each day per key."""
    return _answer(mem, "prune", mem.prune(), fmt)


@click.command()
@click.option("-t", "--threshold", type=float, default=0.95, show_default=True, help="Least cosine similarity, 0.5-1.")
@workspace_option
@click.option("--agent", "agent_id", default="*", show_default=True, help="Partition (* for every one).")
@click.option("-n", "--limit", type=int, default=50, show_default=True, help="Most groups to show.")
@with_store
def duplicates(
    mem: Knotwork, settings: Settings, fmt: str, threshold: float, workspace: str | None, agent_id: str, limit: int
) -> str:
    """Groups of near-duplicate memories (same workspace and partition), most similar first."""
    scope = _workspace(settings, workspace) if workspace or settings.workspace else ALL_WORKSPACES
    return _answer(mem, "duplicates", mem.find_duplicates(threshold, workspace=scope, agent_id=agent_id, limit=limit), fmt)


@click.command()
@click.argument("ids", nargs=-1, required=True)
@with_store
def merge(mem: Knotwork, settings: Settings, fmt: str, ids: tuple[str, ...]) -> str:
    """Fold IDS into the first: it supersedes the others, which are retired (kept with history and links)."""
    return _answer(mem, "merge", mem.merge(list(ids)), fmt)


COMMANDS = (prune, duplicates, merge)
