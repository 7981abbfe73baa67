"""knotwork: long-term memory for AI agents.

>>> import knotwork
>>> mem = knotwork.open()          # ~/.knotwork/knotwork.db

Names are loaded on first use, so a command that needs only a little of
knotwork (a session hook asking the running server) starts quickly.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing's: importing typing would cost every hook process its time
if TYPE_CHECKING:
    from typing import Any

from knotwork.version import __version__

_EXPORTS = {
    "ALL_WORKSPACES": "knotwork.domain.models",
    "AmbiguousId": "knotwork.errors",
    "BackendUnavailable": "knotwork.errors",
    "Conflict": "knotwork.errors",
    "Hit": "knotwork.domain.models",
    "ImportReport": "knotwork.service",
    "InvalidInput": "knotwork.errors",
    "Knotwork": "knotwork.service",
    "KnotworkError": "knotwork.errors",
    "Memory": "knotwork.domain.models",
    "MemoryFilter": "knotwork.domain.models",
    "NotFound": "knotwork.errors",
    "Page": "knotwork.domain.models",
    "Settings": "knotwork.config",
    "open": "knotwork.app",
    "restore": "knotwork.app",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'knotwork' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from knotwork.app import open, restore
    from knotwork.config import Settings
    from knotwork.domain.models import ALL_WORKSPACES, Hit, Memory, MemoryFilter, Page
    from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, InvalidInput, KnotworkError, NotFound
    from knotwork.service import ImportReport, Knotwork
