"""Compact text: the least an agent needs to act on, one line per item where possible.

Ids in lists and search hits are short ids (``view.sid``: the shortest unique
prefix or suffix, 8+ characters), which every tool accepts back. Write
confirmations and ``get`` show the full id: it is the handle a caller keeps.
Times in lists are relative (``2h ago``); content is cut at a word boundary.
The shapes are documented in docs/formats.md and were chosen by counting
o200k tokens (bench/tokens.py).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from knotwork.domain import versions
from knotwork.domain.models import ADD_DECISIONS, Graph, Hit, ImportReport, Memory, MetaRelation, Page, Related, Relationship
from knotwork.domain.temporal import to_text
from knotwork.errors import elsewhere_text
from knotwork.text.ages import age, ago
from knotwork.render import relations as rel
from knotwork.render.core import View, register

PREVIEW_CHARS = 160  # a search hit or list line
SHORT_PREVIEW_CHARS = 60  # a write confirmation
SIMILAR_PREVIEW_CHARS = 32  # a similar memory: enough to judge it; 60 cost 7% more tokens per search than 40 (bench/tokens.py)
SIMILAR_PREVIEWS = 2  # similar memories per hit shown with a preview; the others by id and score (bench/tokens.py)
# A hit's block names its nearest SIMILAR_SHOWN similar memories and its first ENTITIES_SHOWN entities, then how
# many more entities there are (the JSON form and `related` give them all): on LongMemEval the similar and entity
# lines were 66% of a search answer's tokens (bench/tokens.py).
SIMILAR_SHOWN = 3
ENTITIES_SHOWN = 8


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


def _line(m: Memory, view: View) -> str:
    cat = f" [{m.category}]" if m.category else ""
    return f"{view.sid(m.id)} {age(m, view.now)}{cat} {preview(m.content)}"


def memory(m: Memory, view: View) -> str:
    head = [m.id, _labels(m), f"v{m.version}", f"importance {m.importance:g}"]
    lines = [" ".join(p for p in head if p)]
    if m.tags:
        lines.append("tags: " + _tags(m.tags))
    if m.artifacts:
        lines.append("artifacts: " + ", ".join(m.artifacts))
    if m.evidence:
        lines.append("evidence: " + ", ".join(m.evidence))
    created, valid = _when(m.created_at), _when(m.valid_at)
    times = f"created {created}" + (f", valid from {valid}" if valid != created else "")
    if m.invalid_at:
        times += f" until {_when(m.invalid_at)}"
    lines.append(times)
    if m.metadata:
        lines.append("metadata: " + json.dumps(m.metadata, ensure_ascii=False, separators=(",", ":")))
    lines.append(m.content)
    return "\n".join(lines)


def _tags(tags: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" if v else k for k, v in tags.items())


# -- write confirmations: the full id, the handle a caller keeps ------------------
def added(m: Memory, view: View) -> str:
    """What ``add`` decided (ADD, UPDATE, SUPERSEDE, NOOP, IGNORE), one line.

    Every decision that leaves a memory names it the same way, ``(id <full id>)``: the memory that now
    holds the text (the new one, the updated one, or the one already holding it), the id to keep. Other
    ids (what a SUPERSEDE retires) come after it, in other words. IGNORE stored nothing and says so.
    """
    text = preview(m.content, SHORT_PREVIEW_CHARS)
    if m.decision == "NOOP":
        return f"✓ NOOP: already stored (id {m.touched or m.id})" + ("" if m.duplicate else f" - {m.reason}")
    if m.decision == "UPDATE":
        return f"✓ UPDATE: {text} (id {m.id}) now v{m.version}, earlier text in its history"
    if m.decision == "SUPERSEDE":
        return f"✓ SUPERSEDE: stored {text} (id {m.id}); retires {m.touched} ({m.reason})"
    if m.decision == "IGNORE":
        return f"✗ IGNORE: not stored, no id, {m.reason} (force stores it)"
    return f"✓ Stored {text} (id {m.id})" + (f"; {m.reason}" if m.reason else "")


def added_many(ms: list[Memory], view: View) -> str:
    """A count per decision, then one line per item in order: its decision's mark and the id it resolves to."""
    counts = Counter("NOOP" if m.duplicate else m.decision for m in ms)
    summary = ", ".join(f"{counts[d]} {d}" for d in ADD_DECISIONS if counts[d])
    lines = [f"✓ {len(ms)} item(s): {summary or 'none'}"]
    for m in ms:
        decision = "NOOP" if m.duplicate else m.decision
        if decision == "IGNORE":
            lines.append(f"{_MARK[decision]} not stored: {m.reason}")
        else:
            lines.append(f"{_MARK[decision]} {m.id}" + (f" (retires {m.touched})" if decision == "SUPERSEDE" else ""))
    return "\n".join(lines)


