"""knotwork: long-term memory for AI agents.

>>> import knotwork
>>> mem = knotwork.open()          # ~/.knotwork/knotwork.db
"""

from knotwork.app import open
from knotwork.config import Settings
from knotwork.domain.models import ALL_WORKSPACES, Hit, Memory, MemoryFilter, Page
from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, InvalidInput, KnotworkError, NotFound
from knotwork.service import ImportReport, Knotwork

__version__ = "0.1.0"

__all__ = [
    "ALL_WORKSPACES",
    "AmbiguousId",
    "BackendUnavailable",
    "Conflict",
    "Hit",
    "ImportReport",
    "InvalidInput",
    "Knotwork",
    "KnotworkError",
    "Memory",
    "MemoryFilter",
    "NotFound",
    "Page",
    "Settings",
    "open",
]
