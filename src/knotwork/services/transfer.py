"""Moving a whole store to another (SQLite to PostgreSQL and back): ``knotwork migrate``.

Everything goes through the store protocol, so any backend moves to any
other: memories with their ids, times and past versions, their vectors and
similar lists, links, the knowledge graph (entities with aliases, trigrams
and vectors, mentions, facts with their sources and retirements,
communities, the extraction queue) and the store's settings (which model
made the vectors). Memories go in batches, each batch one transaction on
the target, so an interrupted move keeps what it wrote: run again, it skips
what is already there (by id) and copies the rest, duplicating nothing. At
the end the counts of both stores are compared.

Not moved: surfacing counts (novelty's memory of what was shown recently;
they decay within days anyway) and the change logs in-process copies catch
up from (the target writes its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.domain.temporal import now
from knotwork.errors import Conflict
from knotwork.knowledge.resolve import grams, normalize
from knotwork.services.similar import EMPTY, SLOTS

MODEL_KEY = "embedding_model"  # the store setting app.check_model keeps
BATCH = 500

Progress = Callable[[str, int], object]  # (what, how many more done)


@dataclass(frozen=True)
class Count:
    name: str
    source: int
    target: int

    @property
    def same(self) -> bool:
        return self.source == self.target


def counts(store: Any) -> dict[str, int]:
    """What a move must carry over, counted in one store."""
    memory_ids = [m.id for m in store.iter_memories()]
    vectors = store.count_vectors()
    entities, facts = _graph(store, memory_ids)
    return {
        "memories": len(memory_ids), "links": store.count_links(),
        "memories with vectors": vectors[0], "vectors": vectors[1], "entities": len(entities), "facts": len(facts),
    }


def _graph(store: Any, memory_ids: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Every entity (mentioned, or joined by a fact) and every fact of a store."""
    entity_ids: set[str] = set()
    for start in range(0, len(memory_ids), BATCH):
        for found in store.kg_mentions(memory_ids[start : start + BATCH]).values():
            entity_ids.update(found)
    facts: dict[str, Any] = {}
    frontier = set(entity_ids)
    while frontier:  # entities reached only through facts (no memory mentions them)
        batch = sorted(frontier)
        frontier = set()
        for start in range(0, len(batch), BATCH):
            for f in store.kg_facts_touching(batch[start : start + BATCH], ALL_WORKSPACES, include_invalid=True, limit=10**9):
                facts[f.id] = f
                for end in (f.subject_id, f.object_id):
                    if end not in entity_ids:
                        entity_ids.add(end)
                        frontier.add(end)
    return sorted(entity_ids), facts


def move(source: Any, target: Any, progress: Progress = lambda what, n: None) -> list[Count]:
    """Copy everything of ``source`` that ``target`` does not hold yet; return both stores' counts."""
    model = source.get_meta(MODEL_KEY)
    there = target.get_meta(MODEL_KEY)
    if model and there and model != there:
        raise Conflict(f"{target.location}: its vectors were made by {there!r}, the source's by {model!r}")
    if model:
        target.set_meta(MODEL_KEY, model)
    memory_ids = _memories(source, target, progress)
    _similar(source, target, memory_ids, progress)
    _links(source, target, progress)
    _knowledge(source, target, memory_ids, progress)
    want, got = counts(source), counts(target)
    return [Count(name, want[name], got.get(name, 0)) for name in want]


def _memories(source: Any, target: Any, progress: Progress) -> list[str]:
    """Memories with versions and vectors, a batch per transaction; returns every id."""
    every: list[str] = []
    batch: list[Any] = []

    def flush() -> None:
        ids = [m.id for m in batch]
        present = set(target.get_memories(ids))
        with_vectors = set(target.vectors_by_memory(ids))
        vectors = source.vectors_by_memory([i for i in ids if i not in with_vectors])
        with target.transaction():
            for m in batch:
                if m.id not in present:
                    target.import_memory(m, source.memory_versions(m.id))
            for mid, (_, blobs) in vectors.items():
                target.put_vectors(mid, blobs)
        progress("memories", len(batch))
        every.extend(ids)
        batch.clear()

    for memory in source.iter_memories(BATCH):
        batch.append(memory)
        if len(batch) == BATCH:
            flush()
    if batch:
        flush()
    return every


