"""The records of the store, as immutable values."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, NamedTuple

from knotwork.domain.temporal import from_text, parse_time, to_text


def names_of(tags: Mapping[str, Any], artifacts: Sequence[str], evidence: Sequence[str]) -> tuple[str, ...]:
    """The values of a memory's fields that name something: evidence ids, artifacts, tag values (in that order).

    Search indexes them beside the content, and a query that names one exactly finds its memories first.
    """
    return (*evidence, *artifacts, *(v for v in tags.values() if isinstance(v, str) and v))


@dataclass(frozen=True, slots=True)
class Memory:
    """A piece of text worth keeping (also called an *episode*).

    ``workspace`` None is the global scope; ``agent_id`` None is the shared
    partition. ``version`` starts at 1 and grows with every update; earlier
    versions are kept (see ``Knotwork.history``). ``expires_at``: when set and
    passed, the memory leaves every read and ``prune`` purges it.

    Not stored, set by ``add``: ``duplicate`` when the same content already
    existed in the same workspace and partition and the existing memory was
    returned instead; ``decision`` (``ADD``, ``UPDATE``, ``SUPERSEDE``,
    ``NOOP``, or ``IGNORE`` when the store/ignore rules kept nothing),
    ``touched`` (the id of the existing memory the decision concerned) and
    ``reason`` (why, in a few words).
    """

    id: str
    content: str
    workspace: str | None
    agent_id: str | None
    category: str | None
    tags: dict[str, str]
    artifacts: list[str]
    evidence: list[str]
    importance: float
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    valid_at: datetime
    invalid_at: datetime | None
    content_hash: str
    version: int = 1
    expires_at: datetime | None = None
    duplicate: bool = field(default=False, compare=False)
    decision: str = field(default="ADD", compare=False)
    touched: str | None = field(default=None, compare=False)
    reason: str | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with every stored field (times as ISO-8601 UTC)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in _UNSTORED:
                continue
            value = getattr(self, f.name)
            out[f.name] = to_text(value) if isinstance(value, datetime) else value
        out["thread"] = self.thread
        return out

    @property
    def thread(self) -> str | None:
        """The conversation, session or thread this memory belongs to (``thread=`` on add, kept as
        ``metadata.thread``), or None."""
        value = self.metadata.get("thread")
        return None if value is None else str(value)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Memory:
        """Rebuild a memory from :meth:`to_dict` output (as read from an export)."""
        return cls(
            id=d["id"],
            content=d["content"],
            workspace=d.get("workspace"),
            agent_id=d.get("agent_id"),
            category=d.get("category"),
            tags=dict(d.get("tags") or {}),
            artifacts=list(d.get("artifacts") or []),
            evidence=list(d.get("evidence") or []),
            importance=float(d.get("importance", 0.5)),
            metadata=dict(d.get("metadata") or {}),
            created_at=parse_time(d["created_at"], "created_at"),
            updated_at=parse_time(d["updated_at"], "updated_at"),
            valid_at=parse_time(d["valid_at"], "valid_at"),
            invalid_at=parse_time(d["invalid_at"], "invalid_at") if d.get("invalid_at") else None,
            content_hash=d["content_hash"],
            version=int(d.get("version", 1)),
            expires_at=parse_time(d["expires_at"], "expires_at") if d.get("expires_at") else None,
        )

    def with_duplicate(self) -> Memory:
        return replace(self, duplicate=True, decision="NOOP", touched=self.id, reason="same content already stored")

    def decided(self, decision: str, touched: str | None = None, reason: str | None = None) -> Memory:
        """This memory as ``add`` returns it: with the consolidation decision that produced it."""
        return replace(self, decision=decision, touched=touched, reason=reason)

    def brief(self) -> MemoryBrief:
        return MemoryBrief(self.id, self.content, self.workspace, self.category, self.importance, self.valid_at, self.invalid_at)


_UNSTORED = frozenset({"duplicate", "decision", "touched", "reason"})
ADD_DECISIONS = ("ADD", "UPDATE", "SUPERSEDE", "NOOP", "IGNORE")
#: Metadata key a memory retired by a value change carries: {"id": the memory that superseded it, "reason": why}.
SUPERSEDED_BY = "superseded_by"


class MemoryBrief(NamedTuple):
    """A memory as walks over links return it: what shows it and places it in scope and time.

    ``related`` and ``graph`` can reach hundreds of memories; reading and
    building each one whole (tags, artifacts, evidence, metadata, ...) was
    most of their time. ``get(id)`` reads the whole memory. A named tuple,
    not a frozen dataclass like :class:`Memory`: as immutable, and built in a
    third of the time.
    """

    id: str
    content: str
    workspace: str | None
    category: str | None
    importance: float
    valid_at: datetime
    invalid_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        """The same keys and values as :meth:`Memory.to_dict` gives for these fields."""
        return {
            "id": self.id,
            "content": self.content,
            "workspace": self.workspace,
            "category": self.category,
            "importance": self.importance,
            "valid_at": to_text(self.valid_at),
            "invalid_at": to_text(self.invalid_at) if self.invalid_at else None,
        }


@dataclass(frozen=True, slots=True)
class RankingFacts:
    """What search's rerankers read of a memory: a few columns, cheap to load for hundreds of candidates."""

    valid_at: datetime
    importance: float
    words: int  # whitespace-separated runs, counted in SQL
    artifact: str | None  # the first artifact, if any


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: the memory and how well it matched (higher is better)."""

    memory: Memory
    score: float
    explain: dict[str, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.score, "memory": self.memory.to_dict()}
        if self.explain is not None:
            out["explain"] = self.explain
        return out


class Hits(list):
    """A search's hits, best first; when there are none, ``elsewhere``: the other workspaces the caller reads
    where the same search finds some, with how many (:mod:`knotwork.views.elsewhere`); ``unknown_workspace``:
    the workspace asked about when no memory is stored in it (a misspelt ``-w`` is named as such)."""

    def __init__(self, items: list[Hit], elsewhere: dict[str, int] | None = None,
                 unknown_workspace: str | None = None) -> None:
        super().__init__(items)
        self.elsewhere = dict(elsewhere or {})
        self.unknown_workspace = unknown_workspace


class Page(list):
    """A list of memories plus the cursor that fetches the next page (None at the end); ``unknown_workspace``:
    the workspace asked about when no memory is stored in it (as :class:`Hits`); ``elsewhere``: when the first
    page is empty, the other workspaces the caller reads where the same listing shows memories, with how many
    (:func:`knotwork.views.elsewhere.listed`)."""

    def __init__(self, items: list[Memory], next_cursor: str | None, unknown_workspace: str | None = None,
                 elsewhere: dict[str, int] | None = None) -> None:
        super().__init__(items)
        self.next_cursor = next_cursor
        self.unknown_workspace = unknown_workspace
        self.elsewhere = dict(elsewhere or {})

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"memories": [m.to_dict() for m in self], "next_cursor": self.next_cursor}
        if self.unknown_workspace:
            out["unknown_workspace"] = self.unknown_workspace
        if self.elsewhere:
            out["elsewhere"] = dict(self.elsewhere)
        return out


ALL_WORKSPACES = "*"
ALL_PARTITIONS = "*"
SNAPSHOT = "snapshot"  # the category of regenerated state (a profile, a status page): kept once per day per key
FIRST_PRUNE = "snapshots_first_prune"  # the store counter set once an upgraded store's first snapshot prune has run


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Which memories a list or search may see.

    ``workspace`` None sees the global scope only; a name sees that workspace
    and the global scope; ``ALL_WORKSPACES`` sees every workspace.
    ``agent_id`` None sees the shared partition only (memories without an
    ``agent_id``); a name sees that partition only; ``ALL_PARTITIONS`` sees
    every partition. Snapshots (category ``snapshot``) are seen only when
    ``category`` asks for them, and expired memories never.
    ``tags``: every key (``tags_mode="all"``) or at least one (``"any"``) must be
    present, with the given value unless it is None. ``artifact``: memories that
    reference this artifact. ``valid_since`` / ``valid_until`` bound ``valid_at``.
    ``since`` / ``until`` bound ``created_at`` (inclusive / exclusive).
    ``include_invalid``: also show memories whose ``invalid_at`` has passed.
    ``thread``: only the memories of that thread (``metadata.thread``).
    """

    workspace: str | None = None
    agent_id: str | None = None
    category: str | None = None
    tags: dict[str, str | None] = field(default_factory=dict)
    since: datetime | None = None
    until: datetime | None = None
    include_invalid: bool = False
    tags_mode: str = "all"
    artifact: str | None = None
    valid_since: datetime | None = None
    valid_until: datetime | None = None
    include_snapshots: bool = False
    thread: str | None = None


