"""Read-only views the web UI draws that no other surface needs: activity over time, token savings,
the knowledge a memory gave, and the knowledge graph of a workspace at a point in time.

Each is a function of the service (``mem``); the HTTP adapter only parses arguments and renders.
Nothing here writes, except that listing communities recomputes those whose facts changed, as
``Knotwork.communities`` does on every read.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knotwork.domain import rules
from knotwork.domain.models import ALL_WORKSPACES, LINK_TYPES, Memory
from knotwork.domain.temporal import now, parse_time, to_text
from knotwork.errors import InvalidInput, quote
from knotwork.knowledge import validate
from knotwork.services import trust
from knotwork.search.recipes import DEFAULT_RECIPE, RECIPES

if TYPE_CHECKING:
    from knotwork.knowledge.models import Entity, Fact
    from knotwork.service import Knotwork
    from knotwork.service_api import ServiceApi

BUCKETS = {"day": 10, "month": 7, "year": 4}  # length of the ISO-8601 prefix that names a period
TOP_KEYS = 8  # series per chart; the rest are summed under "other"


@dataclass(frozen=True, slots=True)
class Choices:
    """What the UI's pickers offer: workspaces, partitions, categories, recipes, link types."""

    workspaces: list[str]
    agents: list[str]
    categories: list[str]
    recipes: list[str]
    default_recipe: str
    link_types: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Activity:
    """Memories per period (of when each became true, or of when it was stored), split by workspace, category,
    partition (agent) and tag key."""

    bucket: str
    periods: list[str]
    series: dict[str, dict[str, list[int]]]  # dimension -> key -> count per period
    by: str = "valid"  # the time counted: "valid" (valid_at, the age every surface shows) or "created"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TokenSavings:
    """Per-operation totals of a metrics file: calls, full-JSON tokens, tokens sent, savings."""

    file: str | None
    operations: list[dict[str, Any]] = field(default_factory=list)
    calls: int = 0
    raw_tokens: int = 0
    sent_tokens: int = 0

    @property
    def savings_pct(self) -> float | None:
        return round(100 * (1 - self.sent_tokens / self.raw_tokens), 1) if self.raw_tokens else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "savings_pct": self.savings_pct}


@dataclass(frozen=True, slots=True)
class KnowledgeView:
    """Entities, the facts between them true at ``as_of``, their communities, and the span of time facts cover."""

    workspace: str | None
    as_of: str
    earliest: str | None
    latest: str | None
    entities: list[Entity]
    facts: list[Fact]
    communities: list[dict[str, Any]]  # {id, name, summary, members: [entity ids]}
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "workspace": self.workspace,
            "as_of": self.as_of,
            "earliest": self.earliest,
            "latest": self.latest,
            "entities": [e.to_dict() for e in self.entities],
            "facts": [f.to_dict() for f in self.facts],
            "communities": self.communities,
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class MemoryKnowledge:
    """The entities a memory mentions and the facts it is a source of."""

    memory_id: str
    entities: list[Entity]
    facts: list[Fact]

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "entities": [e.to_dict() for e in self.entities],
            "facts": [f.to_dict() for f in self.facts],
        }


def choices(mem: Knotwork, workspaces: frozenset[str] | None = None) -> Choices:
    """What the pickers offer; with ``workspaces``, only what the memories of those workspaces hold (a
    caller limited to them learns no other workspace's names, partitions or categories)."""
    store = mem.store
    if workspaces is None:
        names = {c: set(store.count_memories_by(c)) for c in ("workspace", "agent_id", "category")}
    else:  # read every memory of the scope: the grouped counts are of the whole store
        names = {c: set() for c in ("workspace", "agent_id", "category")}
        for m in _memories(mem, workspaces):
            for column, value in (("workspace", m.workspace), ("agent_id", m.agent_id), ("category", m.category)):
                names[column].add(value or "")
    return Choices(
        workspaces=sorted(k for k in names["workspace"] if k),
        agents=sorted(k for k in names["agent_id"] if k),
        categories=sorted(k for k in names["category"] if k),
        recipes=sorted(RECIPES),
        default_recipe=DEFAULT_RECIPE,
        link_types=list(LINK_TYPES),
    )


def _memories(mem: Knotwork, workspaces: frozenset[str] | None) -> Iterator[Memory]:
    for m in mem.store.iter_memories():
        if workspaces is None or (m.workspace or "") in workspaces:
            yield m


def tag_keys(mem: Knotwork, limit: int = 200, workspaces: frozenset[str] | None = None) -> list[str]:
    """The tag keys memories (of ``workspaces``, when given) carry, most used first (reads every memory:
    the UI asks for it apart)."""
    tags: Counter[str] = Counter()
    for m in _memories(mem, workspaces):
        tags.update(m.tags.keys())
    return [k for k, _ in tags.most_common(rules.limit(limit))]


