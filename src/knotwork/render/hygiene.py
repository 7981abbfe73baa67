"""Compact text for the hygiene operations: duplicate groups, merges and prunes (JSON: each ``to_dict()``)."""

from __future__ import annotations

from typing import Any

from knotwork.render.compact import preview
from knotwork.render.core import View, register


def duplicates(groups: list[Any], view: View) -> str:
    if not groups:
        return "No near-duplicates."
    lines = []
    for g in groups:
        lines.append(f"{g.score:.2f} {' '.join(view.sid(i) for i in g.ids)}")
        lines += [f"  {view.sid(i)} {preview(p, 60)}" for i, p in zip(g.ids, g.previews)]
    return "\n".join(lines)


def merged(r: Any, view: View) -> str:
    return f"✓ Merged {len(r.merged)} into {r.kept} (retired, history and links kept): {', '.join(r.merged)}"


def pruned(r: Any) -> str:
    return f"✓ Pruned {r.expired} expired memories and {r.snapshots} snapshots"


def backed_up(r: Any) -> str:
    return f"✓ Backed up {r.memories:,} memories (schema {r.schema_version}) to {r.path}, {r.bytes / 1e6:.1f} MB"


def checked(r: Any) -> str:
    lines = [f"✓ Repaired: {item}" for item in r.repaired]
    lines += [f"✗ {p}" for p in r.problems]
    lines += [f"✗ orphaned {kind}: {n}" for kind, n in r.orphans.items() if n]
    return "\n".join(lines + (["✓ Store is consistent"] if r.ok else []))


for _operation, _text in {
    "duplicates": duplicates, "merge": merged, "prune": pruned, "backup": backed_up, "check": checked
}.items():
    register(_operation, _text, lambda result: {"groups": [g.to_dict() for g in result]} if isinstance(result, list) else result.to_dict())
