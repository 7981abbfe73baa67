"""Dispatch from (operation, result, format) to a renderer."""

from __future__ import annotations

import json
from typing import Any

from knotwork.render import compact, drawing, status
from knotwork.render.jsonform import to_jsonable

FORMATS = ("compact", "json")
DRAWINGS = {"dot": drawing.dot, "mermaid": drawing.mermaid}


def render(operation: str, result: Any, fmt: str = "compact") -> str:
    """Text for ``result`` of ``operation`` in ``fmt`` ("compact" or "json")."""
    if fmt == "json":
        if operation in status.JSON_OPERATIONS:
            return json.dumps(result.to_dict(), ensure_ascii=False, separators=(",", ":"))
        return json.dumps(to_jsonable(operation, result), ensure_ascii=False, indent=None, separators=(",", ":"))
    if operation == "graph" and fmt in DRAWINGS:
        return DRAWINGS[fmt](result)
    if fmt != "compact":
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if operation in status.RENDERERS:
        return status.RENDERERS[operation](result)
    return compact.RENDERERS[operation](result)
