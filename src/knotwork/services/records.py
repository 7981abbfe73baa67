"""Export records in and out: parsing what ``import`` reads (memories, links, the knowledge graph), and the
reports of import and backup."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from knotwork.domain import ids, rules
from knotwork.domain.models import LINK_TYPES, ImportReport, Memory, Relationship  # noqa: F401  (ImportReport: read from here too)
from knotwork.domain.temporal import parse_time, to_text
from knotwork.errors import InvalidInput
from knotwork.knowledge import validate
from knotwork.knowledge.models import Community, Entity, Fact, QueueItem


@dataclass(frozen=True, slots=True)
class BackupReport:
    """Where a backup went, how large it is, and what it holds."""

    path: str
    bytes: int
    memories: int
    schema_version: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "bytes": self.bytes, "memories": self.memories, "schema_version": self.schema_version}


#: Texts an import embeds per model run, so that its progress moves with the work rather than jumping from 0
#: to all after one long run (the model batches within a run as it would anyway).
IMPORT_EMBED_STEP = 64


def embed_in_steps(vectors: Any, texts: list[str], on_step: Any = None, step: int = IMPORT_EMBED_STEP) -> list[list[bytes]]:
    """``vectors(texts)`` run ``step`` texts at a time; ``on_step(n)`` after each run."""
    out: list[list[bytes]] = []
    for start in range(0, len(texts), step):
        part = texts[start:start + step]
        out += vectors(part)
        if on_step:
            on_step(len(part))
    return out


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
            # A record of plain text ({"content": ...}) is the usual mistake: say what import reads, and what stores text.
            raise InvalidInput("record", f"is not a record an export writes (missing {', '.join(sorted(missing))}): "
                                         "import loads an export; to store new text, add it")
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


# -- the knowledge graph in export records ------------------------------------------------------------
# After the memories an export writes one record per entity, fact and community, then the communities
# still to recompute and the LLM extraction queue, each named by its "record" key, and last a
# ``{"record": "graph"}`` record: the export carries the graph (an export without it is older, and its
# graph is extracted again on import). A memory record names the entities it mentions under "mentions".

GRAPH_KINDS = frozenset({"entity", "fact", "community", "community_dirty", "extraction", "graph"})
_EXTRACTOR = re.compile(r"[a-z][a-z0-9_-]{0,31}")
QUEUE_STATUSES = frozenset({"pending", "running", "done", "failed"})


@dataclass(frozen=True, slots=True)
class GraphEntity:
    entity: Entity
    note: str
    terms: str | None  # None: the name's and aliases' words (an export written by hand)
    vector: bytes | None
    model: str | None  # the embedding model that made ``vector``


@dataclass(frozen=True, slots=True)
class GraphCommunity:
    community: Community
    members: tuple[str, ...]
    created_at: datetime


@dataclass
class GraphRecords:
    """The graph records of an import, checked; ``seen``: a ``graph`` record was there (the export carries the graph)."""

    entities: list[GraphEntity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    communities: list[GraphCommunity] = field(default_factory=list)
    dirty: list[tuple[str | None, list[str]]] = field(default_factory=list)
    queue: list[QueueItem] = field(default_factory=list)
    mentions: dict[str, list[str]] = field(default_factory=dict)  # memory id -> entity ids
    seen: bool = False


def _id(value: Any, field_name: str) -> str:
    found = ids.normalize_ref(value, field_name)
    if len(found) != ids.ID_LENGTH:
        raise InvalidInput(field_name, f"{value!r} is not a full id")
    return found


def _list(value: Any, field_name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(field_name, f"must be a list, got {type(value).__name__}")
    return value


def _ids(value: Any, field_name: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidInput(field_name, "must be a list of ids")
    return [_id(v, field_name) for v in value]


def _when(d: Mapping[str, Any], key: str, required: bool = True) -> datetime | None:
    if d.get(key) is None:
        if required:
            raise InvalidInput(key, "is missing")
        return None
    return parse_time(d[key], key)


def _text(value: Any, field_name: str, default: str | None = None) -> str:
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise InvalidInput(field_name, f"expected text, got {type(value).__name__}")
    return value


def mentions_of(record: Mapping[str, Any]) -> list[str] | None:
    """The entity ids a memory record says it mentions (None: it says nothing)."""
    return None if record.get("mentions") is None else _ids(record["mentions"], "mentions")


def imported_graph(record: Mapping[str, Any], into: GraphRecords) -> None:
    """Check one graph record and add it to ``into`` (InvalidInput names the field at fault)."""
    kind = record.get("record")
    if kind not in GRAPH_KINDS:
        raise InvalidInput("record", f"unknown record kind {kind!r}; known: {', '.join(sorted(GRAPH_KINDS))}")
    ws = rules.workspace(record.get("workspace"))
    if kind == "graph":
        into.seen = True
    elif kind == "entity":
        vector = record.get("vector")
        blob = model = None
        if vector is not None:
            if not isinstance(vector, Mapping) or not isinstance(vector.get("data"), str):
                raise InvalidInput("vector", "expected {model, data}: data is base64 float32")
            try:
                blob = base64.b64decode(vector["data"], validate=True)
            except (binascii.Error, ValueError):
                raise InvalidInput("vector.data", "is not base64") from None
            if not blob or len(blob) % 4:
                raise InvalidInput("vector.data", "is not a float32 vector")
            model = _text(vector.get("model"), "vector.model", "")
        entity = Entity(
            _id(record.get("id"), "id"), ws, validate.name(record.get("name"), "name"),
            validate.entity_type(record.get("type"), "type"), _text(record.get("summary"), "summary", ""),
            _when(record, "created_at"), _when(record, "updated_at"),
            tuple(validate.name(a, "aliases") for a in _list(record.get("aliases"), "aliases")),
        )
        terms = None if record.get("terms") is None else _text(record["terms"], "terms")
        into.entities.append(GraphEntity(entity, _text(record.get("note"), "note", ""), terms, blob, model))
    elif kind == "fact":
        extractor = _text(record.get("extractor", record.get("origin")), "extractor", "caller")
        if not _EXTRACTOR.fullmatch(extractor):
            raise InvalidInput("extractor", f"{extractor!r} is not an extractor name (caller, parser, rules, llm…)")
        sure = validate.confidence(record.get("confidence"), "confidence")
        subject, obj = _id(record.get("subject_id"), "subject_id"), _id(record.get("object_id"), "object_id")
        if subject == obj:
            raise InvalidInput("object_id", "a fact needs two different entities")
        valid, invalid = _when(record, "valid_at", False), _when(record, "invalid_at", False)
        if valid and invalid and invalid < valid:
            raise InvalidInput("invalid_at", "is before valid_at")
        superseded = record.get("superseded_by")
        into.facts.append(Fact(
            _id(record.get("id"), "id"), ws, subject, "", validate.predicate(record.get("predicate"), "predicate"), obj, "",
            _text(record.get("fact"), "fact"), valid, invalid, _when(record, "created_at"),
            _when(record, "expired_at", False), None if superseded is None else _id(superseded, "superseded_by"),
            extractor, tuple(_ids(record.get("sources") or [], "sources")), sure,
        ))
    elif kind == "community":
        community = Community(_id(record.get("id"), "id"), ws, _text(record.get("name"), "name"),
                              _text(record.get("summary"), "summary", ""), ())
        into.communities.append(GraphCommunity(community, tuple(_ids(record.get("members"), "members")),
                                               _when(record, "created_at")))
    elif kind == "community_dirty":
        into.dirty.append((ws, _ids(record.get("entities"), "entities")))
    else:
        status = record.get("status")
        if status not in QUEUE_STATUSES:
            raise InvalidInput("status", f"{status!r}; known: {', '.join(sorted(QUEUE_STATUSES))}")
        attempts = record.get("attempts", 0)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
            raise InvalidInput("attempts", f"must be a whole number from 0, got {attempts!r}")
        error = record.get("last_error")
        into.queue.append(QueueItem(
            _id(record.get("memory_id"), "memory_id"), status, attempts, None if error is None else _text(error, "last_error"),
            _when(record, "enqueued_at"), _when(record, "updated_at"), _when(record, "available_at"),
        ))


def entity_record(e: Entity, note: str, terms: str, vector: bytes | None, model: str | None) -> dict[str, Any]:
    out = {"record": "entity", "id": e.id, "workspace": e.workspace, "name": e.name, "type": e.type, "summary": e.summary,
           "note": note, "terms": terms, "aliases": list(e.aliases), "created_at": to_text(e.created_at),
           "updated_at": to_text(e.updated_at)}
    if vector is not None:
        out["vector"] = {"model": model or "", "data": base64.b64encode(vector).decode("ascii")}
    return out


def fact_record(f: Fact) -> dict[str, Any]:
    out = f.to_dict()
    del out["subject"], out["object"]
    return {"record": "fact", **out, "subject_id": f.subject_id, "object_id": f.object_id}


def community_record(c: Community, members: list[str], created_at: datetime) -> dict[str, Any]:
    return {"record": "community", "id": c.id, "workspace": c.workspace, "name": c.name, "summary": c.summary,
            "members": members, "created_at": to_text(created_at)}


def queue_record(q: QueueItem) -> dict[str, Any]:
    return {"record": "extraction", **q.to_dict()}