def _similar(source: Any, target: Any, memory_ids: Sequence[str], progress: Progress) -> None:
    """The similar lists of the memories with vectors, once every memory is there: a list names memories of
    any batch. A list the target holds already is kept (a move run again writes only what is missing)."""
    for start in range(0, len(memory_ids), BATCH):
        ids = memory_ids[start : start + BATCH]
        embedded = set(target.vectors_by_memory(ids))
        have = target.similar_lists(sorted(embedded))
        todo = [i for i in ids if i in embedded and i not in have]
        if todo:
            similar = source.similar_lists(todo)
            slots = []
            for mid in todo:
                near = similar.get(mid, [])
                slots += [(mid, rank, *(near[rank - 1] if rank <= len(near) else (None, EMPTY))) for rank in range(1, SLOTS + 1)]
            with target.transaction():
                target.put_similar(slots)
        progress("similar lists", len(ids))


def _links(source: Any, target: Any, progress: Progress) -> None:
    links = source.stored_links()
    for start in range(0, len(links), BATCH):
        part = links[start : start + BATCH]
        with target.transaction():
            for link in part:
                target.insert_link(link.relationship())  # an existing link (same ends and type) comes back as is
        progress("links", len(part))


def _knowledge(source: Any, target: Any, memory_ids: Sequence[str], progress: Progress) -> None:
    entity_ids, facts = _graph(source, memory_ids)
    vectors = {eid: blob for _, eid, _, blob in source.kg_entity_vectors(0)}
    for start in range(0, len(entity_ids), BATCH):
        part = entity_ids[start : start + BATCH]
        rows = source.kg_entity_rows(part)
        have = set(target.kg_get_entities(part))
        found = source.kg_gram_counts(part)
        with target.transaction():
            for eid, (entity, note) in rows.items():
                if eid in have:
                    continue
                norm = normalize(entity.name)
                target.kg_insert_entity(entity, norm, found.get(eid) or grams(norm), note)
                for alias in entity.aliases:
                    target.kg_add_alias(entity.workspace, normalize(alias), alias, eid)
                if eid in vectors:
                    target.kg_put_entity_vector(eid, vectors[eid])
        progress("entities", len(part))
    ordered = sorted(facts.values(), key=lambda f: f.id)
    for start in range(0, len(ordered), BATCH):
        part = ordered[start : start + BATCH]
        have = set(target.kg_get_facts([f.id for f in part]))
        with target.transaction():
            for f in part:
                if f.id not in have:
                    # superseded_by names a fact that may come later: set once every fact is in
                    target.kg_insert_fact(replace(f, superseded_by=None))
        progress("facts", len(part))
    with target.transaction():
        for f in ordered:
            if f.superseded_by:
                target.kg_retire_fact(f.id, f.invalid_at, f.expired_at, f.superseded_by)
        for start in range(0, len(memory_ids), BATCH):
            for mid, eids in source.kg_mentions(memory_ids[start : start + BATCH]).items():
                target.kg_add_mentions(mid, eids)
        stamp = now()
        for workspace in source.kg_graph_workspaces():
            groups = [(c, members) for c, members in source.kg_communities(workspace or None) if (c.workspace or "") == workspace]
            if groups:
                target.kg_replace_communities(workspace or None, groups, stamp)
        for workspace in source.kg_dirty_workspaces():
            target.kg_mark_dirty(source.kg_dirty(workspace or None), workspace or None)
        for item in source.kg_queue(limit=10**9):
            target.kg_enqueue([item.memory_id], item.enqueued_at)
            target.kg_queue_set(item.memory_id, item.status, item.updated_at, item.last_error, item.available_at)
        # memories not read into the graph yet: queued in the target too (once, on a move run again)
        there = {(i.memory_id, i.rules, i.graph) for i in target.enrich_items()}
        target.enrich_enqueue([k for i in source.enrich_items() if (k := (i.memory_id, i.rules, i.graph)) not in there], stamp)

