"""The JSON form of every result: stable keys, ISO-8601 UTC times."""

from __future__ import annotations

from typing import Any

from knotwork.domain.models import Graph, Hit, Memory, Page, Related, Relationship
from knotwork.service import ImportReport


def to_jsonable(operation: str, result: Any) -> Any:
    if isinstance(result, Memory):
        out = result.to_dict()
        if operation == "add":
            out["duplicate"] = result.duplicate
        return out
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
            return {"hits": [h.to_dict() for h in result if isinstance(h, Hit)]}
        if operation == "history":
            return {"versions": [m.to_dict() for m in result]}
        if operation == "related":
            return {"related": [r.to_dict() for r in result if isinstance(r, Related)]}
        if operation == "relationships":
            return {"relationships": [r.to_dict() for r in result]}
        if operation == "add_many":
            return {"memories": [{**m.to_dict(), "duplicate": m.duplicate} for m in result]}
    raise TypeError(f"no JSON form for {operation!r} result {type(result).__name__}")
