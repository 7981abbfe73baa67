"""``knotwork`` commands of the knowledge graph (:data:`COMMANDS`, which ``adapters.cli`` adds to the main group)."""

from __future__ import annotations

import json
from typing import Any

import click

from knotwork.adapters.cli_common import _answer, _workspace, through_server, with_store, workspace_option
from knotwork.config import Settings
from knotwork.errors import InvalidInput
from knotwork.service_api import ServiceApi
from knotwork.views import elsewhere


def parse_entity(text: str) -> dict[str, str]:
    """``NAME`` or ``NAME:TYPE``."""
    name, sep, kind = text.rpartition(":") if ":" in text else (text, "", "")
    return {"name": name, "type": kind} if sep and kind and " " not in kind else {"name": text}


def parse_fact(text: str) -> dict[str, Any]:
    """``SUBJECT|PREDICATE|OBJECT`` (``|VALID_AT`` may follow, then ``|CONFIDENCE``; an empty VALID_AT is none)."""
    parts = [p.strip() for p in text.split("|")]
    if len(parts) not in (3, 4, 5):
        raise InvalidInput("fact", f"{text!r}: write SUBJECT|PREDICATE|OBJECT[|VALID_AT[|CONFIDENCE]]")
    fact: dict[str, Any] = dict(zip(("subject", "predicate", "object"), parts))
    if len(parts) > 3 and parts[3]:
        fact["valid_at"] = parts[3]
    if len(parts) > 4:
        try:
            fact["confidence"] = float(parts[4])
        except ValueError:
            raise InvalidInput("fact", f"{text!r}: CONFIDENCE must be a number from 0 to 1, got {parts[4]!r}") from None
    return fact


center_option = click.option("--center", help="Entity (name or id): results near it in the graph rank first.")
limit_option = click.option("-n", "--limit", type=int, default=10, show_default=True, help="Most results to show.")
min_confidence_option = click.option(
    "--min-confidence", type=click.FloatRange(0, 1), help="Only facts whose extractor was at least this sure (0-1)."
)


@click.command("nodes")
@click.argument("query")
@workspace_option
@center_option
@limit_option
@with_store
@through_server
def nodes(mem: ServiceApi, settings: Settings, fmt: str, query: str, workspace: str | None, center: str | None, limit: int) -> str:
    """Find entities of the knowledge graph matching QUERY."""
    hits = elsewhere.search_nodes(mem, query, center, limit, workspace=_workspace(settings, workspace))
    return _answer(mem, "search_nodes", hits, fmt)


@click.command("facts")
@click.argument("query")
@workspace_option
@center_option
@limit_option
@click.option("--as-of", help="The facts true at this time (ISO-8601).")
@click.option("--include-invalid", is_flag=True, help="Also facts that are no longer true.")
@min_confidence_option
@with_store
@through_server
def facts(mem: ServiceApi, settings: Settings, fmt: str, query: str, workspace: str | None, **opts: Any) -> str:
    """Find facts matching QUERY (true now unless --as-of or --include-invalid)."""
    hits = elsewhere.search_facts(
        mem, query, opts["center"], opts["limit"], opts["as_of"], opts["include_invalid"], workspace=_workspace(settings, workspace),
        min_confidence=opts["min_confidence"],
    )
    return _answer(mem, "search_facts", hits, fmt)


@click.command("episodes")
@workspace_option
@click.option("-n", "--limit", type=int, default=20, show_default=True, help="Most episodes to show.")
@click.option("--query", help="Only episodes matching this.")
@with_store
@through_server
def episodes(mem: ServiceApi, settings: Settings, fmt: str, workspace: str | None, limit: int, query: str | None) -> str:
    """Memories with the entities they mention and the facts they gave."""
    return _answer(mem, "episodes", mem.episodes(workspace=_workspace(settings, workspace), limit=limit, query=query), fmt)


