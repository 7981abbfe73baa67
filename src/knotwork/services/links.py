"""Typed relationships between memories, traversal, graphs and meta-relations."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from knotwork.domain import ids, rules
from knotwork.domain.models import LINK_TYPES, SUPERSEDED_BY, Graph, Memory, MetaRelation, Related, Relationship
from knotwork.domain.temporal import now
from knotwork.errors import AmbiguousId, InvalidInput, NotFound, quote
from knotwork.graph.adjacency import Adjacency
from knotwork.graph.traverse import DIRECTIONS, bfs
from knotwork.services import lookup, versions
from knotwork.store.protocol import Store


def _bounded(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(field, f"must be a whole number from {low} to {high}, got {quote(value)}")
    return value


def _direction(value: Any) -> str:
    if value not in DIRECTIONS:
        raise InvalidInput("direction", f"must be one of {', '.join(DIRECTIONS)}, got {quote(value)}")
    return value


def _types(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    unknown = [t for t in value if t not in LINK_TYPES]
    if unknown:
        raise InvalidInput("types", f"unknown type(s) {', '.join(map(str, unknown))}; known: {', '.join(LINK_TYPES)}")
    return list(value)


def link(store: Store, from_id: str, to_id: str, type: str, metadata: Mapping[str, Any] | None = None) -> Relationship:
    """``from_id --type--> to_id`` (full or short ids), idempotent; a new ``supersedes`` link retires its target
    in the same transaction. The one way a link is written: by ``Knotwork.link``, by an add's supersession
    (``WritePath.apply``), by a merge and by the graph's value changes (:func:`value_changed`)."""
    if type not in LINK_TYPES:
        raise InvalidInput("type", f"unknown relationship type {quote(type)}; known: {', '.join(LINK_TYPES)}")
    meta = rules.metadata(metadata)
    source, target = lookup.current(store, from_id), lookup.current(store, to_id)
    if source.id == target.id:
        raise InvalidInput("to_id", "a memory cannot be linked to itself")
    if source.workspace and target.workspace and source.workspace != target.workspace:
        raise InvalidInput(
            "to_id",
            f"memories of different workspaces cannot be linked ({source.workspace!r} and {target.workspace!r})",
        )
    rel = Relationship(
        id=ids.new_id(),
        from_id=source.id,
        to_id=target.id,
        type=type,
        workspace=source.workspace or target.workspace,
        created_at=now(),
        metadata=meta,
    )
    with store.transaction():
        stored = store.insert_link(rel)
        if type == "supersedes" and not stored.existing:
            # Trigger: A supersedes B. Why: B is no longer true once A is.
            # Outcome: B is retired from A's valid_at; it leaves default search
            # and recall but stays readable (include_invalid, history).
            # A supersession consolidation or the graph decided says which memory and why on the retired
            # memory itself (``metadata.superseded_by``), seen by get and history on every surface.
            if target.invalid_at is None or target.invalid_at > source.valid_at:
                why = meta.get("consolidation")
                note = {**target.metadata, SUPERSEDED_BY: {"id": source.id, "reason": why}} if why else None
                versions.retire(store, target.id, source.valid_at, note)
    return stored


def value_changed(store: Store, new_id: str, old_id: str, reason: str) -> None:
    """The graph saw ``new_id`` retire every fact ``old_id`` stated (``KnowledgeService.on_value_changed``):
    SUPERSEDE, as consolidation would (same partition, the older memory still current and not later than the
    new one)."""
    new, old = store.get_memory(new_id), store.get_memory(old_id)
    if new is None or old is None or old.invalid_at is not None or old.agent_id != new.agent_id:
        return
    if old.valid_at > new.valid_at:
        return
    link(store, new_id, old_id, "supersedes", {"consolidation": reason})
    store.bump_counter("superseded_on_add")


