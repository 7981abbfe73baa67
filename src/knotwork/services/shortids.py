"""Short ids: the fewest characters that still name one memory, and resolve back to it.

A shown id is the shortest prefix or suffix, at least ``ids.MIN_REF_LENGTH``
characters long, that matches exactly one memory of the store by the same
rule ``Knotwork.resolve`` uses (``store.resolve_memory_ref``: every id that
starts *or* ends with it). ULIDs start with their creation time, so memories
made close together share long prefixes; their random tail usually makes an
8-character suffix unique. Each candidate is checked against the store, never
assumed, so a shown id always resolves to the memory it was shown for (at
the time it was shown: a memory added later may share it).
"""

from __future__ import annotations

from collections.abc import Iterable

from knotwork.domain.ids import ID_LENGTH, MIN_REF_LENGTH
from knotwork.store.protocol import Store


def short_id(store: Store, memory_id: str) -> str:
    """The shortest unique prefix or suffix (8+ characters) of ``memory_id``; the full id if none is."""
    for length in range(MIN_REF_LENGTH, ID_LENGTH):
        # Suffix first: the random tail of a ULID is unique far more often than its time-ordered head.
        for ref in (memory_id[-length:], memory_id[:length]):
            if store.resolve_memory_ref(ref, 2) == [memory_id]:
                return ref
    return memory_id


def short_ids(store: Store, memory_ids: Iterable[str]) -> dict[str, str]:
    """``{full id: short id}`` for each distinct id (ids not in the store map to themselves)."""
    return {mid: short_id(store, mid) for mid in dict.fromkeys(memory_ids)}
