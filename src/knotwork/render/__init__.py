"""Rendering, in one place: typed results in, compact text or JSON out.

Every adapter (MCP, CLI, HTTP) renders through :func:`render`, so the same
operation reads the same wherever it is called from.
"""

from knotwork.render.core import FORMATS, render

__all__ = ["FORMATS", "render"]