class LinkService:
    """Links between memories. ``get`` resolves a memory id (:func:`knotwork.services.lookup.current`)."""

    def __init__(
        self,
        store: Store,
        get: Callable[[str], Memory],
        about: Callable[[list[str]], dict[str, list[Any]]] | None = None,
    ) -> None:
        self.store = store
        self.get = get
        self.about = about  # memory ids -> (name, summary) of the entities each mentions (knowledge graph)
        self.adjacency = Adjacency(store)

    def link(self, from_id: str, to_id: str, type: str, metadata: dict[str, Any] | None = None) -> Relationship:
        return link(self.store, from_id, to_id, type, metadata)

    def resolve(self, ref: str) -> str:
        text = ids.normalize_ref(ref, "relationship_id")
        found = self.store.resolve_link_ref(text)
        if not found:
            raise NotFound("relationship", ref)
        if len(found) > 1:
            raise AmbiguousId("relationship", ref, found)
        return found[0]

    def unlink(self, relationship_id: str) -> Relationship:
        rel = self.store.get_link(self.resolve(relationship_id))
        if rel is None or not self.store.delete_link(rel.id):
            raise NotFound("relationship", relationship_id)
        return rel

    def relationships(self, memory_id: str, direction: str = "both", types: Sequence[str] | None = None) -> list[Relationship]:
        memory = self.get(memory_id)
        return self.store.links_touching([memory.id], _direction(direction), _types(types))

    def related(
        self, memory_id: str, types: Sequence[str] | None = None, depth: int = 1, direction: str = "both"
    ) -> list[Related]:
        start = self.get(memory_id)
        kinds, way, levels = _types(types), _direction(direction), _bounded(depth, "depth", 1, 5)
        steps, _ = bfs(start.id, self.adjacency.expander(way, kinds), max_depth=levels)
        found = self.store.memory_briefs([s.node for s in steps])
        return [Related(found[s.node], s.via.relationship(), s.depth) for s in steps if s.node in found]

    def graph(self, memory_id: str, max_depth: int = 2, max_nodes: int = 50) -> Graph:
        center = self.get(memory_id)
        levels, most = _bounded(max_depth, "max_depth", 1, 3), _bounded(max_nodes, "max_nodes", 1, 100)
        expand = self.adjacency.expander()
        steps, truncated = bfs(center.id, expand, max_depth=levels, max_nodes=most)
        depths = {center.id: 0, **{s.node: s.depth for s in steps}}
        found = self.store.memory_briefs(list(depths))
        # Edges among every drawn node, including those between nodes of the last level.
        edges = {e.id: e for _, e in expand(list(depths)) if e.from_id in depths and e.to_id in depths}
        nodes = [found[n] for n in depths if n in found]
        return Graph(center.id, nodes, depths, [edges[k].relationship() for k in sorted(edges)], truncated)

    def current(self, memory_ids: Sequence[str]) -> list[Memory]:
        """``[get(id) for id in memory_ids]``, with full ids read in one query (a search's hits): only a short id,
        or one not found as given, goes through ``get`` (which names what is missing)."""
        found = self.store.get_memories(list(memory_ids))
        at = now()
        out = []
        for mid in memory_ids:
            m = found.get(mid)
            out.append(m if m is not None and (m.expires_at is None or m.expires_at > at) else self.get(mid))
        return out

    def relations(self, memory_ids: Sequence[str], memories: Sequence[Memory] | None = None) -> dict[str, list[MetaRelation]]:
        """Each memory's metadata as edges (and the entities it is about); ``memories``: those memories, read
        already (:meth:`current`)."""
        memories = self.current(memory_ids) if memories is None else memories
        out = {m.id: meta_relations(m) for m in memories}
        if self.about:
            for mid, entities in self.about([m.id for m in memories]).items():
                out[mid] += [MetaRelation("about", "entity", name, preview=summary or None) for name, summary in entities]
        return out


def meta_relations(m: Memory) -> list[MetaRelation]:
    """A memory's metadata as edges: artifacts, tags, evidence, category, scope, client app."""
    out = [MetaRelation("references_artifact", "artifact", a) for a in m.artifacts]
    out += [MetaRelation("tagged", k, v) for k, v in m.tags.items()]
    out += [MetaRelation("has_evidence", "evidence", e) for e in m.evidence]
    if m.category:
        out.append(MetaRelation("in_category", "category", m.category))
    out.append(MetaRelation("in_scope", "workspace" if m.workspace else "global", m.workspace or "global"))
    app = m.metadata.get("written_via")
    if isinstance(app, str) and app:
        out.append(MetaRelation("written_via", "app", app))
    return out