def activity(mem: Knotwork, bucket: str = "month", workspaces: frozenset[str] | None = None, by: str = "valid") -> Activity:
    """Memories (retired ones too; of ``workspaces``, when given) by the period of ``valid_at`` (when each
    became true: the time every age is read from, docs/concepts.md) or, with ``by="created"``, of
    ``created_at`` (when it was stored; an import of old notes piles up on the import's day there); each
    dimension keeps its :data:`TOP_KEYS` largest keys and sums the rest as ``other``. ``''`` is global /
    none / shared."""
    if bucket not in BUCKETS:
        raise InvalidInput("bucket", f"must be one of {', '.join(BUCKETS)}, not {quote(bucket)}")
    if by not in ("valid", "created"):
        raise InvalidInput("by", f"must be valid or created, not {quote(by)}")
    width = BUCKETS[bucket]
    counts: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    periods: set[str] = set()
    for m in _memories(mem, workspaces):
        period = to_text(m.valid_at if by == "valid" else m.created_at)[:width]
        periods.add(period)
        counts["workspace"][(m.workspace or "", period)] += 1
        counts["category"][(m.category or "", period)] += 1
        counts["agent"][(m.agent_id or "", period)] += 1
        for key in m.tags:
            counts["tag"][(key, period)] += 1
    ordered = sorted(periods)
    at = {p: i for i, p in enumerate(ordered)}
    series: dict[str, dict[str, list[int]]] = {}
    for dimension in ("workspace", "category", "agent", "tag"):
        totals: Counter[str] = Counter()
        for (key, _), n in counts[dimension].items():
            totals[key] += n
        keep = {k for k, _ in totals.most_common(TOP_KEYS)}
        lines: dict[str, list[int]] = {}
        for (key, period), n in counts[dimension].items():
            name = key if key in keep else "other"
            lines.setdefault(name, [0] * len(ordered))[at[period]] += n
        series[dimension] = dict(sorted(lines.items(), key=lambda kv: -sum(kv[1])))
    return Activity(bucket, ordered, series, by)


def token_savings(mem: ServiceApi) -> TokenSavings:
    """Totals of the metrics file (``KNOTWORK_METRICS_FILE``); empty when none is set or written yet."""
    from knotwork.metrics import read

    path: Path | None = mem.settings.metrics_file
    if path is None:
        return TokenSavings(None)
    if not Path(path).expanduser().exists():
        return TokenSavings(str(path))
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in read(path):
        by_op[r["operation"]].append(r)
    ops = []
    for op, rs in sorted(by_op.items()):
        raw, sent = sum(r["raw_tokens"] for r in rs), sum(r["sent_tokens"] for r in rs)
        ops.append({
            "operation": op, "calls": len(rs), "raw_tokens": raw, "sent_tokens": sent,
            "savings_pct": round(100 * (1 - sent / raw), 1) if raw else None,
        })
    return TokenSavings(
        str(path), ops, sum(o["calls"] for o in ops), sum(o["raw_tokens"] for o in ops), sum(o["sent_tokens"] for o in ops)
    )


def memory_knowledge(mem: Knotwork, ref: str) -> MemoryKnowledge:
    """What the knowledge graph holds from one memory: the entities it mentions, the facts it is a source of."""
    memory = mem.get(ref)
    store = mem.store
    entity_ids = store.kg_mentions([memory.id]).get(memory.id, [])
    facts = [f for f in store.kg_facts_touching(entity_ids, include_invalid=True) if memory.id in f.sources] if entity_ids else []
    entities = store.kg_get_entities(entity_ids)
    return MemoryKnowledge(memory.id, [entities[e] for e in entity_ids if e in entities], facts)


def knowledge(
    mem: Knotwork, workspace: str | None = None, as_of: str | None = None, limit: int = 300, min_confidence: Any = None
) -> KnowledgeView:
    """The knowledge graph of ``workspace`` (and global; ``"*"``: all) at ``as_of`` (default now): at most
    ``limit`` entities, with the facts between them true then (and at least ``min_confidence`` sure; by default,
    those the graph shows: trust.shown).

    The entities are those the facts true at ``as_of`` join (the same facts as ``search_facts`` with that
    ``as_of`` finds), those of the largest communities first, then the rest of the communities' members.
    Communities are computed from the facts true now, so choosing from them alone left out a fact that held
    at ``as_of`` between entities no current fact joins (a value since replaced)."""
    validate.confidence(min_confidence, "min_confidence", None)
    size = rules.limit(limit, 2000)
    at = parse_time(as_of, "as_of") if as_of else now()
    scope = rules.scope(workspace)
    mem.knowledge.list_communities(workspace, None, 1)  # recompute the communities whose facts changed
    store = mem.store
    groups = store.kg_communities(scope)
    spaces = store.kg_graph_workspaces() if scope == ALL_WORKSPACES else ["", scope] if scope else [""]
    then = {e for ws in spaces for pair in store.kg_edges(ws, at) for e in pair}  # ends of the facts true at ``at``
    members = list(dict.fromkeys(e for _, group in groups for e in group))
    ranked = set(members)
    degree = store.kg_degree(sorted(then - ranked)) if then - ranked else {}
    chosen = list(dict.fromkeys(
        [e for e in members if e in then] + sorted(then - ranked, key=lambda e: (-degree.get(e, 0), e)) + members
    ))
    truncated = len(chosen) > size
    chosen = chosen[:size]
    everything = store.kg_facts_touching(chosen, workspace=scope, include_invalid=True) if chosen else []
    times = [f.valid_at or f.created_at for f in everything]
    keep = set(chosen)
    facts = trust.shown([
        f for f in store.kg_facts_touching(chosen, workspace=scope, at=at, include_invalid=False)
        if f.subject_id in keep and f.object_id in keep
    ], min_confidence, mem.settings) if chosen else []
    entities = store.kg_get_entities(chosen)
    communities = [
        {"id": c.id, "name": c.name, "summary": c.summary, "members": [e for e in members if e in keep]}
        for c, members in groups
        if any(e in keep for e in members)
    ]
    return KnowledgeView(
        workspace,
        to_text(at),
        to_text(min(times)) if times else None,
        to_text(max(times)) if times else None,
        [entities[e] for e in chosen if e in entities],
        facts,
        communities,
        truncated,
    )
