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


def drive(flt: MemoryFilter, mark: str) -> tuple[str, list[Any]]:
    """The clause that has the memories holding ``flt``'s tags drive a read (the ``memory_tags_kv`` index), and
    its parameters: for ``tags_mode`` all, the first tag names a superset (callers put the most selective first);
    for any, each does. Empty without tags."""
    if not flt.tags:
        return "", []
    params: list[Any] = []
    tags = list(flt.tags.items())[: 1 if flt.tags_mode != "any" else None]
    terms = []
    for key, value in tags:
        terms.append(f"(t.key = {mark}" + (f" AND t.value = {mark})" if value is not None else ")"))
        params += [key] if value is None else [key, value]
    return f" AND m.id IN (SELECT t.memory_id FROM memory_tags t WHERE {' OR '.join(terms)})", params


def listing(flt: MemoryFilter, where: str, mark: str) -> tuple[str, list[Any]]:
    """SQL listing the ids of the memories ``where`` (``flt``'s conditions on ``m``) lets through, at most
    ``LIMIT`` (the last parameter, for the caller to add), and the parameters after ``where``'s own; with tags,
    driven by them (:func:`drive`)."""
    clause, params = drive(flt, mark)
    return f"SELECT m.id FROM memories m WHERE {where}{clause} LIMIT {mark}", params
