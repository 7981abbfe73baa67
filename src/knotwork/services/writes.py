"""The write path below the facade: vectors, the write transaction, and where new memories go for the graph.

An add runs as named stages, each timed (:class:`~knotwork.services.stages.StageTimes`):

    validate  the facade checks every field (``Knotwork.add`` / ``add_many``)
    embed     each new text's chunks, in one model run for the batch      (:meth:`WritePath.vectors`)
    decide    consolidation against the vectors just computed: a plan    (``Hygiene.plan``, ``services.addplan``)
    store     the plan applied in one transaction, committed: memories, vectors, similar lists, the queue
              row, versions, supersedes links and the graph following them  (:meth:`WritePath.apply`)
    enrich    later, from the queue (``services.enrichment``); inside ``store`` with ``Settings.enrich = "inline"``

The services above take this object and the few reads they need, not the ``Knotwork`` facade; nothing
here calls the facade either (a memory is read with ``services.lookup``, a link written with
``services.links.link``, a version with ``services.versions``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from knotwork.domain import ids, rules
from knotwork.domain.models import Memory
from knotwork.domain.temporal import now, optional_time, parse_time, to_text
from knotwork.errors import InvalidInput
from knotwork.services import links, lookup, versions
from knotwork.services.addplan import AddPlan
from knotwork.services.enrichment import Enrichment
from knotwork.services.knowledge import GraphInput, KnowledgeService
from knotwork.services.similar import SimilarLists
from knotwork.services.stages import StageTimes

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.embed.protocol import Embedder
    from knotwork.search.vector_index import VectorIndex
    from knotwork.store.protocol import Store


ADD_FIELDS = frozenset(
    {"content", "workspace", "agent_id", "category", "tags", "artifacts", "evidence", "importance", "metadata", "valid_at",
     "expires_at", "ttl", "thread"}
)
GRAPH_FIELDS = frozenset({"entities", "facts"})


def _later_value(reason: str | None) -> str:
    """``value changed: A -> B`` (the stored memory's value, then the new one's) told the other way round, for a
    new memory whose value held before the stored one's."""
    text = (reason or "").removeprefix("value changed: ")
    before, arrow, after = text.partition(" -> ")
    return f"{after} then {before}" if arrow else text