LINK_TYPES = (
    "relates_to",
    "parent_of",
    "child_of",
    "references",
    "supersedes",
    "implements",
    "example_of",
    "contradicts",
    "fixes",
)


@dataclass(frozen=True, slots=True)
class Relationship:
    """A typed, directed link ``from_id --type--> to_id`` between two memories."""

    id: str
    from_id: str
    to_id: str
    type: str
    workspace: str | None
    created_at: datetime
    metadata: dict[str, Any] = field(default_factory=dict)
    existing: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "from": self.from_id,
            "to": self.to_id,
            "type": self.type,
            "workspace": self.workspace,
            "created_at": to_text(self.created_at),
            "metadata": self.metadata,
        }


class StoredLink(NamedTuple):
    """A link as the store keeps it: time as :func:`~knotwork.domain.temporal.to_text`, metadata as JSON.

    Walks hold every link of a store in memory (graph/adjacency.py) and need
    only the ends and the type of most of them; a row kept as it was read
    costs a fraction of a :class:`Relationship` to load and to hold, and
    :meth:`relationship` decodes the few a walk returns.
    """

    id: str
    from_id: str
    to_id: str
    type: str
    workspace: str  # '' for a global link
    created_at: str
    metadata: str

    def relationship(self) -> Relationship:
        """A new :class:`Relationship` (its metadata a new dict: the caller's to change)."""
        link_id, from_id, to_id, kind, workspace, created_at, metadata = self
        return Relationship(
            link_id, from_id, to_id, kind, workspace or None, from_text(created_at), json.loads(metadata) if metadata != "{}" else {}
        )


@dataclass(frozen=True, slots=True)
class Related:
    """A memory reached from a start memory: through which link, at which BFS depth."""

    memory: MemoryBrief
    relationship: Relationship
    depth: int

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "relationship": self.relationship.to_dict(), "memory": self.memory.to_dict()}


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes and edges around a center memory, ready to draw; ``truncated`` when limits cut it."""

    center: str
    nodes: list[MemoryBrief]
    depths: dict[str, int]
    edges: list[Relationship]
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "center": self.center,
            "nodes": [
                {"id": m.id, "depth": self.depths[m.id], "category": m.category, "content": m.content} for m in self.nodes
            ],
            "edges": [e.to_dict() for e in self.edges],
            "truncated": self.truncated,
        }


# -- results the services return and the renderers show (here, below both) ------------------------
@dataclass(frozen=True, slots=True)
class MetaRelation:
    """A memory's own metadata seen as a graph edge (the verbose, "full" shape)."""

    type: str
    target_label: str
    target_value: str
    score: float | None = None
    preview: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "target_label": self.target_label,
            "target_value": self.target_value,
            "score": self.score,
            "preview": self.preview,
        }


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did: memories added, and those already present (same id or same content)."""

    added: int
    skipped: int
