"""A search filter that names a thread or tags, read as the list of memories it lets through (both engines).

The vector source asks the nearest memories and then filters them: a thread of twenty turns in a
workspace of thousands has few or none among the nearest. When the filter names a thread or tags and
lets at most :data:`FILTERED_EXACT_MAX` memories through, the stores list those memories first (by the
``memories_thread`` index, or by ``memory_tags_kv``) and score each of them exactly instead.
"""

from __future__ import annotations

from typing import Any

from knotwork.domain.models import MemoryFilter

#: The most memories a thread or tag filter may let through for the vector source to score them one by one
#: (their chunks' dot products: well under a millisecond for this many; a walk or a scan costs more).
FILTERED_EXACT_MAX = 2000


def selective(flt: MemoryFilter) -> bool:
    """Whether ``flt`` names a thread or tags: what an index lists without reading the whole workspace."""
    return bool(flt.thread or flt.tags)


def listing(flt: MemoryFilter, where: str, mark: str) -> tuple[str, list[Any]]:
    """SQL listing the ids of the memories ``where`` (``flt``'s conditions on ``m``) lets through, at most
    ``LIMIT`` (the last parameter, for the caller to add), and the parameters after ``where``'s own.

    With tags, the memories that hold one of them drive the read (the ``memory_tags_kv`` index): for
    ``tags_mode`` all, any one tag names a superset; for any, each does. ``mark`` is the engine's placeholder.
    """
    drive, params = "", []
    if flt.tags:
        tags = list(flt.tags.items())[: 1 if flt.tags_mode != "any" else None]
        terms = []
        for key, value in tags:
            terms.append(f"(t.key = {mark}" + (f" AND t.value = {mark})" if value is not None else ")"))
            params += [key] if value is None else [key, value]
        drive = f" AND m.id IN (SELECT t.memory_id FROM memory_tags t WHERE {' OR '.join(terms)})"
    return f"SELECT m.id FROM memories m WHERE {where}{drive} LIMIT {mark}", params