class WritePath:
    """What every write of one store goes through."""

    def __init__(
        self, store: Store, settings: Settings, embedder: Embedder | None, index: VectorIndex | None,
        knowledge: KnowledgeService, enrichment: Enrichment, times: StageTimes,
    ) -> None:
        self.store = store
        self.max_content_bytes = settings.max_content_bytes
        self.embedder = embedder
        self.index = index
        self.knowledge = knowledge
        self.enrichment = enrichment
        self.times = times
        self.similar = SimilarLists(store, index)

    # -- validate ------------------------------------------------------------------------------------
    def draft(self, content: Any, **fields: Any) -> Memory:
        """A new memory from one add's fields, every one checked (raises InvalidInput naming the field)."""
        text = rules.content(content, self.max_content_bytes)
        workspace = rules.workspace(fields.get("workspace"))
        agent_id = rules.agent_id(fields.get("agent_id"))
        stamp = now()
        valid_at = fields.get("valid_at")
        valid = stamp if valid_at is None else parse_time(valid_at, "valid_at")
        expires_at = rules.expiry(optional_time(fields.get("expires_at"), "expires_at"), fields.get("ttl"), stamp)
        if expires_at is not None and expires_at <= stamp:
            raise InvalidInput("expires_at", f"{expires_at.isoformat()} has passed; a memory must expire in the future")
        return Memory(
            id=ids.new_id(),
            content=text,
            workspace=workspace,
            agent_id=agent_id,
            category=rules.category(fields.get("category")),
            tags=rules.tags(fields.get("tags")),
            artifacts=rules.str_list(fields.get("artifacts"), "artifacts"),
            evidence=rules.str_list(fields.get("evidence"), "evidence"),
            importance=rules.importance(fields.get("importance")),
            metadata=rules.with_thread(rules.metadata(fields.get("metadata")), fields.get("thread")),
            created_at=stamp,
            updated_at=stamp,
            valid_at=valid,
            invalid_at=None,
            content_hash=rules.content_hash(text),
            expires_at=expires_at,
        )

    def drafts(self, items: Iterable[Mapping[str, Any]]) -> tuple[list[Memory], list[GraphInput]]:
        """Every item of an ``add_many`` checked (an error names ``items[i].field``) before anything is written."""
        drafts: list[Memory] = []
        graphs: list[GraphInput] = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidInput(f"items[{index}]", f"expected a mapping, got {type(item).__name__}")
            unknown = set(item) - ADD_FIELDS - GRAPH_FIELDS
            if unknown:
                raise InvalidInput(f"items[{index}]", f"unknown field(s) {', '.join(sorted(unknown))}")
            if "content" not in item:
                raise InvalidInput(f"items[{index}].content", "is missing")
            try:
                graphs.append(self.knowledge.caller_input(item.get("entities"), item.get("facts")))
                drafts.append(self.draft(**{k: v for k, v in item.items() if k not in GRAPH_FIELDS}))
            except InvalidInput as exc:
                raise InvalidInput(f"items[{index}].{exc.field}", exc.problem) from None
        return drafts, graphs

    # -- store -----------------------------------------------------------------------------------
    def transaction(self):  # noqa: ANN201 - a context manager
        """The store's write transaction with the vector index caught up (see ``SimilarLists.transaction``)."""
        return self.similar.transaction()

    def vectors(self, texts: list[str]) -> list[list[bytes]]:
        """Per text, the float32 blobs of its chunks (long texts are split so no tail is lost), in one model run."""
        assert self.embedder is not None
        pieces = [self.embedder.chunks(t) for t in texts]
        flat = [p for chunks in pieces for p in chunks]
        matrix = self.embedder.embed(flat).astype("<f4", copy=False)
        out, row = [], 0
        for chunks in pieces:
            out.append([matrix[row + i].tobytes() for i in range(len(chunks))])
            row += len(chunks)
        return out

    def insert(
        self, drafts: list[Memory], graphs: list[GraphInput] | None = None, vectors: dict[str, list[bytes]] | None = None
    ) -> list[Memory]:
        """Store drafts (an existing same content comes back as a duplicate); ``vectors``: already embedded.

        The new memories are read into the knowledge graph by the enrichment worker, from the queue this
        transaction writes (``Settings.enrich = "inline"``: here, before the commit).
        """
        graphs = graphs or [GraphInput() for _ in drafts]
        inline = not self.enrichment.background
        if inline:
            # Extraction is CPU work on the text alone: done before the write lock is taken.
            with self.times.stage("enrich"):
                graphs = self.knowledge.prepare(drafts, graphs)
        if vectors is None and self.embedder:
            # Embed outside the write transaction (it is the slow part) and only what is new.
            fresh: dict[tuple, Memory] = {}
            for d in drafts:
                key = (d.workspace, d.agent_id, d.content_hash)
                if key not in fresh and not self.store.find_memory_by_hash(*key):
                    fresh[key] = d
            with self.times.stage("embed"):
                vectors = dict(zip([d.id for d in fresh.values()], self.vectors([d.content for d in fresh.values()])))
        vectors = vectors or {}
        with self.similar.transaction():
            out = self.store.insert_memories(drafts)
            embedded = [(m.id, m.workspace, vectors[m.id]) for m in out if not m.duplicate and m.id in vectors]
            for mid, _, blobs in embedded:
                self.store.put_vectors(mid, blobs)
            self.similar.refresh(embedded)
            if inline:
                with self.times.stage("enrich"):
                    self.knowledge.ingest(out, graphs)
            else:
                self.enrichment.enqueue(out, graphs)
        if not inline:
            self.enrichment.notify()
        return out

    def change(
        self, old: Memory, changes: Mapping[str, Any], *, ordered: bool, vectors: list[bytes] | None = None
    ) -> Memory:
        """Write ``old``'s next version (``versions.revised``; no version when nothing changes). New content is
        embedded (``vectors``: its chunk vectors, already computed: consolidation's UPDATE has them) and its
        similar lists refreshed; other changes (such as a supersedes link retiring a memory inside the link's
        transaction) leave the index be."""
        new = versions.revised(old, changes, ordered=ordered, max_content_bytes=self.max_content_bytes)
        if new is None:
            return old
        blobs = None
        if self.embedder and new.content != old.content:
            blobs = vectors if vectors is not None else self.vectors([new.content])[0]
        with self.similar.transaction() if blobs is not None else self.store.transaction():
            stored = self.store.replace_memory(old, new)
            if blobs is not None:
                self.store.put_vectors(new.id, blobs)
                self.similar.refresh([(new.id, new.workspace, blobs)])
        return stored

    def embed_missing(self, on_progress: Any = None, batch: int = 256) -> int:
        """Embed the memories that have no vector; how many there were."""
        assert self.embedder is not None
        done = 0
        while True:
            todo = self.store.memories_without_vectors(batch)
            if not todo:
                break
            blobs = self.vectors([m.content for m in todo])
            with self.similar.transaction():
                for m, vecs in zip(todo, blobs):
                    self.store.put_vectors(m.id, vecs)
                self.similar.refresh([(m.id, m.workspace, vecs) for m, vecs in zip(todo, blobs)])
            done += len(todo)
            if on_progress:
                on_progress(len(todo))
        return done

    # -- apply an add's plan -------------------------------------------------------------------
    def apply(self, plan: AddPlan) -> list[Memory]:
        """Write an add's plan (``services.addplan``) in one transaction (all lands or none) and answer with one
        memory per item, ``decision`` set.

        The items to insert go first, together (with the vectors the plan carries: nothing is embedded under
        the lock; the graph's queue rows or, inline, the graph itself); then each other step in order: a version, a link, a snapshot's replacement. A
        step reads the memory it touches here, under the write lock: an UPDATE merges the stored memory's
        tags and lists as they are now, and a target stored by this transaction (``#<index>``) is read as
        written. The counters of a step go with its writes; the plan's ``counts`` follow the commit.
        """
        drafts, steps = plan.drafts, plan.steps
        out: list[Memory | None] = [None] * len(drafts)
        placed: dict[int, Memory] = {}  # the items this transaction stored, as stored
        if written := plan.written():
            inserted = plan.inserted()
            with self.times.stage("store"), self.transaction():
                vectors = {drafts[i].id: list(plan.vectors[i]) for i in inserted if i in plan.vectors}
                placed.update(zip(inserted, self.insert(
                    [drafts[i] for i in inserted], [plan.graphs[i] for i in inserted], vectors if self.embedder else None,
                )))
                for i in written:
                    out[i] = self._apply(plan, i, placed)
        for i, step in enumerate(steps):
            if step.kind == "IGNORE":
                out[i] = drafts[i].decided("IGNORE", None, step.reason)
            elif step.kind == "REPEAT":
                earlier = out[int((step.target or "#")[1:])]
                assert earlier is not None
                out[i] = replace(earlier, duplicate=True, decision="NOOP", touched=earlier.touched or earlier.id,
                                 reason=step.reason)
        for name, n in plan.counts:
            self.store.bump_counter(name, n)
        return [m for m in out if m is not None]

    def _apply(self, plan: AddPlan, i: int, placed: dict[int, Memory]) -> Memory:
        """One written step, inside the add's transaction; the memory the add answers with for item ``i``."""
        step, draft, store = plan.steps[i], plan.drafts[i], self.store

        def ref(name: str) -> str:  # a memory id, or ``#<index>``: an item this transaction stored
            return placed[int(name[1:])].id if name.startswith("#") else name

        if step.kind == "STORE":
            return placed[i]
        if step.kind == "SNAPSHOT":
            return self._snapshot(draft, plan.graphs[i], step.key or "")
        target = ref(step.target or "")
        if step.kind == "NOOP":
            store.bump_counter("duplicates_detected")
            return lookup.current(store, target).decided("NOOP", target, step.reason)
        if step.kind == "UPDATE":
            store.bump_counter("duplicates_detected")
            store.bump_counter("duplicates_merged")
            old = lookup.current(store, target)
            updated = self.change(
                old,
                {
                    "content": draft.content,
                    "tags": {**old.tags, **draft.tags},
                    "artifacts": list(dict.fromkeys(old.artifacts + draft.artifacts)),
                    "evidence": list(dict.fromkeys(old.evidence + draft.evidence)),
                    "importance": max(old.importance, draft.importance),
                },
                ordered=True,
                vectors=list(plan.vectors[i]) if i in plan.vectors else None,
            )
            return updated.decided("UPDATE", old.id, step.reason)
        assert step.kind == "SUPERSEDE" and step.link is not None
        new, old = placed[i], lookup.current(store, target)
        store.bump_counter("superseded_on_add")
        links.link(store, ref(step.link.source), ref(step.link.target), "supersedes", dict(step.link.metadata))
        also = ""
        for more in step.also:  # the draft's value came between two others: each further link, told too
            links.link(store, ref(more.source), ref(more.target), "supersedes", dict(more.metadata))
            why = str(more.metadata.get("consolidation") or "")
            if ref(more.source) == new.id:  # the draft retires an older value too
                also += f"; retires {ref(more.target)} ({why})"
            else:  # a later value retires the draft
                other = lookup.current(store, ref(more.source))
                also += (f"; stored retired: {other.id} states a later value ({_later_value(why)}) from "
                         f"{to_text(other.valid_at)[:16]}")
        self._graph_follows(new.id)
        if step.link.arrived_late:
            told = _later_value(step.reason)
            return lookup.current(store, new.id).decided(
                "ADD", old.id,
                f"stored retired: {old.id} states a later value ({told}) from {to_text(old.valid_at)[:16]}{also}"
            )
        if also:  # the draft itself arrived retired by the later one
            return lookup.current(store, new.id).decided("SUPERSEDE", old.id, f"{step.reason}{also}")
        return new.decided("SUPERSEDE", old.id, step.reason)

    def _snapshot(self, draft: Memory, graph: GraphInput, key: str) -> Memory:
        """Keep the latest snapshot of ``key`` and the draft's day, the day's stored ones read here, under the
        write lock (see ``services.addplan``): an earlier one kept adds this one and purges it; a later one
        kept makes this one a NOOP."""
        day = draft.valid_at.date()
        rows = self.store.snapshot_rows(draft.workspace, draft.agent_id, key)
        same_day = [r for r in rows if r[4].date() == day]
        later = [r for r in same_day if r[4] > draft.valid_at]
        if later:  # a later snapshot of that day is already kept: this older one adds nothing
            return lookup.current(self.store, later[-1][0]).decided("NOOP", later[-1][0], f"a later snapshot of {day} is kept")
        with self.transaction():
            new = self.insert([draft], [graph])[0]
            self.purge([r[0] for r in same_day])
        if same_day:
            self.store.bump_counter("snapshots_replaced", len(same_day))
            return new.decided("ADD", same_day[-1][0], f"replaced {len(same_day)} earlier snapshot(s) of {day}")
        return new

    def _graph_follows(self, memory_id: str) -> None:
        """The graph's facts follow a supersession when both memories are already read in (inline enrichment);
        else the one read in later does it (``KnowledgeService.follow_superseded``)."""
        knowledge = self.knowledge
        if changed := knowledge.follow_superseded(memory_id, now()):
            knowledge.summarize(changed)
            self.store.kg_mark_dirty(changed, lookup.current(self.store, memory_id).workspace)

    def purge(self, memory_ids: Sequence[str]) -> int:
        """Delete memories with their versions, vectors, links, similar slots and the facts that rested on
        them alone; call inside :meth:`transaction`. Returns how many were deleted."""
        if not memory_ids:
            return 0
        ids = list(memory_ids)
        self.similar.refresh(removed=ids)
        # the facts that came only from a memory go with it (see KnowledgeService.forget)
        return sum(self.knowledge.forget(mid, lambda mid=mid: self.store.delete_memory(mid)) for mid in ids)
