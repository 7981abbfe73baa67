"""``knotwork recall``, ``knotwork status`` and ``knotwork stats``: ambient recall and the store's state."""

from __future__ import annotations

import click

from knotwork.adapters.cli_common import _workspace, through_server, with_store, workspace_option
from knotwork.config import Settings
from knotwork.render import render
from knotwork.service_api import ServiceApi

SECTIONS = ("clock", "directives", "facts", "graph", "episodes", "entities", "health")


@click.command()
@click.option("--context", default="startup", show_default=True, help="Why: startup, prompt, resume…")
@workspace_option
@click.option("-q", "--query", help="What the turn is about (default: the workspace's focus).")
@click.option("--budget", type=int, default=1500, show_default=True, help="Most o200k tokens of text.")
@click.option("--section", "sections", multiple=True, type=click.Choice(SECTIONS), help="Only these sections (repeat).")
@with_store
@through_server
def recall(mem: ServiceApi, settings: Settings, fmt: str, context: str, workspace: str | None, query: str | None,
           budget: int, sections: tuple[str, ...]) -> str:
    """The context an agent would be given now, within a token budget."""
    result = mem.recall(context, workspace=_workspace(settings, workspace), query=query, budget_tokens=budget,
                        sections=list(sections) or None)
    return render("recall", result, fmt)


@click.command()
@with_store
@through_server
def status(mem: ServiceApi, settings: Settings, fmt: str) -> str:
    """Version, store, schema version, counts and embedder."""
    return render("status", mem.status(), fmt)


@click.command()
@with_store
@through_server
def stats(mem: ServiceApi, settings: Settings, fmt: str) -> str:
    """Memory counts by workspace, category and agent; links; vectors; size."""
    return render("stats", mem.stats(), fmt)


COMMANDS = (recall, status, stats)
