"""Rendering, in one place: typed results in, compact text or JSON out.

Every adapter (MCP, CLI, HTTP) renders through :class:`Responder` (or the
pure :func:`render`), so the same operation reads the same wherever it is
called from. Importing this package registers every renderer.
"""

from knotwork.render import compact, drawing, hygiene, knowledge, status  # noqa: F401 - registers the renderers
from knotwork.render.core import FORMATS, RENDERERS, Rendered, View, register, register_all, render, render_safe, to_json
from knotwork.render.relations import DETAILS

__all__ = ["DETAILS", "FORMATS", "RENDERERS", "Rendered", "View", "register", "register_all", "render", "render_safe", "to_json"]
