"""The temporal knowledge graph: memories (episodes) in, entities and facts out.

Three sources feed it, merged per memory: what the caller passes (``entities=``, ``facts=``), the offline rules
of ``knowledge.extract``, and optionally an LLM through the durable queue (``knowledge.llm``). Names are resolved
to stored entities (``knowledge.resolve``); facts are placed in time (``knowledge.facts``) — a new value of a
single-valued predicate retires the old one, a late older fact is stored already retired — and follow the
memories' own supersessions (``follow_superseded``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from knotwork.domain import ids, rules
from knotwork.domain.models import ALL_WORKSPACES, Memory
from knotwork.domain.temporal import now, parse_time
from knotwork.errors import AmbiguousId, InvalidInput, NotFound
from knotwork.knowledge import extract as rules_extract
from knotwork.knowledge import freshness, validate
from knotwork.knowledge.cues import resolve_when
from knotwork.knowledge.facts import over_at, plan
from knotwork.knowledge.models import (
    ClearReport,
    Community,
    Entity,
    EntityDraft,
    Episode,
    Extraction,
    Fact,
    FactDraft,
    FactHit,
    Found,
    NodeHit,
)
from knotwork.knowledge.resolve import Resolver, best_canonical, compatible, grams, normalize, same_names
from knotwork.search.fusion import FUSIONS
from knotwork.services.changes import ValueChanges
from knotwork.services import replaced, trust
from knotwork.services.communities import CommunityService
from knotwork.services.entity_vectors import EntityVectors
from knotwork.services.extraction import ExtractionService
from knotwork.services.people import PersonNames
from knotwork.search.lexical import query_terms

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.embed.protocol import Embedder

SUMMARY_CHARS = 280
SUMMARY_FACTS = 12
CENTER_DEPTH = 3
NAME_CACHE = 4096  # name vectors kept for names seen again soon (e.g. in another workspace)
#: Kinds of names that are spelled exactly (code, paths, URLs, tickets, tags, versions, known
#: technologies): the normalised spelling resolves them, and a vector of ``src/a/b.py`` or
#: ``PR-12`` says nothing a spelling does not, so they are not embedded.
SPELLED_TYPES = frozenset({"identifier", "function", "file", "url", "reference", "tag", "version", "technology"})



def _bounded(text: str, limit: int = SUMMARY_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;")
    return cut + "…"


def fact_text(subject: str, predicate: str, obj: str) -> str:
    return f"{subject} {predicate.replace('_', ' ')} {obj}"


@dataclass
class GraphInput:
    """What one memory brings to the graph before it is stored."""

    entities: list[EntityDraft] = field(default_factory=list)  # from the caller
    facts: list[FactDraft] = field(default_factory=list)       # from the caller
    extracted: Extraction = field(default_factory=Extraction)  # from the rules
    vectors: dict[str, np.ndarray] | None = None                # name vectors, by normalised name
    #: Fuzzy matches found before the transaction, by normalised name (None: none then), and the
    #: id that bounds them: at write time only entities created after it need a fuzzy look.
    fuzzy: dict[str, str | None] = field(default_factory=dict)
    known: dict[str, str] = field(default_factory=dict)  # entity of each name known by its exact spelling then
    fuzzy_before: str | None = None
    names: dict[str, tuple[str, str | None, str | None]] | None = None  # every name with the rules', once known
    supersede: bool = True  # may its facts' value changes supersede older memories (False: a raw load)


def _names(gi: GraphInput, use_rules: bool) -> dict[str, tuple[str, str | None, str | None]]:
    """Every name a memory brings, by normalised name: (name, type, caller summary); the caller's word wins."""
    if use_rules and gi.names is not None:
        return gi.names
    names: dict[str, tuple[str, str | None, str | None]] = {}

    def note(name: str, type_: str | None, summary: str | None = None) -> None:
        key = normalize(name)
        old = names.get(key)
        if old is None:
            names[key] = (name, type_, summary)
        elif (old[1] is None and type_) or (summary and not old[2]):
            names[key] = (old[0], old[1] or type_, old[2] or summary)

    sources = [(gi.entities, gi.facts)] + ([(gi.extracted.entities, gi.extracted.facts)] if use_rules else [])
    for entities, facts in sources:
        for e in entities:
            note(e.name, e.type, e.summary)
        for f in facts:
            note(f.subject, f.subject_type)
            note(f.object, f.object_type)
            if f.replaces:
                note(f.replaces, f.object_type)
    if use_rules:
        gi.names = names
    return names


# Cosine from which an entity's name vector matches a query. MiniLM puts unrelated
# short names at 0.35-0.48 ("Caroline" ~ "Maria" 0.48, "Hoka" ~ "Valkey" 0.35) and
# related ones at 0.55-1.0 ("running shoes" ~ "Nike Pegasus" 0.55, "German capital" ~
# "Berlin" 0.63): below the floor, a query about a name never stored found facts about
# whatever name was least unlike it.
NAME_MATCH_FLOOR = 0.5


