"""The JSON form of every result: stable keys, full ids, ISO-8601 UTC times (see docs/formats.md)."""

from __future__ import annotations

from typing import Any

from knotwork.domain import versions
from knotwork.domain.models import Graph, Hit, ImportReport, Memory, Page, Related, Relationship
from knotwork.render import relations as rel
from knotwork.render.view import View


def hit(h: Hit, view: View) -> dict[str, Any]:
    """One search hit; ``relations`` follows ``view.detail`` (absent for none, a list for full, else the compact block)."""
    out = h.to_dict()
    block = rel.shaped(view.relations.get(h.memory.id, []), view.detail)
    if block is not None:
        out["relations"] = block
    return out


def _added(m: Memory) -> dict[str, Any]:
    """A memory as ``add`` answers: with what was decided, the memory it touched and why."""
    return {**m.to_dict(), "duplicate": m.duplicate, "decision": m.decision, "touched": m.touched, "reason": m.reason}


def to_jsonable(operation: str, result: Any, view: View | None = None) -> Any:
    view = view or View()
    if isinstance(result, Memory):
        return _added(result) if operation == "add" else result.to_dict()
    if isinstance(result, Relationship):
        out = result.to_dict()
        if operation == "link":
            out["existing"] = result.existing
        return out
    if isinstance(result, Graph):
        return result.to_dict()
    if isinstance(result, dict) and operation == "relations":
        return {mid: [r.to_dict() for r in rels] for mid, rels in result.items()}
    if isinstance(result, Page):
        return result.to_dict()
    if isinstance(result, ImportReport):
        return {"added": result.added, "skipped": result.skipped}
    if isinstance(result, list):
        if operation == "search":
            found: dict[str, Any] = {"hits": [hit(h, view) for h in result if isinstance(h, Hit)]}
            if getattr(result, "elsewhere", None):  # none here: where the same search finds some
                found["elsewhere"] = dict(result.elsewhere)
            if getattr(result, "unknown_workspace", None):  # the workspace asked about holds no memory
                found["unknown_workspace"] = result.unknown_workspace
            return found
        if operation == "history":  # each version with the fields it changed (none for the first)
            changed = versions.each_change([m for m in result if isinstance(m, Memory)])
            return {"versions": [{**m.to_dict(), "changed": [c.field for c in cs]} for m, cs in zip(result, changed)]}
        if operation == "related":
            return {"related": [r.to_dict() for r in result if isinstance(r, Related)]}
        if operation == "relationships":
            return {"relationships": [r.to_dict() for r in result]}
        if operation == "add_many":
            return {"memories": [_added(m) for m in result if isinstance(m, Memory)]}
    # Anything else (a new operation's result): plain values as they are, objects through their
    # ``to_dict()`` or text (``core._fallback_value``), so a missing JSON renderer never fails a call.
    return result