@click.command("entity")
@click.argument("ref")
@workspace_option
@click.option("--as-of", help="Facts true at this time (ISO-8601).")
@click.option("--include-invalid", is_flag=True, help="Also facts that are no longer true.")
@min_confidence_option
@with_store
@through_server
def entity(
    mem: ServiceApi, settings: Settings, fmt: str, ref: str, workspace: str | None, as_of: str | None, include_invalid: bool,
    min_confidence: float | None,
) -> str:
    """Show an entity (by name, alias or id) and its facts."""
    scope = _workspace(settings, workspace)
    e = elsewhere.entity(mem, ref, workspace=scope)
    fs = mem.entity_facts(e.id, workspace=scope, as_of=as_of, include_invalid=include_invalid, min_confidence=min_confidence)
    if fmt == "json":
        return json.dumps({"entity": e.to_dict(), "facts": [f.to_dict() for f in fs]}, ensure_ascii=False, separators=(",", ":"))
    return _answer(mem, "entity", e, fmt) + "\n" + _answer(mem, "facts", fs, fmt)


@click.command("delete-fact")
@click.argument("id")
@with_store
@through_server
def delete_fact(mem: ServiceApi, settings: Settings, fmt: str, id: str) -> str:
    """Delete a fact; a fact it had retired becomes current again."""
    return _answer(mem, "delete_fact", mem.delete_fact(id), fmt)


@click.command("clear-graph")
@workspace_option
@click.option("--yes", is_flag=True, help="Confirm: delete every entity and fact of the workspace.")
@with_store
@through_server
def clear_graph(mem: ServiceApi, settings: Settings, fmt: str, workspace: str | None, yes: bool) -> str:
    """Delete the knowledge graph of a workspace (memories are kept)."""
    return _answer(mem, "clear_graph", mem.clear_graph(_workspace(settings, workspace), confirm=yes), fmt)


@click.command("merge-entities")
@click.argument("a")
@click.argument("b")
@workspace_option
@with_store
@through_server
def merge_entities(mem: ServiceApi, settings: Settings, fmt: str, a: str, b: str, workspace: str | None) -> str:
    """Merge entities A and B (the more connected stays; the other becomes its alias)."""
    return _answer(mem, "merge_entities", mem.merge_entities(a, b, workspace=_workspace(settings, workspace)), fmt)


@click.command("communities")
@workspace_option
@click.option("--entity", help="Only the community of this entity (name or id).")
@click.option("--rebuild", is_flag=True, help="Recompute every community of the workspace from scratch first.")
@click.option("-n", "--limit", type=int, default=20, show_default=True, help="Most communities to show.")
@with_store
@through_server
def communities(
    mem: ServiceApi, settings: Settings, fmt: str, workspace: str | None, entity: str | None, rebuild: bool, limit: int
) -> str:
    """Communities of closely linked entities, with names and summaries (largest first)."""
    scope = _workspace(settings, workspace)
    if rebuild:
        mem.rebuild_communities(scope)
    return _answer(mem, "communities", mem.communities(workspace=scope, entity=entity, limit=limit), fmt)


@click.command("extract")
@click.option("--status", "show", is_flag=True, help="Only show the queue (counts, and the items not done).")
@click.option("--retry-failed", is_flag=True, help="Give failed memories a fresh start before draining.")
@click.option("-n", "--limit", type=int, help="Most extraction attempts to make.")
@with_store
@through_server
def extract(mem: ServiceApi, settings: Settings, fmt: str, show: bool, retry_failed: bool, limit: int | None) -> str:
    """Run LLM extraction on the queued memories (KNOTWORK_KG_LLM_URL), or show the queue."""
    if not show:
        report = mem.extract_pending(limit=limit, retry_failed=retry_failed)
        if fmt == "json":
            return _answer(mem, "extract", report, fmt)
        click.echo(_answer(mem, "extract", report, fmt))
    return _answer(mem, "extraction_status", mem.extraction_status(), fmt)


COMMANDS = (nodes, facts, episodes, entity, delete_fact, clear_graph, merge_entities, communities, extract)
