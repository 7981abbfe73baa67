"""The records of the knowledge graph, as immutable values.

An *entity* is a thing memories talk about (a person, a library, a file…).
A *fact* is ``subject --predicate--> object`` between two entities, true in
world time from ``valid_at`` (None: since always) until ``invalid_at``
(None: still true), recorded in system time at ``created_at`` and retired
in the store at ``expired_at``. A retired fact names the fact that replaced
it in ``superseded_by``. Every fact keeps the ids of the memories
(*episodes*) it came from, the ``extractor`` that stated it (caller, parser,
rules, llm) and that extractor's ``confidence`` in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from knotwork.domain.temporal import to_text


def _t(value: datetime | None) -> str | None:
    return to_text(value) if value else None


@dataclass(frozen=True, slots=True)
class Entity:
    id: str
    workspace: str | None
    name: str
    type: str | None
    summary: str
    created_at: datetime
    updated_at: datetime
    aliases: tuple[str, ...] = ()
    mentions: int = 0  # memories that mention it (filled by reads that need it)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "workspace": self.workspace,
            "name": self.name,
            "type": self.type,
            "summary": self.summary,
            "aliases": list(self.aliases),
            "mentions": self.mentions,
            "created_at": to_text(self.created_at),
            "updated_at": to_text(self.updated_at),
        }


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    workspace: str | None
    subject_id: str
    subject: str
    predicate: str
    object_id: str
    object: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    superseded_by: str | None
    extractor: str  # who stated it: caller, parser, rules or llm
    sources: tuple[str, ...] = ()
    confidence: float = 1.0  # how sure the extractor was, in [0, 1] (a caller's word: 1.0 unless it says)

    def current(self, at: datetime) -> bool:
        """True at world time ``at``."""
        return (self.valid_at is None or self.valid_at <= at) and (self.invalid_at is None or self.invalid_at > at)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "workspace": self.workspace,
            "subject": {"id": self.subject_id, "name": self.subject},
            "predicate": self.predicate,
            "object": {"id": self.object_id, "name": self.object},
            "fact": self.fact,
            "valid_at": _t(self.valid_at),
            "invalid_at": _t(self.invalid_at),
            "created_at": to_text(self.created_at),
            "expired_at": _t(self.expired_at),
            "superseded_by": self.superseded_by,
            "extractor": self.extractor,
            "confidence": self.confidence,
            "sources": list(self.sources),
        }


class Found(list):
    """Search results plus the query that found them (renderers say what was searched for); when there are
    none, ``elsewhere``: the other workspaces the caller reads where the same search finds some, with how many
    (:mod:`knotwork.views.elsewhere`); ``less_sure``: when a fact search at the default confidence finds none,
    how many the same search finds among the less sure facts it hid."""

    def __init__(self, items: list, query: str, elsewhere: dict[str, int] | None = None, less_sure: int = 0) -> None:
        super().__init__(items)
        self.query = query
        self.elsewhere = dict(elsewhere or {})
        self.less_sure = less_sure


@dataclass(frozen=True, slots=True)
class NodeHit:
    """An entity found by :meth:`Knotwork.search_nodes`, with its score (higher is better)."""

    entity: Entity
    score: float
    distance: int | None = None  # hops from the center entity, when one was given
    community: Community | None = None  # the community it belongs to (members not filled in)

    def to_dict(self) -> dict[str, Any]:
        community = {"id": self.community.id, "name": self.community.name} if self.community else None
        return {"score": self.score, "distance": self.distance, "community": community, "entity": self.entity.to_dict()}


@dataclass(frozen=True, slots=True)
class FactHit:
    fact: Fact
    score: float
    distance: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "distance": self.distance, "fact": self.fact.to_dict()}


@dataclass(frozen=True, slots=True)
class Episode:
    """A memory seen from the graph: the entities it mentions and the facts it gave."""

    memory_id: str
    workspace: str | None
    content: str
    valid_at: datetime
    created_at: datetime
    entities: tuple[str, ...]
    facts: int
    extraction: str | None = None  # LLM queue status, when the memory was queued

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "workspace": self.workspace,
            "content": self.content,
            "valid_at": to_text(self.valid_at),
            "created_at": to_text(self.created_at),
            "entities": list(self.entities),
            "facts": self.facts,
            "extraction": self.extraction,
        }


@dataclass(frozen=True, slots=True)
class Community:
    id: str
    workspace: str | None
    name: str
    summary: str
    members: tuple[str, ...]  # entity names, most connected first

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "workspace": self.workspace, "name": self.name, "summary": self.summary,
                "size": len(self.members), "members": list(self.members)}


@dataclass(frozen=True, slots=True)
class QueueItem:
    memory_id: str
    status: str
    attempts: int
    last_error: str | None
    enqueued_at: datetime
    updated_at: datetime
    available_at: datetime | None = None  # a retried item waits until then

    def to_dict(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id, "status": self.status, "attempts": self.attempts,
                "last_error": self.last_error, "enqueued_at": to_text(self.enqueued_at),
                "updated_at": to_text(self.updated_at), "available_at": _t(self.available_at)}


@dataclass(frozen=True, slots=True)
class ExtractionStatus:
    """The LLM extraction queue at a glance: counts by status and some items."""

    enabled: bool
    counts: dict[str, int]
    items: tuple[QueueItem, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "counts": dict(self.counts), "items": [q.to_dict() for q in self.items]}


@dataclass(frozen=True, slots=True)
class ExtractionReport:
    """What one drain of the queue did."""

    done: int
    retrying: int
    failed: int
    remaining: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"done": self.done, "retrying": self.retrying, "failed": self.failed, "remaining": dict(self.remaining)}


@dataclass(frozen=True, slots=True)
class ClearReport:
    workspace: str | None
    entities: int
    facts: int

    def to_dict(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "entities": self.entities, "facts": self.facts}


# -- drafts: what extraction and callers produce, before resolution ---------------


@dataclass(frozen=True, slots=True)
class EntityDraft:
    name: str
    type: str | None = None
    summary: str | None = None
    #: which offline reading found it ("parse:span:file:2", "parse:propn"); for the mention model, never stored
    rule: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class FactDraft:
    subject: str
    predicate: str
    object: str
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    replaces: str | None = None  # an older object this fact replaces ("moved from Y to Z")
    subject_type: str | None = None
    object_type: str | None = None
    past: bool = False  # "used to live in Y": true before the memory's time, not after
    confidence: float = 1.0
    #: which offline reading found it ("parse:dobj:use", "rules:switch"); for accounting, never stored
    rule: str = field(default="", compare=False)
    turn: bool = False  # "is now deployed on Y": the value before this one of the subject and predicate is over
    when: str | None = None  # "two years ago", "since March": a start relative to the memory's time (cues.when)


@dataclass
class Extraction:
    entities: list[EntityDraft] = field(default_factory=list)
    facts: list[FactDraft] = field(default_factory=list)

    def extend(self, other: Extraction) -> None:
        self.entities += other.entities
        self.facts += other.facts
