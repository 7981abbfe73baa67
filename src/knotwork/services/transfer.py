"""Moving a whole store to another (SQLite to PostgreSQL and back): ``knotwork migrate``.

Everything goes through the store protocol, so any backend moves to any
other: memories with their ids, times and past versions, their vectors and
similar lists, links, the knowledge graph (entities with aliases, trigrams
and vectors, mentions, facts with their sources and retirements,
communities, the extraction queue) and the store's settings (which model
made the vectors). Entities keep their full-text terms, communities the time they were
computed, queue items their attempts. Memories go in batches, each batch one transaction on
the target, so an interrupted move keeps what it wrote: run again, it skips
what is already there (by id) and copies the rest, duplicating nothing. At
the end the counts of both stores are compared.

Not moved: surfacing counts (novelty's memory of what was shown recently;
they decay within days anyway) and the change logs in-process copies catch
up from (the target writes its own).

Export records (``memory_records``, ``graph_records``) carry the same
content as a stream of JSON-ready dicts, read a batch of rows at a time;
``restore_graph`` writes the graph they carry on import.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.domain.temporal import now
from knotwork.errors import Conflict
from knotwork.knowledge.facts import plan
from knotwork.knowledge.models import Fact
from knotwork.knowledge.resolve import grams, normalize
from knotwork.services import records
from knotwork.services.knowledge import SPELLED_TYPES
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
        terms = source.kg_entity_terms(part)
        with target.transaction():
            for eid, (entity, note) in rows.items():
                if eid in have:
                    continue
                norm = normalize(entity.name)
                target.kg_insert_entity(entity, norm, found.get(eid) or grams(norm), note, terms[eid])
                for alias in entity.aliases:  # the terms moved already hold the aliases' words
                    target.kg_add_alias(entity.workspace, normalize(alias), alias, eid, index=False)
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
        for workspace in source.kg_graph_workspaces():
            groups = [(c, members) for c, members in source.kg_communities(workspace or None) if (c.workspace or "") == workspace]
            if groups:  # each with the time it was computed
                times = source.kg_community_times([c.id for c, _ in groups])
                target.kg_replace_communities(workspace or None, [], times[groups[0][0].id])
                for group in groups:
                    target.kg_swap_communities(workspace or None, [], [group], times[group[0].id])
        for workspace in source.kg_dirty_workspaces():
            target.kg_mark_dirty(source.kg_dirty(workspace or None), workspace or None)
        for item in source.kg_queue(limit=10**9):
            target.kg_enqueue([item.memory_id], item.enqueued_at)
            target.kg_queue_set(item.memory_id, item.status, item.updated_at, item.last_error, item.available_at, item.attempts)
        # memories not read into the graph yet: queued in the target too (once, on a move run again)
        there = {(i.memory_id, i.rules, i.graph) for i in target.enrich_items()}
        target.enrich_enqueue([k for i in source.enrich_items() if (k := (i.memory_id, i.rules, i.graph)) not in there], now())



# -- export records (export, import) ------------------------------------------------------


def memory_records(store: Any, within: Collection[str] | None = None) -> Iterator[dict[str, Any]]:
    """Every memory as an export record, oldest first: its past versions under ``history``, its outgoing links
    (``within``: those whose other end is in those workspaces too) and the entities it mentions."""
    for memory in store.iter_memories():
        if within is not None and (memory.workspace or "") not in within:
            continue
        record = memory.to_dict()
        record["history"] = [old.to_dict() for old in store.memory_versions(memory.id)]
        links = store.links_touching([memory.id], "outgoing")
        if within is not None:
            ends = store.memory_briefs([r.to_id for r in links])
            links = [r for r in links if r.to_id in ends and (ends[r.to_id].workspace or "") in within]
        record["links"] = [r.to_dict() for r in links]
        mentions = store.kg_mentions([memory.id]).get(memory.id)
        if mentions:
            record["mentions"] = mentions
        yield record


def graph_records(store: Any, within: Collection[str] | None = None) -> Iterator[dict[str, Any]]:
    """The knowledge graph as export records, a batch of rows read at a time (``within``: of those
    workspaces only, '' for the global scope); the last record is ``{"record": "graph"}``."""

    def inside(workspace: str | None) -> bool:
        return within is None or (workspace or "") in within

    model = store.get_meta(MODEL_KEY)
    entity_ids = store.kg_entity_ids()
    for start in range(0, len(entity_ids), BATCH):
        part = entity_ids[start : start + BATCH]
        rows, terms, vectors = store.kg_entity_rows(part), store.kg_entity_terms(part), store.kg_vectors_of(part)
        for eid in part:
            if eid in rows and inside(rows[eid][0].workspace):
                entity, note = rows[eid]
                yield records.entity_record(entity, note, terms[eid], vectors.get(eid), model)
    fact_ids = store.kg_fact_ids()
    for start in range(0, len(fact_ids), BATCH):
        found = store.kg_get_facts(fact_ids[start : start + BATCH])
        for fid in fact_ids[start : start + BATCH]:
            if fid in found and inside(found[fid].workspace):
                yield records.fact_record(found[fid])
    for workspace in store.kg_graph_workspaces():
        if not inside(workspace):
            continue
        groups = [(c, m) for c, m in store.kg_communities(workspace or None) if (c.workspace or "") == workspace]
        times = store.kg_community_times([c.id for c, _ in groups])
        for c, members in groups:
            yield records.community_record(c, members, times[c.id])
    for workspace in store.kg_dirty_workspaces():
        if inside(workspace):
            yield {"record": "community_dirty", "workspace": workspace or None, "entities": store.kg_dirty(workspace or None)}
    if within is None:
        for item in store.kg_queue(limit=10**9):
            yield records.queue_record(item)
    else:  # the items of the memories exported, a batch of ids at a time
        memory_ids = [m.id for m in store.iter_memories() if inside(m.workspace)]
        for start in range(0, len(memory_ids), BATCH):
            for item in store.kg_queue(limit=10**9, memory_ids=memory_ids[start : start + BATCH]):
                yield records.queue_record(item)
    yield {"record": "graph"}


Embed = Callable[[Sequence[tuple[str, str | None, str | None]]], list[Any]]


def _place(store: Any, f: Fact, single_valued: Callable[[str], bool]) -> str:
    """Write ``f`` beside its subject's stored values of the predicate, as a new statement is written; the id of
    the fact it became (a stored one, when it repeats it)."""
    stored = store.kg_facts_of(f.subject_id, f.predicate)
    p = plan(f.id, f.object_id, f.valid_at, f.invalid_at, stored, single_valued=single_valued(f.predicate))
    if p.repeat_of:
        for mid in f.sources:
            store.kg_add_fact_source(p.repeat_of, mid)
        store.kg_raise_confidence(p.repeat_of, f.confidence)
        if p.start_repeat is not None:
            store.kg_restart_fact(p.repeat_of, p.start_repeat)
        return p.repeat_of
    at = now()
    expired = f.expired_at or (at if p.invalid_at is not None and p.invalid_at <= at else None)
    store.kg_insert_fact(replace(f, invalid_at=p.invalid_at, expired_at=expired, superseded_by=p.superseded_by))
    for r in p.retire:
        store.kg_retire_fact(r.fact_id, r.invalid_at, at, r.superseded_by)
    return f.id


def restore_graph(
    store: Any, graph: records.GraphRecords, added: Mapping[str, str | None], present: Collection[str],
    embed: Embed | None = None, model: str | None = None, single_valued: Callable[[str], bool] = lambda p: False,
) -> None:
    """Write the graph an import carries (inside its transaction), for the memories it ``added`` (id ->
    workspace).

    Everything stays in its workspace: a fact, mention, community member or entity id that would join
    two workspaces is left out. An entity the store holds already (same id) is kept as it is; one whose name the store knows in
    the workspace under another id is that entity. A fact is written when one of its source memories
    was added (a memory skipped as present has its graph already), with the sources the store holds
    (``present``); about an entity the store held, it is placed in time beside the stored values (a
    repeat adds its sources to the stored fact). A community is written whole when its members are in
    no other; else its members are recomputed on the next look. An entity vector is kept when ``model`` made it, else made with
    ``embed`` (as ingest makes one: name and the caller's note; none for spelled-exact kinds).
    """
    same: dict[str, str] = {}  # exported entity id -> the store's
    home = {g.entity.id: g.entity.workspace or "" for g in graph.entities}  # exported entity id -> its workspace
    have = store.kg_get_entities([g.entity.id for g in graph.entities])
    fresh: list[records.GraphEntity] = []
    for g in graph.entities:
        e = g.entity
        if e.id in have:
            if (have[e.id].workspace or "") == home[e.id]:
                same[e.id] = e.id
            continue
        norm = normalize(e.name)
        known = store.kg_lookup_norms(e.workspace, [norm]).get(norm)
        if known is not None:
            same[e.id] = known
            continue
        store.kg_insert_entity(e, norm, grams(norm), g.note, g.terms)
        for alias in e.aliases:
            store.kg_add_alias(e.workspace, normalize(alias), alias, e.id, index=g.terms is None)
        same[e.id] = e.id
        fresh.append(g)
    kept = [g for g in fresh if g.vector is not None and model and g.model == model]
    todo = [g for g in fresh if g not in kept and embed is not None and g.entity.type not in SPELLED_TYPES]
    for g in kept:
        store.kg_put_entity_vector(g.entity.id, g.vector)
    for g, vector in zip(todo, embed([(g.entity.name, g.entity.type, g.note or None) for g in todo]) if todo else []):
        store.kg_put_entity_vector(g.entity.id, vector.tobytes())
    for mid, eids in graph.mentions.items():
        if mid in added:
            store.kg_add_mentions(mid, [same[e] for e in eids if e in same and home[e] == (added[mid] or "")])
    wanted = [
        f for f in graph.facts
        if any(m in added for m in f.sources) and f.subject_id in same and f.object_id in same
        and home[f.subject_id] == home[f.object_id] == (f.workspace or "")
        and all((added[m] or "") == home[f.subject_id] for m in f.sources if m in added)
    ]
    there = set(store.kg_get_facts([f.id for f in wanted]))
    made = {g.entity.id for g in fresh}
    joined = {e for e in same if e not in made}  # entities the store held before
    written: list[Fact] = []
    became: dict[str, str] = {}  # an imported fact that repeats a stored one -> that one
    for f in wanted:
        subject, obj = same[f.subject_id], same[f.object_id]
        if f.id in there or subject == obj:
            continue
        sources = tuple(m for m in f.sources if m in present)
        if f.subject_id in joined:
            # Trigger: the subject was in the store before. Why: its stored values of this predicate and the
            # imported one must agree in time (one value at a time, a repeat adds a source). Outcome: the
            # imported fact goes in as a new statement would (knowledge.facts.plan).
            became[f.id] = _place(store, replace(f, subject_id=subject, object_id=obj, sources=sources), single_valued)
            if became[f.id] == f.id:
                written.append(f)
            continue
        store.kg_insert_fact(replace(f, subject_id=subject, object_id=obj, superseded_by=None, sources=sources))
        written.append(f)
    # A retired fact names its replacement once every fact is in (the replacement may be a stored one it repeats).
    now_held = store.kg_get_facts([f.id for f in written] + [became.get(f.superseded_by, f.superseded_by)
                                                             for f in written if f.superseded_by])
    for f in written:
        replacement = became.get(f.superseded_by, f.superseded_by) if f.superseded_by else None
        mine = now_held.get(f.id)
        if replacement in now_held and mine is not None and mine.superseded_by is None:
            store.kg_retire_fact(f.id, mine.invalid_at, mine.expired_at, replacement)
    placed = store.kg_community_of([same[e] for c in graph.communities for e in c.members if e in same])
    known_communities = set(store.kg_get_communities([c.community.id for c in graph.communities]))
    for c in graph.communities:
        members = [same[e] for e in c.members if e in same and home[e] == (c.community.workspace or "")]
        if c.community.id in known_communities:
            continue
        if len(members) == len(c.members) and not any(m in placed for m in members):
            store.kg_swap_communities(c.community.workspace, [], [(c.community, members)], c.created_at)
        else:
            store.kg_mark_dirty(members, c.community.workspace)
    for workspace, eids in graph.dirty:
        store.kg_mark_dirty([same[e] for e in eids if e in same and home[e] == (workspace or "")], workspace)
    for item in graph.queue:
        if item.memory_id in added:
            store.kg_enqueue([item.memory_id], item.enqueued_at)
            store.kg_queue_set(item.memory_id, item.status, item.updated_at, item.last_error, item.available_at, item.attempts)
