"""Compact text and JSON for the knowledge graph: entities, facts, episodes.

``RENDERERS`` and ``to_jsonable`` are registered with ``render.core`` on import.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from knotwork.domain.temporal import to_text
from knotwork.errors import CLI_WORKSPACE_ARG, elsewhere_text
from knotwork.render.core import View, register_all
from knotwork.knowledge.models import (
    ClearReport, Entity, Episode, ExtractionReport, ExtractionStatus, Fact, FactHit, NodeHit,
)

OPERATIONS = frozenset(
    {"search_nodes", "search_facts", "episodes", "delete_fact", "clear_graph", "merge_entities", "entity", "facts",
     "communities", "extraction_status", "extract"}
)
SUMMARY_CHARS = 120


def _day(dt: Any) -> str:
    return to_text(dt)[:10]


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return (flat[:limit].rsplit(" ", 1)[0] or flat[:limit]) + "…"


def entity_line(e: Entity, note: str = "") -> str:
    """``Name [type] @workspace <note> - summary``."""
    kind = f" [{e.type}]" if e.type else ""
    where = f" @{e.workspace}" if e.workspace else ""
    summary = f" - {_cut(e.summary, SUMMARY_CHARS)}" if e.summary else ""
    return f"{e.name}{kind}{where}{note}{summary}"


def when(f: Fact) -> str:
    """``since 2026-01-03``, or ``2025-01-01 → 2026-01-03, retired`` for a fact no longer true."""
    if f.invalid_at is not None:
        start = _day(f.valid_at) if f.valid_at else "…"
        return f"{start} → {_day(f.invalid_at)}, retired"
    return f"since {_day(f.valid_at)}" if f.valid_at else "always"


def stated(f: Fact) -> str:
    """``rules 0.8``: the extractor that stated the fact and how sure it was (two decimals, rounded down:
    0.999 is not shown as a certain 1)."""
    return f"{f.extractor} {math.floor(f.confidence * 100) / 100:g}"


def fact_line(f: Fact) -> str:
    return f"{f.subject} --{f.predicate}--> {f.object} ({when(f)}; {stated(f)}) id {f.id[-8:]}"


def _header(count: int, one: str, many: str, query: str | None) -> str:
    about = f' for "{query}"' if query else ""
    return f"Found {count} {one if count == 1 else many}{about}:"


def _none_found(hits: list, what: str, view: View) -> str:
    """``No entities found for "q".``, or, when other workspaces the caller reads would answer,
    ``No entities found for "q" here; 1 match in workspace 'shop'; pass -w shop.``"""
    query = getattr(hits, "query", None)
    text = f'No {what} found for "{query}"' if query else f"No {what} found"
    where = getattr(hits, "elsewhere", None)
    return f"{text} here; {elsewhere_text(where, view.workspace_arg)}." if where else f"{text}."


def nodes(hits: list[NodeHit], view: View) -> str:
    query = getattr(hits, "query", None)
    if not hits:
        return _none_found(hits, "entities", view)
    lines = [_header(len(hits), "entity", "entities", query)]
    for i, h in enumerate(hits, 1):
        near = f" ({h.distance} hops)" if h.distance else ""
        group = f" (community: {h.community.name})" if h.community else ""
        lines.append(f"{i}. {entity_line(h.entity, near + group)}")
    return "\n".join(lines)


def facts_found(hits: list[FactHit], view: View) -> str:
    query = getattr(hits, "query", None)
    if not hits:
        hidden = getattr(hits, "less_sure", 0)
        if not hidden:
            return _none_found(hits, "facts", view)
        arg = "--min-confidence 0" if view.workspace_arg == CLI_WORKSPACE_ARG else "min_confidence=0"
        less = f"{hidden} less sure fact{'' if hidden == 1 else 's'} hidden; pass {arg} to see {'it' if hidden == 1 else 'them'}"
        return f"{_none_found(hits, 'facts', view)[:-1]} ({less})."
    lines = [_header(len(hits), "fact", "facts", query)]
    lines += [f"{i}. {fact_line(h.fact)}" for i, h in enumerate(hits, 1)]
    return "\n".join(lines)


def fact_list(fs: list[Fact]) -> str:
    if not fs:
        return "No facts."
    return "\n".join(f"{i}. {fact_line(f)}" for i, f in enumerate(fs, 1))


def episodes(eps: list[Episode]) -> str:
    if not eps:
        return "No episodes."
    lines = []
    for i, e in enumerate(eps, 1):
        about = f" {{{', '.join(e.entities)}}}" if e.entities else ""
        facts = f" {e.facts} fact{'s' if e.facts != 1 else ''}" if e.facts else ""
        queued = f" llm:{e.extraction}" if e.extraction else ""
        lines.append(f"{i}. {e.memory_id} {_day(e.valid_at)} - {_cut(e.content, 100)}{about}{facts}{queued}")
    return "\n".join(lines)


def deleted_fact(f: Fact) -> str:
    return f"✓ Deleted fact {f.subject} --{f.predicate}--> {f.object} (id {f.id})"


def cleared(r: ClearReport) -> str:
    scope = "every workspace" if r.workspace == "*" else (f"workspace {r.workspace}" if r.workspace else "the global scope")
    return f"✓ Cleared the graph of {scope}: {r.entities} entities, {r.facts} facts (memories kept)"


def merged(e: Entity) -> str:
    aliases = f" (aliases: {', '.join(e.aliases)})" if e.aliases else ""
    return f"✓ Merged into {e.name} id {e.id}{aliases}"


def entity(e: Entity) -> str:
    lines = [f"{e.name} id {e.id}" + (f" [{e.type}]" if e.type else "") + (f" @{e.workspace}" if e.workspace else "")]
    if e.aliases:
        lines.append("aliases: " + ", ".join(e.aliases))
    lines.append(f"mentioned in {e.mentions} memor{'y' if e.mentions == 1 else 'ies'}")
    if e.summary:
        lines.append(e.summary)
    return "\n".join(lines)


def communities(cs: list) -> str:
    if not cs:
        return "No communities."
    return "\n".join(f"{i}. {c.name} ({len(c.members)} entities) - {_cut(c.summary, SUMMARY_CHARS)}" for i, c in enumerate(cs, 1))


def queue_status(st: ExtractionStatus) -> str:
    """``LLM extraction: on · pending 2 · running 0 · done 5 · failed 1`` then one line per listed item."""
    counts = " · ".join(f"{k} {v}" for k, v in st.counts.items())
    lines = [f"LLM extraction: {'on' if st.enabled else 'off (set KNOTWORK_KG_LLM_URL)'} · {counts}"]
    for q in st.items:
        error = f" - {_cut(q.last_error, 200)}" if q.last_error else ""
        lines.append(f"{q.memory_id} {q.status} tries {q.attempts}{error}")
    return "\n".join(lines)


def drained(r: ExtractionReport) -> str:
    left = ", ".join(f"{v} {k}" for k, v in r.remaining.items() if v) or "nothing"
    return f"✓ Extracted {r.done} memories; {r.retrying} to retry, {r.failed} failed; left: {left}"


RENDERERS: dict[str, Callable[[Any], str]] = {
    "search_nodes": nodes,
    "search_facts": facts_found,
    "facts": fact_list,
    "episodes": episodes,
    "delete_fact": deleted_fact,
    "clear_graph": cleared,
    "merge_entities": merged,
    "entity": entity,
    "communities": communities,
    "extraction_status": queue_status,
    "extract": drained,
}


def _searched(key: str, result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"query": getattr(result, "query", None), key: [h.to_dict() for h in result]}
    if getattr(result, "elsewhere", None):  # none here: where the same search finds some
        out["elsewhere"] = dict(result.elsewhere)
    if getattr(result, "less_sure", 0):  # none at the default confidence: how many less sure facts it hid
        out["less_sure"] = result.less_sure
    return out


def to_jsonable(operation: str, result: Any) -> Any:
    if operation == "search_nodes":
        return _searched("entities", result)
    if operation == "search_facts":
        return _searched("facts", result)
    if operation == "facts":
        return {"facts": [f.to_dict() for f in result]}
    if operation == "episodes":
        return {"episodes": [e.to_dict() for e in result]}
    if operation == "communities":
        return {"communities": [c.to_dict() for c in result]}
    return result.to_dict()


register_all(RENDERERS, to_jsonable)
