"""A stored memory's next version: the fields an update may change, each checked, and the version written.

``Knotwork.update``, consolidation's UPDATE (``WritePath.change``) and a ``supersedes`` link retiring a
memory (:func:`retire`) all write a version through here, so the three agree on what a change is: every
field checked as ``update`` checks it, no version when nothing changes, the earlier version kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.domain import rules, temporal
from knotwork.domain.models import Memory
from knotwork.domain.temporal import now, optional_time, parse_time
from knotwork.errors import InvalidInput
from knotwork.services import lookup

if TYPE_CHECKING:
    from knotwork.store.protocol import Store

UPDATE_FIELDS = frozenset(
    {"content", "category", "tags", "artifacts", "evidence", "importance", "metadata", "valid_at", "invalid_at", "thread",
     "expires_at", "ttl"}
)


def check(changes: Mapping[str, Any]) -> None:
    """Refuse unknown fields and an empty change (before the memory is looked up: the caller's mistake first)."""
    unknown = set(changes) - UPDATE_FIELDS
    if unknown:
        raise InvalidInput(
            "update", f"cannot change {', '.join(sorted(unknown))}; changeable: {', '.join(sorted(UPDATE_FIELDS))}"
        )
    if not changes:
        raise InvalidInput("update", "nothing to change")


def revised(
    old: Memory, changes: Mapping[str, Any], *, ordered: bool, max_content_bytes: int | None = None
) -> Memory | None:
    """``old``'s next version with ``changes`` (each field checked), or None when they change nothing.
    ``ordered=False`` lets a supersedes link retire a memory from before its ``valid_at`` (a merge keeps the
    oldest memory, which then retires newer ones from its own time); ``max_content_bytes``: needed when the
    content changes."""
    values: dict[str, Any] = {}
    if "content" in changes:
        assert max_content_bytes is not None
        values["content"] = rules.content(changes["content"], max_content_bytes)
        values["content_hash"] = rules.content_hash(values["content"])
    if "category" in changes:
        values["category"] = rules.category(changes["category"])
    if "tags" in changes:
        values["tags"] = rules.tags(changes["tags"])
    for name in ("artifacts", "evidence"):
        if name in changes:
            values[name] = rules.str_list(changes[name], name)
    if "importance" in changes:
        values["importance"] = rules.importance(changes["importance"])
    if "metadata" in changes:
        values["metadata"] = rules.metadata(changes["metadata"])
    if "thread" in changes:
        given = values.get("metadata", old.metadata)
        if changes["thread"] is None:  # update(thread=None): the memory leaves its thread
            values["metadata"] = {k: v for k, v in given.items() if k != rules.THREAD_KEY}
        else:
            base = given if "metadata" in changes else {k: v for k, v in given.items() if k != rules.THREAD_KEY}
            values["metadata"] = rules.with_thread(base, changes["thread"])
    if "valid_at" in changes:
        if changes["valid_at"] is None:
            raise InvalidInput("valid_at", "cannot be cleared")
        values["valid_at"] = parse_time(changes["valid_at"], "valid_at")
    if "invalid_at" in changes:
        values["invalid_at"] = optional_time(changes["invalid_at"], "invalid_at")
    if "expires_at" in changes or "ttl" in changes:
        stamp = now()
        expires = rules.expiry(optional_time(changes.get("expires_at"), "expires_at"), changes.get("ttl"), stamp)
        if expires is not None and expires <= stamp:
            raise InvalidInput("expires_at", f"{temporal.to_text(expires)} has passed; a memory must expire in the future")
        values["expires_at"] = expires
    valid, invalid = values.get("valid_at", old.valid_at), values.get("invalid_at", old.invalid_at)
    if ordered and invalid is not None and invalid < valid and {"valid_at", "invalid_at"} & set(values):
        raise InvalidInput(
            "invalid_at", f"{temporal.to_text(invalid)} is before valid_at {temporal.to_text(valid)}; a memory ends after it begins"
        )
    if all(getattr(old, k) == v for k, v in values.items()):
        return None
    return replace(old, **values, version=old.version + 1, updated_at=now())


def retire(store: Store, memory_id: str, at: datetime, metadata: dict[str, Any] | None = None) -> Memory:
    """Mark a memory invalid from ``at`` (and, given ``metadata``, write it in the same version): what a
    ``supersedes`` link does to its target. The text does not change, so vectors and similar lists are left be."""
    old = lookup.current(store, memory_id)
    new = revised(old, {"invalid_at": at} | ({"metadata": metadata} if metadata else {}), ordered=False)
    if new is None:
        return old
    with store.transaction():
        return store.replace_memory(old, new)
