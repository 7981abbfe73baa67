"""Moved to ``knotwork.text.ages`` (below both the services and the renderers); still importable from here."""

from knotwork.text.ages import age, ago

__all__ = ["age", "ago"]