_MARK = {"ADD": "+", "NOOP": "=", "UPDATE": "~", "SUPERSEDE": "»", "IGNORE": "✗"}


def updated(m: Memory, view: View) -> str:
    return f"✓ Updated {m.id} (now v{m.version})"


def deleted(m: Memory, view: View) -> str:
    return f"✓ Deleted {m.id} - {preview(m.content, 80)}"


FAILED_VERB = {"add": "Store", "update": "Update", "delete": "Delete", "link": "Link", "unlink": "Unlink"}


def failed(operation: str, reason: str) -> str:
    """``✗ Delete failed: <reason>``: how a write that did not happen reads."""
    return f"✗ {FAILED_VERB.get(operation, operation.capitalize())} failed: {reason}"


# -- reads -------------------------------------------------------------------------
def page(p: Page, view: View) -> str:
    if not p:
        unknown = getattr(p, "unknown_workspace", None)
        where = getattr(p, "elsewhere", None)
        head = f"No memories: workspace {unknown!r} does not exist (nothing is stored in it)" if unknown else "No memories"
        return f"{head}{' here' if not unknown else ''}; {elsewhere_text(where, view.workspace_arg, 'memory')}." if where else f"{head}."
    lines = [_line(m, view) for m in p]
    if p.next_cursor:
        lines.append(f"next cursor: {p.next_cursor}")
    return "\n".join(lines)


def hits(hs: list[Hit], view: View) -> str:
    """One line per hit (short id, score, age, category, content), then its relations block.

    A similar memory that is itself a hit of this answer is named by its id alone: its line is already
    there. Of the others, the nearest ``SIMILAR_PREVIEWS`` of each hit that this answer has not
    previewed yet come with a preview; the rest by id and score (bench/tokens.py counts the answer).
    """
    if not hs:
        where = getattr(hs, "elsewhere", None)
        unknown = getattr(hs, "unknown_workspace", None)
        head = f"No matching memories: workspace {unknown!r} does not exist (nothing is stored in it)" if unknown else "No matching memories"
        return f"{head}{' here' if not unknown else ''}; {elsewhere_text(where, view.workspace_arg)}." if where else f"{head}."
    lines = []
    in_answer = frozenset(view.sid(h.memory.id) for h in hs)
    previewed: set[str] = set()
    for h in hs:
        lines.append(f"{view.sid(h.memory.id)} {h.score:.2f} {age(h.memory, view.now)}"
                     f"{' [' + h.memory.category + ']' if h.memory.category else ''} {preview(h.memory.content)}")
        lines += relation_lines(view.relations.get(h.memory.id, []), view, in_answer, previewed)
    return "\n".join(lines)


def relation_lines(
    rels: Sequence[MetaRelation], view: View, in_answer: frozenset[str] = frozenset(), previewed: set[str] | None = None
) -> list[str]:
    """The relations block of one hit: one indented ``key: values`` line per non-empty key.

    A similar memory among ``in_answer`` (short ids of the answer's hits) is named by its id alone; with
    ``previewed`` (ids the answer has previewed, updated here), only the first ``SIMILAR_PREVIEWS`` not
    previewed before keep their preview.
    """
    if view.detail == "none":
        return []
    if view.detail == "full":
        return [f"  {_full(r, view)}" for r in rels]
    block = rel.compact(rels, view.detail, view.sid)
    out = []
    for key, value in block.items():
        if key == "similar":
            value = _similar_items(value[:SIMILAR_SHOWN], in_answer, previewed)  # a list is ~5 long: no count
        elif key == "tags":
            value = _tags(value)
        elif key == "entities":
            value = ", ".join(value[:ENTITIES_SHOWN]) + _more(value, ENTITIES_SHOWN)
        elif isinstance(value, list):
            value = ", ".join(value)
        out.append(f"  {key}: {value}")
    return out


def _more(items: list[Any], shown: int) -> str:
    return f" (+{len(items) - shown} more)" if len(items) > shown else ""


def _similar_items(items: list[Any], in_answer: frozenset[str], previewed: set[str] | None) -> str:
    parts, shown = [], 0
    for item in items:
        if isinstance(item, dict) and item["id"] in in_answer:
            parts.append(item["id"])
        elif isinstance(item, dict) and previewed is not None and "preview" in item:
            if shown < SIMILAR_PREVIEWS and item["id"] not in previewed:
                previewed.add(item["id"])
                shown += 1
                parts.append(_similar(item))
            else:
                parts.append(_similar({k: v for k, v in item.items() if k != "preview"}))
        else:
            parts.append(_similar(item))
    return "; ".join(parts)


