"""Compact text: the least an agent needs to act on, one line per item where possible."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from knotwork.domain.models import Graph, Hit, Memory, Page, Related, Relationship
from knotwork.domain.temporal import to_text
from knotwork.service import ImportReport

PREVIEW_CHARS = 160


def _when(dt: Any) -> str:
    return to_text(dt)[:16].replace("T", " ")


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line, cut at a word boundary, with an ellipsis when cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] or flat[:limit]
    return cut + "…"


def _labels(m: Memory) -> str:
    parts = []
    if m.category:
        parts.append(f"[{m.category}]")
    if m.workspace:
        parts.append(f"@{m.workspace}")
    if m.agent_id:
        parts.append(f"agent:{m.agent_id}")
    return " ".join(parts)


def _line(m: Memory) -> str:
    labels = _labels(m)
    return f"{m.id} {_when(m.created_at)}{' ' + labels if labels else ''} - {preview(m.content)}"


def memory(m: Memory) -> str:
    head = [m.id, _labels(m), f"v{m.version}", f"importance {m.importance:g}"]
    lines = [" ".join(p for p in head if p)]
    if m.tags:
        lines.append("tags: " + ", ".join(f"{k}={v}" if v else k for k, v in m.tags.items()))
    if m.artifacts:
        lines.append("artifacts: " + ", ".join(m.artifacts))
    if m.evidence:
        lines.append("evidence: " + ", ".join(m.evidence))
    times = f"created {_when(m.created_at)}, valid from {_when(m.valid_at)}"
    if m.invalid_at:
        times += f" until {_when(m.invalid_at)}"
    lines.append(times)
    if m.metadata:
        lines.append("metadata: " + json.dumps(m.metadata, ensure_ascii=False, separators=(",", ":")))
    lines.append(m.content)
    return "\n".join(lines)


def added(m: Memory) -> str:
    if m.duplicate:
        return f"✓ Already stored (same content): {m.id}"
    return f"✓ Stored {m.id}"


def added_many(ms: list[Memory]) -> str:
    new = sum(not m.duplicate for m in ms)
    lines = [f"✓ Stored {new}, {len(ms) - new} already present"]
    lines += [f"{'=' if m.duplicate else '+'} {m.id}" for m in ms]
    return "\n".join(lines)


def updated(m: Memory) -> str:
    return f"✓ Updated {m.id} (now v{m.version})"


def deleted(m: Memory) -> str:
    return f"✓ Deleted {m.id} - {preview(m.content, 80)}"


def page(p: Page) -> str:
    if not p:
        return "No memories."
    lines = [_line(m) for m in p]
    if p.next_cursor:
        lines.append(f"next cursor: {p.next_cursor}")
    return "\n".join(lines)


def hits(hs: list[Hit]) -> str:
    if not hs:
        return "No matching memories."
    return "\n".join(f"{i}. {h.score:.2f} {_line(h.memory)}" for i, h in enumerate(hs, 1))


def history(ms: list[Memory]) -> str:
    return "\n".join(f"v{m.version} {_when(m.updated_at)} - {preview(m.content)}" for m in ms)


def imported(r: ImportReport) -> str:
    return f"✓ Imported {r.added}, skipped {r.skipped} already present"


def _arrow(r: Relationship) -> str:
    return f"{r.from_id} --{r.type}--> {r.to_id}"


def linked(r: Relationship) -> str:
    return f"{'= Already linked' if r.existing else '✓ Linked'} {_arrow(r)} (id {r.id})"


def unlinked(r: Relationship) -> str:
    return f"✓ Unlinked {_arrow(r)}"


def relationships(rs: list[Relationship]) -> str:
    if not rs:
        return "No relationships."
    return "\n".join(f"{r.id} {_arrow(r)}" for r in rs)


def related(rs: list[Related]) -> str:
    if not rs:
        return "No related memories."
    lines = []
    for r in rs:
        rel = r.relationship
        lines.append(f"{r.depth} {r.memory.id} via {rel.type} ({rel.from_id[-8:]}->{rel.to_id[-8:]}) - {preview(r.memory.content, 100)}")
    return "\n".join(lines)


def graph(g: Graph) -> str:
    lines = [f"graph of {g.center}: {len(g.nodes)} nodes, {len(g.edges)} edges{' (truncated)' if g.truncated else ''}"]
    lines += [f"node {m.id} d{g.depths[m.id]} - {preview(m.content, 80)}" for m in g.nodes]
    lines += [f"edge {_arrow(e)}" for e in g.edges]
    return "\n".join(lines)


def relations(by_memory: dict) -> str:
    lines = []
    for mid, rels in by_memory.items():
        lines.append(mid)
        lines += [f"  {r.type} {r.target_label}={r.target_value}" for r in rels]
    return "\n".join(lines) or "No relations."


RENDERERS: dict[str, Callable[[Any], str]] = {
    "add": added,
    "add_many": added_many,
    "get": memory,
    "update": updated,
    "delete": deleted,
    "list": page,
    "search": hits,
    "history": history,
    "import": imported,
    "link": linked,
    "unlink": unlinked,
    "relationships": relationships,
    "related": related,
    "graph": graph,
    "relations": relations,
}