class KnowledgeService:
    """The graph half of :class:`knotwork.Knotwork`; every public method there delegates here."""

    def __init__(self, store: Any, settings: Settings, embedder: Embedder | None) -> None:
        self.store = store
        self.settings = settings
        self.embedder = embedder if settings.kg_embed_entities else None
        self.vectors = EntityVectors(store, embedder.dim) if self.embedder else None
        self._name_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.communities = CommunityService(store)
        self.extraction = ExtractionService(store, settings, self.ingest_memory)
        self.changes = ValueChanges(store, settings)
        self.resolver = Resolver(store, (lambda ws: self.vectors.of(ws, exact=True)) if self.vectors else None)
        self.people = PersonNames(store)
        # (new memory id, old memory id, reason): called when a memory's facts retire every fact another
        # memory stated (the service links the two with ``supersedes``); None: nothing is linked
        self.on_value_changed: Callable[[str, str, str], None] | None = None
        exact = [p for p in settings.kg_single_valued if not p.endswith("*")]
        self._single = frozenset(exact)
        self._single_prefixes = tuple(p[:-1] for p in settings.kg_single_valued if p.endswith("*"))

    def single_valued(self, predicate: str) -> bool:
        return predicate in self._single or predicate.startswith(self._single_prefixes or ("\0",))

    # -- ingest ---------------------------------------------------------------
    def caller_input(self, entities: Any, facts: Any, field_prefix: str = "") -> GraphInput:
        """Validate what a caller passed with a memory (raises InvalidInput before anything is written)."""
        return GraphInput(
            validate.entities(entities, f"{field_prefix}entities"), validate.facts(facts, f"{field_prefix}facts")
        )

    def warm(self) -> None:
        """Load the offline extraction's English pipeline now (the first write would wait ~1 s for it)."""
        if self.settings.kg_extract == "rules":
            rules_extract.extract_many(["We moved the billing service to PostgreSQL on Monday."])

    def prepare(self, drafts: Sequence[Memory], inputs: Sequence[GraphInput]) -> list[GraphInput]:
        """Run the offline rules and embed names the store does not know yet (outside any transaction)."""
        if self.settings.kg_extract == "rules":
            for gi, extracted in zip(inputs, trust.extract(self.store, drafts, self.settings)):
                # Trigger: a candidate fact under the store floor. Why: it is not stored, so its ends ("Team",
                # "the checkout service") would be entities no fact and no named thing holds. Outcome: only the
                # stored facts' ends and the mentions the mention model kept become entities.
                gi.extracted = replace(extracted, facts=trust.stored(extracted.facts, self.settings))
        for gi in inputs:
            gi.names = None
        # Resolution by spelling before the write lock is taken: exact names, then trigrams. Only names
        # still unmatched and not spelled-exact kinds are embedded, in one run for the batch.
        marker = ids.new_id()
        wanted: dict[tuple[str, str], tuple[str, str | None, str | None]] = {}
        for draft, gi in zip(drafts, inputs):
            for norm, value in _names(gi, True).items():
                wanted.setdefault((draft.workspace or "", norm), value)
        matched: dict[tuple[str, str], str | None] = {}
        exact: dict[tuple[str, str], str] = {}
        todo = []
        for ws in {w for w, _ in wanted}:
            norms = [n for w, n in wanted if w == ws]
            known = self.store.kg_lookup_norms(ws or None, norms)
            for n in norms:
                if n in known:
                    exact[(ws, n)] = known[n]
                    continue
                name, type_, _ = wanted[(ws, n)]
                matched[(ws, n)] = found = self.resolver.fuzzy(ws or None, name, type_)
                if found is None and self.embedder and type_ not in SPELLED_TYPES:
                    todo.append((ws, n))
        by_key = dict(zip(todo, self._embed_names([wanted[k] for k in todo])))
        for draft, gi in zip(drafts, inputs):
            ws = draft.workspace or ""
            names = _names(gi, True)
            gi.fuzzy = {n: matched[(ws, n)] for n in names if (ws, n) in matched}
            gi.known = {n: exact[(ws, n)] for n in names if (ws, n) in exact}
            gi.fuzzy_before = marker
            if self.embedder:
                gi.vectors = {n: by_key[(ws, n)] for n in names if (ws, n) in by_key}
        return list(inputs)

    def embed_names(self, names: Sequence[tuple[str, str | None, str | None]]) -> list[np.ndarray]:
        """A name vector per (name, type, caller's note), made as ingest makes one (for an import's entities)."""
        return self._embed_names(names)

    def _embed_names(self, names: Sequence[tuple[str, str | None, str | None]]) -> list[np.ndarray]:
        """A vector per name (+ summary); each distinct text is embedded once, recent ones come from a cache."""
        if not names or not self.embedder:
            return []
        texts = [name + (f": {summary}" if summary else "") for name, _, summary in names]
        missing = list(dict.fromkeys(t for t in texts if t not in self._name_cache))
        if missing:
            matrix = self.embedder.embed(missing)
            for i, text in enumerate(missing):
                self._name_cache[text] = matrix[i].astype("<f4", copy=False)
        out = [self._name_cache[t] for t in texts]
        for t in texts:
            self._name_cache.move_to_end(t)
        while len(self._name_cache) > NAME_CACHE:
            self._name_cache.popitem(last=False)
        return out

    def _name_vectors(self, names: dict[str, tuple[str, str | None, str | None]], workspace: str | None) -> dict[str, np.ndarray]:
        """Vectors of the names (by norm) that no entity of the workspace has yet."""
        known = self.store.kg_lookup_norms(workspace, list(names)) if self.embedder and names else {}
        todo = [n for n in names if n not in known and names[n][1] not in SPELLED_TYPES]
        return dict(zip(todo, self._embed_names([names[n] for n in todo])))

    def ingest(self, memories: Sequence[Memory], inputs: Sequence[GraphInput]) -> None:
        """Write the graph of freshly stored memories (call inside the memories' transaction)."""
        at = now()
        self.extraction.enqueue(memories)
        touched: dict[str, set[str]] = {}  # by workspace: entities whose facts changed in this batch
        for memory, gi in zip(memories, inputs):
            use_rules = not memory.duplicate
            if not gi.entities and not gi.facts and not (use_rules and (gi.extracted.entities or gi.extracted.facts)):
                continue
            self._ingest_one(memory, gi, use_rules, at, touched=touched.setdefault(memory.workspace or "", set()))
        # Summaries once per batch: an entity many memories of the batch touch is summarised once.
        for ws, entity_ids in touched.items():
            if entity_ids:
                self.summarize(entity_ids, at)
                self.store.kg_mark_dirty(entity_ids, ws or None)

    def _ingest_one(self, memory: Memory, gi: GraphInput, use_rules: bool, at: datetime, origin: str | None = None,
                    touched: set[str] | None = None) -> None:
        """One memory's entities, mentions and facts; ``touched`` collects the entities to summarise (else done here)."""
        ws = memory.workspace
        names = _names(gi, use_rules)
        rule_facts = gi.extracted.facts if use_rules else []  # at the store floor already (prepare)
        vectors = gi.vectors if gi.vectors is not None else self._name_vectors(names, ws)
        entity_of: dict[str, str] = {}
        changed: set[str] = set()  # full names first: "Bob" then finds the "Bob Martinez" of this memory
        for key, (name, type_, summary) in sorted(names.items(), key=lambda kv: -len(kv[1][0].split())):
            early = (gi.fuzzy[key], gi.fuzzy_before) if key in gi.fuzzy else None
            entity_of[key] = self._entity(ws, name, type_, summary, vectors.get(key), at, early, gi.known.get(key), changed)
        self.store.kg_add_mentions(memory.id, entity_of.values())
        caller_origin = origin or "caller"
        ended: list[str] = []
        rule_facts = self.changes.redirect(memory, rule_facts, entity_of)
        rule_facts += self.changes.held_by_one(memory, rule_facts, entity_of)
        for f, kind in [*((f, caller_origin) for f in gi.facts), *((f, origin or "rules") for f in rule_facts)]:
            changed |= self._fact(memory, f, kind, entity_of, at, ended)
        if ended and gi.supersede and self.on_value_changed is not None:
            self.changes.supersede_stated(memory, ended, self.on_value_changed)
        changed |= self.follow_superseded(memory.id, at) if gi.supersede else set()  # a raw load links nothing
        if touched is not None:
            touched |= changed
        elif changed:
            self.summarize(changed, at)
            self.store.kg_mark_dirty(changed, ws)

    def follow_superseded(self, memory_id: str, at: datetime) -> set[str]:
        """Retire what a consolidation ``supersedes`` link makes stale (ValueChanges.follow_superseded)."""
        for fact_id, invalid_at, by, _ in (found := self.changes.follow_superseded(memory_id)):
            self.store.kg_retire_fact(fact_id, invalid_at, at if invalid_at <= at else None, by)
        return {e for *_, ends in found for e in ends}

    def _entity(
        self, ws: str | None, name: str, type_: str | None, summary: str | None, vector: np.ndarray | None, at: datetime,
        early: tuple[str | None, str | None] | None = None, known: str | None = None, merged: set[str] | None = None,
    ) -> str:
        """The entity ``name`` resolves to, created if none. From ``prepare``: ``known``, the entity the exact name had
        then; ``early``, (fuzzy match, id bound). A person's names: ``services.people`` (merges go to ``merged``)."""
        norm = normalize(name)
        found = known if known and self.store.kg_entity_notes([known]) else self.store.kg_lookup_norms(ws, [norm]).get(norm)
        found, settled = self.people.resolve(ws, name, type_, found)
        matched_by_spelling = False
        if not settled and (found := self._same_name(ws, norm, type_)) is not None:
            matched_by_spelling = True  # "Postgres" where "PostgreSQL" is stored: its alias, one entity, one value
        elif not settled:
            if early is not None and early[0] is not None and self.store.kg_entity_notes([early[0]]):
                found = early[0]
            else:  # trigrams again, over every entity or only those created since prepare looked
                found = self.resolver.fuzzy(ws, name, type_, after=early[1] if early else None)
            found = found or self.resolver.by_vector(ws, name, type_, vector)
            matched_by_spelling = found is not None
        if found is not None:
            if matched_by_spelling:
                self.store.kg_add_alias(ws, norm, name, found)
            row = self.store.kg_entity_notes([found]).get(found) if type_ or summary else None
            if row:
                known_type, caller_note, _ = row
                changes: dict[str, Any] = {}
                if type_ and not known_type:
                    changes["type"] = type_
                if summary and summary != caller_note:
                    changes["note"] = summary
                    changes["summary"] = self._summary_text(summary, self._current_facts(found, at), found)
                self.store.kg_update_entity(found, at, **changes)
            return found
        entity = Entity(ids.new_id(), ws, name, type_, _bounded(summary or ""), at, at)
        self.store.kg_insert_entity(entity, norm, grams(norm), summary or "")
        if vector is not None:
            self.store.kg_put_entity_vector(entity.id, vector.tobytes())
        if (absorbed := self.people.absorb(ws, entity.id, name, type_, at)) and merged is not None:
            merged |= {entity.id, absorbed}
        return entity.id

    def _same_name(self, ws: str | None, norm: str, type_: str | None) -> str | None:
        """The stored entity of a technology's other spelling (``resolve.same_names``), of a compatible type."""
        others = same_names(norm)
        hit = self.store.kg_lookup_norms(ws, list(others)) if others else {}
        for eid in (hit[o] for o in others if o in hit):
            row = self.store.kg_entity_notes([eid]).get(eid)
            if row is not None and compatible(row[0], type_):
                return eid
        return None

    def _fact(self, memory: Memory, f: FactDraft, origin: str, entity_of: dict[str, str], at: datetime,
              retired_out: list[str] | None = None) -> set[str]:
        """Store one fact with its consequences in time; returns the entities whose facts changed.
        ``retired_out`` collects the stored facts it retires (a value that changed)."""
        subject_id = entity_of[normalize(f.subject)]
        object_id = entity_of[normalize(f.object)]
        if subject_id == object_id:
            return set()
        said = replaced.start(self.store, memory, f, entity_of, resolve_when(f.when, memory.valid_at))  # "since March"
        valid_at = f.valid_at if f.valid_at is not None else said or (None if f.past else memory.valid_at)
        invalid_at = f.invalid_at if f.invalid_at is not None else (over_at(valid_at, memory.valid_at) if f.past else None)
        if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
            return set()
        replaces_id = entity_of.get(normalize(f.replaces)) if f.replaces else None
        stored = self.store.kg_facts_of(subject_id, f.predicate)
        new_id = ids.new_id()
        single = self.single_valued(f.predicate)
        turned = self.changes.turns(f.predicate, object_id, valid_at, stored) if not single else set()
        p = plan(new_id, object_id, valid_at, invalid_at, stored,
                 single_valued=single, replaces_object_id=replaces_id, turn=f.turn, turned=turned)
        if p.repeat_of:
            self.store.kg_add_fact_source(p.repeat_of, memory.id)
            self.store.kg_raise_confidence(p.repeat_of, f.confidence)  # one more source that says so
            if p.start_repeat is not None:
                self.store.kg_restart_fact(p.repeat_of, p.start_repeat)
            if p.end_repeat is None:
                return set()
            # "no longer uses Y" about a fact still open: it ends at this memory's time
            self.store.kg_retire_fact(p.repeat_of, p.end_repeat, at if p.end_repeat <= at else None, None)
            if retired_out is not None:
                retired_out.append(p.repeat_of)
            return {subject_id, object_id}
        names = self.store.kg_get_entities([subject_id, object_id])
        subject, obj = names[subject_id].name, names[object_id].name
        ended = p.invalid_at is not None and p.invalid_at <= at
        by_id = {s.id: s for s in stored}
        shown = self.settings.kg_min_confidence
        # what it retires: its own older values, or (a current value) those a sibling fact of the same memory, subject
        # and predicate just ended ("I no longer use Vim; switched to Helix")
        ended_here = [s for s in stored if not f.past and retired_out and s.id in retired_out]
        sure = trust.retiring(f.confidence, origin, [by_id[r.fact_id] for r in p.retire] + ended_here, shown)
        later = by_id.get(p.superseded_by) if p.superseded_by else None
        sure, raised = trust.late_arrival(sure, origin, later, shown)
        if raised is not None:  # the older value came late: the stored value it gave way to is as sure
            self.store.kg_raise_confidence(p.superseded_by, raised)
        fact = Fact(new_id, memory.workspace, subject_id, subject, f.predicate, object_id, obj,
                    fact_text(subject, f.predicate, obj), valid_at, p.invalid_at, at, at if ended else None,
                    p.superseded_by, origin, (memory.id,), sure)
        self.store.kg_insert_fact(fact)
        touched = {subject_id, object_id}
        for r in p.retire:
            self.store.kg_retire_fact(r.fact_id, r.invalid_at, at, r.superseded_by)
            touched.add(by_id[r.fact_id].object_id)
            if retired_out is not None:
                retired_out.append(r.fact_id)
        level, before = trust.preceding(sure, origin, [by_id[r.fact_id] for r in p.retire], stored, shown)
        for fact_id in before:  # the values it retires, down the chain, as sure as it
            self.store.kg_raise_confidence(fact_id, level)
        touched |= replaced.retire_elsewhere(self.store, memory.workspace, (subject_id, f.predicate, object_id),
                                             replaces_id, valid_at or memory.valid_at, new_id, at)  # A, every relation
        if p.restated and replaces_id and replaces_id != subject_id:
            old_name = self.store.kg_get_entities([replaces_id])[replaces_id].name
            self.store.kg_insert_fact(
                Fact(ids.new_id(), memory.workspace, subject_id, subject, f.predicate, replaces_id, old_name,
                     fact_text(subject, f.predicate, old_name), None, valid_at, at, at, new_id, origin, (memory.id,),
                     f.confidence)
            )
            touched.add(replaces_id)
        return touched

    # -- summaries ------------------------------------------------------------
    def _current_facts(self, entity_id: str, at: datetime) -> list[Fact]:
        return self.store.kg_facts_touching([entity_id], at=at, include_invalid=False, limit=SUMMARY_FACTS)

    @staticmethod
    def _summary_text(caller_note: str, facts: Sequence[Fact], entity_id: str) -> str:
        parts = []
        for f in facts:
            if f.subject_id == entity_id:
                parts.append(f"{f.predicate.replace('_', ' ')} {f.object}")
            else:
                parts.append(f"{f.subject} {f.predicate.replace('_', ' ')} it")
        text = " ".join(p for p in [caller_note.rstrip("."), "; ".join(parts)] if p)
        if caller_note and parts:
            text = f"{caller_note.rstrip('.')}. {'; '.join(parts)}"
        return _bounded(text)

    def summarize(self, entity_ids: set[str] | Sequence[str], at: datetime | None = None) -> None:
        """Rebuild the summaries of these entities from their current facts (bounded length)."""
        at = at or now()
        rows = self.store.kg_entity_notes(list(entity_ids))
        for eid, (_, caller_note, summary) in rows.items():
            text = self._summary_text(caller_note, self._current_facts(eid, at), eid)
            if text != summary:
                self.store.kg_update_entity(eid, at, summary=text)

    # -- references -------------------------------------------------------------
    def entity_id(self, ref: str, workspace: Any = None) -> str:
        """The entity a full or short id, or a name (exact or alias, in scope; else a technology's other spelling), names."""
        if not isinstance(ref, str) or not ref.strip():
            raise InvalidInput("entity", "is empty; give an entity id or name")
        text = ref.strip()
        scope = rules.scope(workspace)
        by_name = self.store.kg_entities_by_norm(scope, normalize(text))
        if len(by_name) == 1:
            return by_name[0]
        if len(by_name) > 1:  # the same name in the workspace and in global: the workspace's
            rows = self.store.kg_get_entities(by_name)
            own = [i for i in by_name if rows[i].workspace]
            if len(own) == 1:
                return own[0]
            raise AmbiguousId("entity", ref, by_name)
        if ids.could_be_id(text):
            found = self.store.kg_resolve_entity_ref(text.upper())
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise AmbiguousId("entity", ref, found)
        # a store written before the short names were resolved: "Postgres" finds the "PostgreSQL" entity
        other = list(dict.fromkeys(e for n in same_names(normalize(text)) for e in self.store.kg_entities_by_norm(scope, n)))
        if len(other) == 1:
            return other[0]
        raise NotFound("entity", ref, by=ids.looked_up_by(text))

    def entity_workspaces(self, ref: str) -> dict[str, list[str]]:
        """Workspace -> ids of the entities named ``ref`` (name or alias) in each workspace (global left out)."""
        found = self.store.kg_entities_by_norm(ALL_WORKSPACES, normalize(ref.strip())) if ref.strip() else []
        out: dict[str, list[str]] = {}
        for eid, e in self.store.kg_get_entities(found).items():
            if e.workspace:
                out.setdefault(e.workspace, []).append(eid)
        return out

    def entity(self, ref: str, workspace: Any = None) -> Entity:
        eid = self.entity_id(ref, workspace)
        return self.store.kg_get_entities([eid])[eid]

    def fact_id(self, ref: str) -> str:
        text = ids.normalize_ref(ref, "fact_id")
        found = self.store.kg_resolve_fact_ref(text)
        if not found:
            raise NotFound("fact", ref)
        if len(found) > 1:
            raise AmbiguousId("fact", ref, found)
        return found[0]

    def fact(self, ref: str) -> Fact:
        fid = self.fact_id(ref)
        return self.store.kg_get_facts([fid])[fid]

    def facts_of(
        self, ref: str, workspace: Any = None, as_of: Any = None, include_invalid: bool = False, min_confidence: Any = None
    ) -> list[Fact]:
        """Facts about one entity (as subject or object), newest first; only those shown (trust.shown)."""
        validate.confidence(min_confidence, "min_confidence", None)
        eid = self.entity_id(ref, workspace)
        at = parse_time(as_of, "as_of") if as_of is not None else now()
        found = self.store.kg_facts_touching([eid], workspace=rules.scope(workspace), at=at, include_invalid=include_invalid)
        return trust.shown(found, min_confidence, self.settings)

    # -- merging ----------------------------------------------------------------
    def merge_entities(self, a: str, b: str, workspace: Any = None) -> Entity:
        """Make ``a`` and ``b`` one entity: the most connected stays, the other becomes its alias."""
        ida, idb = self.entity_id(a, workspace), self.entity_id(b, workspace)
        if ida == idb:
            raise InvalidInput("b", "names the same entity as a")
        rows = self.store.kg_get_entities([ida, idb])
        if (rows[ida].workspace or "") != (rows[idb].workspace or ""):
            raise InvalidInput("b", "entities of different workspaces cannot be merged")
        keep = best_canonical([ida, idb], self.store.kg_degree([ida, idb]))
        self.join(keep, idb if keep == ida else ida, rows[keep].workspace)
        return self.store.kg_get_entities([keep])[keep]

    def join(self, keep: str, drop: str, workspace: str | None) -> None:
        """``drop`` becomes an alias of ``keep``: its facts and mentions move, facts that now say one thing fold."""
        with self.store.transaction():
            self.store.kg_merge_entities(keep, drop)
            self._fold_repeats(keep)
            self.summarize({keep}, now())
            self.store.kg_mark_dirty([keep, drop], workspace)

    def _fold_repeats(self, entity_id: str) -> None:
        """After a merge two facts may say the same thing: keep the older, give it the other's sources. A value
        retired by its own repeat ("PostgreSQL" by "Postgres" while they were two entities) was never a change:
        the older fact runs on to the repeat's end."""
        facts = sorted(self.store.kg_facts_touching([entity_id]), key=lambda f: f.id)
        kept: dict[tuple[str, str, str], Fact] = {}
        for f in facts:
            key = (f.subject_id, f.predicate, f.object_id)
            first = kept.get(key)
            restated = first is not None and first.superseded_by == f.id and first.invalid_at == f.valid_at
            if first is None or (first.invalid_at != f.invalid_at and not restated):
                kept.setdefault(key, f)
                continue
            if restated:
                self.store.kg_retire_fact(first.id, f.invalid_at, f.expired_at, f.superseded_by)
                for g in self.store.kg_facts_touching([f.subject_id]):
                    if g.superseded_by == f.id and g.id != first.id:  # what the repeat retired, the older one did
                        self.store.kg_retire_fact(g.id, g.invalid_at, g.expired_at, first.id)
                kept[key] = replace(first, invalid_at=f.invalid_at, expired_at=f.expired_at,
                                    superseded_by=f.superseded_by)
            self.store.kg_raise_confidence(first.id, f.confidence)
            for mid in f.sources:
                self.store.kg_add_fact_source(first.id, mid)
            self.store.kg_delete_fact(f.id)

    # -- search -------------------------------------------------------------------
    def _hops(self, center: str | None, workspace: Any, at: datetime) -> dict[str, int]:
        if not center:
            return {}
        start = self.entity_id(center, workspace)
        scope = rules.scope(workspace)
        hops = {start: 0}
        frontier = [start]
        for depth in range(1, CENTER_DEPTH + 1):
            nxt = []
            for f in self.store.kg_facts_touching(frontier, workspace=scope, at=at, include_invalid=False, limit=5000):
                for end in (f.subject_id, f.object_id):
                    if end not in hops:
                        hops[end] = depth
                        nxt.append(end)
            if not nxt:
                break
            frontier = nxt
        return hops

    def _vector_nodes(self, query: str, workspace: str | None, n: int) -> list[tuple[str, float]]:
        if not self.vectors or not self.embedder:
            return []
        known = self.vectors.of(workspace, exact=False)
        if not known or not known[0]:
            return []
        ids_, matrix = known
        sims = matrix @ self.embedder.embed_query(query)
        order = np.argsort(-sims)[:n]
        return [(ids_[i], float(sims[i])) for i in order if sims[i] >= NAME_MATCH_FLOOR]

    def search_nodes(self, query: str, center: str | None = None, limit: int = 10, workspace: Any = None) -> Found:
        """Entities matching ``query`` (BM25 over names and summaries, plus name vectors), near ``center`` first."""
        text = rules.query(query)
        size = rules.limit(limit, 100)
        scope = rules.scope(workspace)
        at = now()
        n = max(50, size * 3)
        ranked = {"bm25": self.store.kg_entities_fts(query_terms(text), scope, n)}
        ranked["vector"] = self._vector_nodes(text, scope, n)
        hops = self._hops(center, workspace, at)
        if hops:
            ranked["graph"] = sorted(((eid, 1.0 / (1 + h)) for eid, h in hops.items() if h > 0), key=lambda x: -x[1])[:n]
        fused = FUSIONS["rrf"]({k: v for k, v in ranked.items() if v}, k=60)
        top = fused[0].score if fused else 1.0
        scored = []
        for c in fused:
            score = c.score / top
            if hops:
                score = 0.5 * score + (0.5 / (1 + hops[c.id]) if c.id in hops else 0.0)
            scored.append((c.id, score))
        scored.sort(key=lambda x: -x[1])
        entities = self.store.kg_entity_rows([eid for eid, _ in scored[: size * 3]])
        self.communities.refresh(scope)
        community = self.communities.of(list(entities))
        out: list[NodeHit] = []
        seen: dict[str, int] = {}
        for eid, score in scored:
            row = entities.get(eid)
            if row is None:
                continue
            key = normalize(row[0].name)
            if key in seen:  # the same name in the workspace and in global: one hit, the workspace's
                i = seen[key]
                if row[0].workspace and not out[i].entity.workspace:
                    out[i] = NodeHit(row[0], out[i].score, hops.get(eid), community.get(eid))
                continue
            seen[key] = len(out)
            out.append(NodeHit(row[0], score, hops.get(eid), community.get(eid)))
            if len(out) >= size:
                break
        return Found(out, text)

    def search_facts(
        self,
        query: str,
        center: str | None = None,
        limit: int = 10,
        as_of: Any = None,
        include_invalid: bool = False,
        workspace: Any = None,
        min_confidence: Any = None,
    ) -> Found:
        """Facts matching ``query``: BM25 over fact text and over the entities they join, near ``center`` first.

        Only facts true now (or at ``as_of``) unless ``include_invalid``; when
        retired facts are included, a current fact ranks above a retired one
        of equal match. ``min_confidence`` (0-1): only facts at least that sure (default: :meth:`shown`).
        """
        validate.confidence(min_confidence, "min_confidence", None)
        text = rules.query(query)
        size = rules.limit(limit, 100)
        scope = rules.scope(workspace)
        current = now()
        at = parse_time(as_of, "as_of") if as_of is not None else current
        n = max(50, size * 3)
        terms = query_terms(text)
        ranked = {"bm25": self.store.kg_facts_fts(terms, scope, at, include_invalid, n)}
        seeds = [eid for eid, _ in self.store.kg_entities_fts(terms, scope, 10)]
        seeds += [eid for eid, _ in self._vector_nodes(text, scope, 5)]
        if seeds:
            around = self.store.kg_facts_touching(seeds, workspace=scope, at=at, include_invalid=include_invalid, limit=n)
            rank = {eid: i for i, eid in enumerate(dict.fromkeys(seeds))}
            around.sort(key=lambda f: min(rank.get(f.subject_id, 99), rank.get(f.object_id, 99)))
            ranked["entities"] = [(f.id, 1.0) for f in around]
        hops = self._hops(center, workspace, at)
        if hops:
            near = self.store.kg_facts_touching(list(hops), workspace=scope, at=at, include_invalid=include_invalid, limit=n)
            ranked["graph"] = sorted(
                ((f.id, 1.0 / (1 + min(hops.get(f.subject_id, 9), hops.get(f.object_id, 9)))) for f in near),
                key=lambda x: -x[1],
            )
        fused = FUSIONS["rrf"]({k: v for k, v in ranked.items() if v}, k=60)
        top = fused[0].score if fused else 1.0
        found = self.store.kg_get_facts([c.id for c in fused])
        facts = {f.id: f for f in trust.shown(list(found.values()), min_confidence, self.settings)}
        scored = []
        for c in fused:
            f = facts.get(c.id)
            if f is None:
                continue
            score = c.score / top
            distance = None
            if hops:
                distance = min(hops.get(f.subject_id, 99), hops.get(f.object_id, 99))
                score = 0.5 * score + (0.5 / (1 + distance) if distance < 99 else 0.0)
                distance = distance if distance < 99 else None
            if include_invalid and not f.current(at):
                score *= 0.5
            scored.append(FactHit(f, score, distance))
        scored.sort(key=lambda h: -h.score)
        return Found(scored[:size], text)

    # -- communities ------------------------------------------------------------------
    def list_communities(self, workspace: Any = None, entity: str | None = None, limit: int = 20) -> list[Community]:
        size = rules.limit(limit, 1000)
        members = [self.entity_id(entity, workspace)] if entity is not None else None
        return self.communities.list(rules.scope(workspace), members, size)

    def rebuild_communities(self, workspace: Any = None) -> list[Community]:
        scope = rules.scope(workspace)
        self.communities.rebuild(scope)
        return self.communities.list(scope, limit=1000)

    # -- episodes ---------------------------------------------------------------------
    def episodes(self, memories: Sequence[Memory]) -> list[Episode]:
        mids = [m.id for m in memories]
        mentions = self.store.kg_mentions(mids)
        names = self.store.kg_get_entities([e for es in mentions.values() for e in es])
        counts = self.store.kg_fact_counts(mids)
        queue = {q.memory_id: q.status for q in self.store.kg_queue(memory_ids=mids)} if mids else {}
        return [
            Episode(m.id, m.workspace, m.content, m.valid_at, m.created_at,
                    tuple(sorted(names[e].name for e in mentions.get(m.id, []) if e in names)),
                    counts.get(m.id, 0), queue.get(m.id))
            for m in memories
        ]

    def prefer_current(self, hits: Sequence[Any]) -> list[Any]:
        """Memory hits with the latest of each group about the same entities first (``knowledge.freshness``)."""
        mentions = {mid: set(es) for mid, es in self.store.kg_mentions([h.memory.id for h in hits]).items()}
        return freshness.prefer_current(hits, mentions, lambda text: set(query_terms(text, 400)), lambda h: h.memory.valid_at)

    def about(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """(name, summary) of the entities each memory mentions (the ``about`` meta-relation)."""
        mentions = self.store.kg_mentions(memory_ids)
        rows = self.store.kg_entity_names([e for es in mentions.values() for e in es])
        return {mid: [rows[e] for e in es if e in rows] for mid, es in mentions.items()}

    # -- deleting ---------------------------------------------------------------------
    def delete_fact(self, ref: str) -> Fact:
        """Delete a fact. Facts it had retired come back as they were before it arrived."""
        f = self.fact(ref)
        with self.store.transaction():
            self._drop_facts([f])
        return f

    def _drop_facts(self, facts: Sequence[Fact]) -> set[str]:
        """Delete facts, bring back what each had retired, refresh summaries; returns the entities touched."""
        at = now()
        changed: set[str] = set()
        for stale in facts:
            # read again: dropping an earlier fact of ``facts`` may have restored this one (its superseded_by is
            # then what the dropped fact's was), and what it retired must not point at a fact deleted meanwhile
            f = self.store.kg_get_facts([stale.id]).get(stale.id)
            if f is None:
                continue
            replaced = [g for g in self.store.kg_facts_of(f.subject_id, f.predicate) if g.superseded_by == f.id]
            self.store.kg_delete_fact(f.id)
            for g in replaced:
                restored_end = f.invalid_at
                self.store.kg_retire_fact(
                    g.id, restored_end, at if restored_end and restored_end <= at else None, f.superseded_by
                )
            changed |= {f.subject_id, f.object_id, *(g.object_id for g in replaced)}
            self.store.kg_mark_dirty(changed, f.workspace)
        self.summarize(changed, at)
        return changed

    def forget(self, memory_id: str, delete: Callable[[], bool]) -> bool:
        """Delete a memory with ``delete`` and the graph that rested on it alone (one transaction).

        A fact whose every source memory is gone is deleted, not kept as
        expired: deleting a memory forgets what it said, and a retired fact
        it had replaced is current again (as with :meth:`delete_fact`).
        Entities that no memory mentions and no fact joins any more go too.
        """
        with self.store.transaction():
            only = self.store.kg_get_facts(self.store.kg_facts_only_from(memory_id))
            mentioned = self.store.kg_mentions([memory_id]).get(memory_id, [])
            if not delete():
                return False
            # newest first, so a fact is dropped before the one it had replaced (if both came from here)
            changed = self._drop_facts(sorted(only.values(), key=lambda f: f.id, reverse=True))
            self.store.kg_delete_orphans([*mentioned, *changed])
        return True

    def clear_graph(self, workspace: Any, confirm: bool = True) -> ClearReport:
        """Delete every entity and fact of one workspace (None: global; ``*``: all). Memories stay."""
        if confirm is not True:
            raise InvalidInput("confirm", "must be true to delete the graph")
        scope = rules.scope(workspace)
        entities, facts = self.store.kg_clear(scope)
        return ClearReport(scope, entities, facts)

    # -- re-running extraction ------------------------------------------------------
    def ingest_memory(self, memory: Memory, extraction: Extraction, origin: str) -> None:
        """Add what an extractor (e.g. the LLM) found in an already stored memory."""
        gi = GraphInput(extraction.entities, extraction.facts)
        with self.store.transaction():
            self._ingest_one(memory, gi, False, now(), origin=origin)

    def rebuild_caller_graph(self, memory: Memory, gi: GraphInput) -> None:
        with self.store.transaction():
            self._ingest_one(memory, gi, False, now())

