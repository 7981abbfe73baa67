"""What changed between two versions of a memory, field by field (pure: no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knotwork.domain.models import Memory

#: The fields a version can change, in the order a change is told (``updated_at``, ``version`` and the
#: content hash change with every version and tell nothing of their own).
FIELDS = (
    "content", "valid_at", "invalid_at", "expires_at", "category", "tags", "importance", "artifacts", "evidence",
    "metadata", "workspace", "agent_id",
)


@dataclass(frozen=True, slots=True)
class Change:
    """One field of a memory: its value in the version before and in this one."""

    field: str
    before: Any
    after: Any


def changes(before: Memory, after: Memory) -> list[Change]:
    """The fields whose value differs from ``before`` to ``after``, in :data:`FIELDS` order."""
    return [Change(f, getattr(before, f), getattr(after, f)) for f in FIELDS if getattr(before, f) != getattr(after, f)]


def each_change(versions: list[Memory]) -> list[list[Change]]:
    """For each version (oldest first), what changed since the one before it (nothing for the first)."""
    return [[] if i == 0 else changes(versions[i - 1], v) for i, v in enumerate(versions)]
