"""A memory by its full or short id: the one read every write below the facade starts from.

The facade's ``resolve`` and ``get`` are these, and so are the reads of the write path (consolidation's
targets, the ends of a link, the memory a version is written over): the services below the facade read
a memory the way a caller does, without asking the facade for it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from knotwork.domain import ids
from knotwork.domain.models import Memory
from knotwork.domain.temporal import now
from knotwork.errors import AmbiguousId, NotFound

if TYPE_CHECKING:
    from knotwork.store.protocol import Store


def resolve(store: Store, ref: str, workspaces: Collection[str] | None = None) -> str:
    """The full id of the memory a full or short id (unique prefix or suffix, 8+ chars) names; with
    ``workspaces`` (names, '' for the global scope), among the memories of those workspaces only."""
    text = ids.normalize_ref(ref)
    found = store.resolve_memory_ref(text, workspaces=workspaces)
    if not found:
        raise NotFound("memory", ref)
    if len(found) > 1:
        total = store.count_memory_refs(text, workspaces) if len(found) > 10 else len(found)
        raise AmbiguousId("memory", ref, found, total)
    return found[0]


def current(store: Store, ref: str) -> Memory:
    """The memory a full or short id names (NotFound when it is deleted or has expired)."""
    memory = store.get_memory(resolve(store, ref))
    if memory is None or (memory.expires_at is not None and memory.expires_at <= now()):
        raise NotFound("memory", ref)  # deleted between resolve and read, or expired
    return memory
