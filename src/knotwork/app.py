"""Composition root: settings in, a ready Knotwork out. The only place that picks a backend."""

from __future__ import annotations

from pathlib import Path

from knotwork.config import Settings
from knotwork.errors import InvalidInput
from knotwork.service import Knotwork
from knotwork.store.protocol import Tracer


def open(path_or_url: str | Path | None = None, *, settings: Settings | None = None, tracer: Tracer | None = None) -> Knotwork:
    """Open (creating if needed) a knotwork store.

    ``path_or_url``: a file path, ``sqlite:///path``, or ``:memory:``; by
    default ``$KNOTWORK_DB`` or ``$KNOTWORK_HOME/knotwork.db`` (``~/.knotwork``).
    ``tracer`` is called with every SQL statement and its parameters.
    """
    settings = settings or Settings()
    target = str(path_or_url) if path_or_url is not None else settings.database()
    if "://" in target:
        scheme, _, rest = target.partition("://")
        if scheme != "sqlite":
            raise InvalidInput("database", f"unsupported URL scheme {scheme!r}; use a file path or sqlite:///path")
        target = rest
    from knotwork.store.sqlite import SQLiteStore

    return Knotwork(SQLiteStore(target, busy_timeout_ms=settings.busy_timeout_ms, tracer=tracer), settings)
