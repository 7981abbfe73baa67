"""Export records in and out: parsing what ``import`` reads, and the reports of import and backup."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from knotwork.domain import ids, rules
from knotwork.domain.models import LINK_TYPES, Memory, Relationship
from knotwork.domain.temporal import parse_time
from knotwork.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class BackupReport:
    """Where a backup went, how large it is, and what it holds."""

    path: str
    bytes: int
    memories: int
    schema_version: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "bytes": self.bytes, "memories": self.memories, "schema_version": self.schema_version}


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did: memories added, and those already present (same id or same content)."""

    added: int
    skipped: int


def imported_link(d: Mapping[str, Any]) -> Relationship:
    """An exported link, checked."""
    if d["type"] not in LINK_TYPES:
        raise InvalidInput("links", f"unknown relationship type {d['type']!r}")
    return Relationship(
        id=ids.normalize_ref(d["id"], "links"),
        from_id=ids.normalize_ref(d["from"], "links"),
        to_id=ids.normalize_ref(d["to"], "links"),
        type=d["type"],
        workspace=rules.workspace(d.get("workspace")),
        created_at=parse_time(d["created_at"], "links.created_at"),
        metadata=rules.metadata(d.get("metadata")),
    )


def imported_memory(record: Mapping[str, Any], max_content_bytes: int) -> tuple[Memory, list[Memory]]:
    """A record's memory and its past versions, checked (InvalidInput names the field at fault)."""
    if not isinstance(record, Mapping):
        raise InvalidInput("record", f"expected a JSON object, got {type(record).__name__}")

    def one(d: Mapping[str, Any]) -> Memory:
        missing = {"id", "content", "created_at", "updated_at", "valid_at"} - set(d)
        if missing:
            raise InvalidInput("record", f"missing field(s) {', '.join(sorted(missing))}")
        memory_id = ids.normalize_ref(d["id"])
        if len(memory_id) != ids.ID_LENGTH:
            raise InvalidInput("id", f"{d['id']!r} is not a full id")
        text = rules.content(d["content"], max_content_bytes)
        version = d.get("version", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidInput("version", f"must be a whole number from 1, got {version!r}")
        return Memory.from_dict(
            {
                **d,
                "id": memory_id,
                "content": text,
                "workspace": rules.workspace(d.get("workspace")),
                "agent_id": rules.agent_id(d.get("agent_id")),
                "category": rules.category(d.get("category")),
                "tags": rules.tags(d.get("tags")),
                "artifacts": rules.str_list(d.get("artifacts"), "artifacts"),
                "evidence": rules.str_list(d.get("evidence"), "evidence"),
                "importance": rules.importance(d.get("importance")),
                "metadata": rules.metadata(d.get("metadata")),
                "content_hash": rules.content_hash(text),
            }
        )
    history = record.get("history") or []
    if not isinstance(history, list):
        raise InvalidInput("history", "must be a list of earlier versions")
    memory = one(record)
    past = [one({**old, "id": memory.id}) for old in history]
    return memory, past
