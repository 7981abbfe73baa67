"""Storage: one protocol (split by concern in contract/), one implementation per database engine; what both
engines run alike is written once, in the engine's dialect (where.py)."""

from knotwork.store.protocol import Store

__all__ = ["Store"]
