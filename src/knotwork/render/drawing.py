"""Graphs as DOT (Graphviz) or Mermaid text (full ids: drawings are read by tools, not agents)."""

from __future__ import annotations

from knotwork.domain.models import Graph
from knotwork.render.compact import preview
from knotwork.render.core import DRAWINGS


def _label(text: str) -> str:
    return preview(text, 40).replace("\\", "\\\\").replace('"', "'")


def dot(g: Graph) -> str:
    lines = ["digraph knotwork {", "  node [shape=box];"]
    for m in g.nodes:
        style = ", style=bold" if m.id == g.center else ""
        lines.append(f'  "{m.id}" [label="{_label(m.content)}"{style}];')
    for e in g.edges:
        lines.append(f'  "{e.from_id}" -> "{e.to_id}" [label="{e.type}"];')
    lines.append("}")
    return "\n".join(lines)


def mermaid(g: Graph) -> str:
    lines = ["graph LR"]
    for m in g.nodes:
        text = _label(m.content).replace("[", "(").replace("]", ")")
        lines.append(f'  {m.id}["{text}"]')
    for e in g.edges:
        lines.append(f"  {e.from_id} -->|{e.type}| {e.to_id}")
    return "\n".join(lines)


DRAWINGS["dot"] = dot
DRAWINGS["mermaid"] = mermaid