def _similar(item: Any) -> str:
    if isinstance(item, str):  # minimal: the id alone
        return item
    parts = [item["id"]]
    if "score" in item:
        parts.append(f"{item['score']:.2f}")
    if "preview" in item:
        parts.append(json.dumps(preview(item["preview"], SIMILAR_PREVIEW_CHARS), ensure_ascii=False))
    return " ".join(parts)


def _full(r: MetaRelation, view: View) -> str:
    value = view.sid(r.target_value) if r.type == rel.SIMILAR else r.target_value
    text = f"{r.type} {r.target_label}={value}"
    if r.score is not None:
        text += f" score={r.score:.2f}"
    if r.preview:
        text += " " + json.dumps(preview(r.preview, SHORT_PREVIEW_CHARS), ensure_ascii=False)
    return text


def history(ms: list[Memory], view: View) -> str:
    """The first version's text, then, for each later one, what changed: every field, validity included (a
    version that only retired the memory says so, rather than repeating the same text)."""
    lines = []
    for m, changed in zip(ms, versions.each_change(ms)):
        head = f"v{m.version} {ago(m.updated_at, view.now)} - "
        if m is ms[0] or not changed:
            lines.append(head + (preview(m.content) if m is ms[0] else "no field changed"))
        else:
            lines.append(head + "; ".join(change(c, m.updated_at) for c in changed))
    return "\n".join(lines)


def change(c: versions.Change, at: datetime) -> str:
    """``category: note → decision``, ``tags: +team=core -area``, ``invalid_at: none → 2026-03-10 10:00 (retired)``
    (retired when the version that set it was written after that time, else it retires then)."""
    if c.field == "content":
        return f"content: {preview(c.after)}"
    if isinstance(c.before, dict) and isinstance(c.after, dict):
        added = [f"+{k}={_value(v)}" for k, v in c.after.items() if c.before.get(k) != v]
        gone = [f"-{k}" for k in c.before if k not in c.after]
        return f"{c.field}: {' '.join(added + gone)}"
    if isinstance(c.before, list) and isinstance(c.after, list):
        return f"{c.field}: {' '.join([f'+{x}' for x in c.after if x not in c.before] + [f'-{x}' for x in c.before if x not in c.after])}"
    told = f"{c.field}: {_value(c.before)} → {_value(c.after)}"
    if c.field == "invalid_at" and c.after is not None:
        told += " (retired)" if c.after <= at else " (retires then)"
    return told


def _value(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, datetime):
        return to_text(v)[:16].replace("T", " ")
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return str(v)


def imported(r: ImportReport, view: View) -> str:
    return f"✓ Imported {r.added}, skipped {r.skipped} already present"


def _arrow(r: Relationship, view: View | None = None) -> str:
    short = view.sid if view else str
    return f"{short(r.from_id)} --{r.type}--> {short(r.to_id)}"


def linked(r: Relationship, view: View) -> str:
    """The relationship's full id (the handle ``unlink`` takes); its ends as short ids."""
    return f"{'= Already linked' if r.existing else '✓ Linked'} {_arrow(r, view)} (id {r.id})"


def unlinked(r: Relationship, view: View) -> str:
    return f"✓ Unlinked {_arrow(r, view)}"


def relationships(rs: list[Relationship], view: View) -> str:
    if not rs:
        return "No relationships."
    return "\n".join(f"{r.id} {_arrow(r, view)}" for r in rs)


def related(rs: list[Related], view: View) -> str:
    if not rs:
        return "No related memories."
    return "\n".join(f"d{r.depth} {view.sid(r.memory.id)} {_edge(r, view)}: {preview(r.memory.content, 100)}" for r in rs)


def _edge(r: Related, view: View) -> str:
    """The link that reached ``r.memory``, seen from it: ``-type-> X`` (outgoing) or ``<-type- X`` (incoming)."""
    link = r.relationship
    if link.to_id == r.memory.id:
        return f"<-{link.type}- {view.sid(link.from_id)}"
    return f"-{link.type}-> {view.sid(link.to_id)}"


def graph(g: Graph, view: View) -> str:
    lines = [f"graph of {view.sid(g.center)}: {len(g.nodes)} nodes, {len(g.edges)} edges{' (truncated)' if g.truncated else ''}"]
    lines += [f"node {view.sid(m.id)} d{g.depths[m.id]} - {preview(m.content, 80)}" for m in g.nodes]
    lines += [f"edge {_arrow(e, view)}" for e in g.edges]
    return "\n".join(lines)


def relations(by_memory: dict, view: View) -> str:
    lines = []
    for mid, rels in by_memory.items():
        lines.append(view.sid(mid))
        lines += [f"  {_full(r, view)}" for r in rels]
    return "\n".join(lines) or "No relations."


for _operation, _renderer in {
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
}.items():
    register(_operation, _renderer)
