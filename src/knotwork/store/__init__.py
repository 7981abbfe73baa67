"""Storage: one protocol, one implementation per database engine."""

from knotwork.store.protocol import Store

__all__ = ["Store"]
