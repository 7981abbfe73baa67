"""Knotwork: the one public API every adapter calls.

The service validates input (``domain.rules``), decides, and asks the store to
persist. It returns typed values and raises ``knotwork.errors``; it never
formats text for a person (that is ``render``'s job).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.config import Settings
from knotwork.domain import ids, rules, temporal
from knotwork.domain.models import ALL_WORKSPACES, FIRST_PRUNE, Graph, Hit, Memory, MemoryFilter, Page, Related, Relationship
from knotwork.domain.temporal import now, optional_time
from knotwork.errors import Conflict, InvalidInput, NotFound
from knotwork.search.recipes import Recipe, get_recipe
from knotwork.services import backlog, exiting, lookup, shortids, spellings, versions
from knotwork.services.links import MetaRelation
from knotwork.services.parts import Parts, built
from knotwork.service_graph import GraphApi
from knotwork.services.records import (
    BackupReport, GraphRecords, ImportReport, imported_graph, imported_link, imported_memory, mentions_of,
)
from knotwork.services.foreground import Foreground
from knotwork.services.stages import StageTimes
from knotwork.store.protocol import Store

if TYPE_CHECKING:  # the engines below load on first use (services/parts.py): `knotwork get` needs none of them
    from knotwork.embed.protocol import Embedder
    from knotwork.search.pipeline import Trace
    from knotwork.services.hygiene import CheckReport, DuplicateGroup, MergeReport, PruneReport, PruneWorker
    from knotwork.services.recall import Recall
    from knotwork.services.status import Stats, Status

MODEL_WARMUP_TEXT = "what did we decide about the release?"  # a run allocates the model's buffers; any text will do


class Knotwork(Parts, GraphApi):
    """Long-term memory over one store. Open one with :func:`knotwork.open`.

    >>> import knotwork
    >>> with knotwork.open(":memory:") as mem:
    ...     m = mem.add("We deploy with blue-green releases", workspace="shop", category="decision")
    ...     [h.memory.id == m.id for h in mem.search("deploy releases", workspace="shop")]
    [True]
    """

    def __init__(self, store: Store, settings: Settings | None = None, embedder: Embedder | None = None) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.embedder = embedder
        self._parts_lock = threading.RLock()
        self.last_trace: Trace | None = None  # what the latest search of this object did, stage by stage
        self.write_times = StageTimes()
        self.foreground = Foreground()  # searches and adds in flight: a worker thread of this process waits for them
        exiting.opened(self)
        counters = store.counters()
        if FIRST_PRUNE not in counters:
            self.hygiene.upgrade()
        if spellings.due(counters):  # a store written before short names joined their entities
            spellings.join(store, lambda: self.knowledge)

    # -- lifecycle --------------------------------------------------------
    def close(self, wait: bool = True) -> None:
        """Close the store; with background enrichment, first wait (``enrich_close_wait`` seconds at most; not at
        all with ``wait=False``) for the memories this object added to be read into the graph: what is left goes
        to a worker process that outlives this one (services/drainer.py). A store still open when the interpreter
        exits is closed so, without waiting (services/exiting.py)."""
        exiting.closed(self)
        try:
            # Trigger: closing. Why: a client may kill this process while it waits for the graph below (an MCP
            # client gives a stdio server about 2 s), and a killed SQLite process leaves its write-ahead log
            # (up to 4 MB) beside the database. Outcome: the log is merged and emptied first; a kill from
            # here on leaves only what the wait itself writes.
            self.store.settle()
            if (enrichment := built(self, "enrichment")) is not None:
                enrichment.close(wait)
        finally:
            if (pipeline := built(self, "_pipeline")) is not None:
                pipeline.close()
            if (index := built(self, "index")) is not None:
                index.close()
            self.store.close()

    def __enter__(self) -> Knotwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ids --------------------------------------------------------------
    def resolve(self, ref: str, workspaces: Collection[str] | None = None) -> str:
        """The full id of the memory a full or short id (unique prefix or suffix, 8+ chars) names; with
        ``workspaces`` (names, '' for the global scope), among the memories of those workspaces only."""
        return lookup.resolve(self.store, ref, workspaces)

    # -- writing ----------------------------------------------------------
    def _draft(self, content: Any, **fields: Any) -> Memory:
        return self.writes.draft(content, **fields)

    def add(
        self,
        content: str,
        *,
        workspace: str | None = None,
        agent_id: str | None = None,
        category: str | None = None,
        tags: Mapping[str, Any] | list[str] | None = None,
        artifacts: list[str] | None = None,
        evidence: list[str] | None = None,
        importance: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        valid_at: str | datetime | None = None,
        thread: str | None = None,
        entities: list[Mapping[str, Any]] | None = None,
        facts: list[Mapping[str, Any]] | None = None,
        expires_at: str | datetime | None = None,
        ttl: int | str | None = None,
        consolidate: bool = True,
        force: bool = False,
    ) -> Memory:
        """Store a memory and return it, with ``decision`` set to what happened.

        The same content in the same workspace and partition is stored once:
        the existing memory comes back with ``duplicate=True`` (decision
        ``NOOP``). With ``consolidate`` (the default), a near-duplicate of a
        current memory of the same workspace and partition is decided offline
        (:mod:`knotwork.hygiene.consolidate`): ``NOOP`` (nothing new: the
        stored memory comes back), ``UPDATE`` (it says more: the stored memory
        takes the new text, the old one kept in its history) or ``SUPERSEDE``
        (a value changed: the new memory is stored and retires the old one at
        its ``valid_at``); ``touched`` names the stored memory. Text the
        store/ignore rules (:mod:`knotwork.hygiene.instructions`) say is not
        worth keeping is not stored: decision ``IGNORE`` with the ``reason``
        (``force=True`` stores it anyway). A ``snapshot`` with a ``key`` tag
        replaces that key's earlier snapshots of the same day.

        ``expires_at`` (or ``ttl``: seconds, or ``30m``, ``12h``, ``7d``)
        makes the memory leave every read once passed; ``prune`` purges it.

        ``thread`` names the conversation, session or thread the memory belongs
        to (a chat session id, a ticket, a pull request; kept as
        ``metadata.thread``): search scores a thread's memories together, and
        ``list``/``search`` take ``thread=`` to read one conversation.

        ``entities`` (``[{name, type?, summary?}]``) and ``facts``
        (``[{subject, predicate, object, valid_at?, invalid_at?}]``) go into
        the knowledge graph along with what the offline rules find in the
        content; a fact's ``valid_at`` defaults to the memory's.
        """
        with self.write_times.stage("validate"):
            graph = self.knowledge.caller_input(entities, facts)
            draft = self._draft(
                content,
                workspace=workspace,
                agent_id=agent_id,
                category=category,
                tags=tags,
                artifacts=artifacts,
                evidence=evidence,
                importance=importance,
                metadata=metadata,
                valid_at=valid_at,
                thread=thread,
                expires_at=expires_at,
                ttl=ttl,
            )
        graph.supersede = consolidate
        return self.hygiene.add(draft, graph, consolidate=consolidate, force=force)

    def add_many(
        self, items: Iterable[Mapping[str, Any]], *, consolidate: bool = True, force: bool = False
    ) -> list[Memory]:
        """Store many memories in one transaction: all are validated first, then all land or none.

        Each item is decided as :meth:`add` decides (store/ignore rules, exact duplicates, consolidation
        against the store and the items before it, snapshots of a key); one answer per item, in order,
        with its ``decision``. A bulk load of data that must go in as it is passes ``consolidate=False``
        (exact duplicates are still stored once) and ``force=True`` (no store/ignore rules).
        """
        with self.write_times.stage("validate"):
            drafts, graphs = self.writes.drafts(items)
        for graph in graphs:
            graph.supersede = consolidate  # a raw load (consolidate=False) retires no memory through its facts
        return self.hygiene.add_many(drafts, graphs, consolidate=consolidate, force=force)

    def _vectors(self, texts: list[str]) -> list[list[bytes]]:
        return self.writes.vectors(texts)

    def wait_for_extraction(self, timeout: float | None = None) -> bool:
        """Wait until every memory added so far (by any process of the store) is read into the knowledge graph,
        helping the worker meanwhile; False when ``timeout`` seconds passed first. With ``Settings.enrich =
        "inline"`` an add has done so already. The LLM's queue (``extraction_status``) is not waited for."""
        if timeout is not None and (not isinstance(timeout, int | float) or timeout < 0):
            raise InvalidInput("timeout", f"must be a number of seconds >= 0, got {timeout!r}")
        return self.enrichment.wait(timeout)

    def start_enrichment_worker(self, server: bool = False) -> None:
        """Start the enrichment worker now, so that memories left queued by earlier processes are read into the
        graph without waiting for an add: a daemon thread, or (``Settings.enrich = "process"``, or
        ``"background"`` with ``server=True``, as ``serve`` and ``mcp`` start it) the host of the store's one worker
        process (services/drainer.py). Idempotent; :meth:`close` stops it."""
        if self.enrichment.background:
            self.enrichment.start(server)

    def enrichment_backlog(self, within: Collection[str] | None = None) -> dict[str, int]:
        """Memories waiting to be read into the knowledge graph: {pending, running, failed} (``within``: of those
        workspaces, '' for the global scope). Read from the store: no engine is built to count them."""
        return backlog.counts(self.store, within)

    def graph_backlog(self, within: Collection[str] | None = None) -> int:
        """How many memories are stored but not yet read into the knowledge graph (queued or being read in);
        ``within``: of those workspaces ('' for the global scope). A graph answer is as of the others."""
        counts = self.enrichment_backlog(within)
        return counts["pending"] + counts["running"]

    def retry_enrichment(self) -> int:
        """Give the memories whose enrichment failed a fresh start; how many."""
        n = self.enrichment.retry_failed()
        if n and self.enrichment.background:
            self.enrichment.notify()
        return n

    def write_stats(self) -> dict[str, dict[str, float]]:
        """Seconds and runs of each stage of this object's writes (validate, embed, decide, store, enrich;
        enrich: the graph work of the worker, or of the add when inline)."""
        worker = built(self, "enrichment")  # none built: this object has read nothing into the graph
        enrich = worker.stats() if worker is not None else {"seconds": 0.0, "memories": 0}
        out = self.write_times.snapshot()
        out["enrich"] = {"seconds": round(out["enrich"]["seconds"] + enrich["seconds"], 6),
                         "runs": out["enrich"]["runs"] + enrich["memories"]}
        return out

    def update(self, id: str, **changes: Any) -> Memory:
        """Change fields of a memory; the earlier version is kept (see :meth:`history`).

        Fields: content, category, tags (replaced whole), artifacts, evidence,
        importance, metadata, valid_at, invalid_at, thread (kept as
        ``metadata.thread``), ``expires_at`` or ``ttl`` (counted from now; ``expires_at=None`` keeps the memory
        for good). A change that changes nothing creates no version. ``invalid_at`` before ``valid_at`` is refused.
        """
        return self._change(id, changes, ordered=True)

    def _change(self, id: str, changes: Mapping[str, Any], *, ordered: bool, vectors: list[bytes] | None = None) -> Memory:
        """:meth:`update`; ``ordered=False`` lets a supersedes link retire a memory from before its
        ``valid_at``; ``vectors``: the new content's chunk vectors, already computed (``WritePath.change``)."""
        versions.check(changes)
        return self.writes.change(self.get(id), changes, ordered=ordered, vectors=vectors)

    def delete(self, id: str) -> Memory:
        """Forget a memory and its past versions; returns what was deleted."""
        memory = self.get(id)
        with self._similar.transaction():
            if not self._purge([memory.id]):
                raise NotFound("memory", id)
        return memory

    def _purge(self, memory_ids: list[str]) -> int:
        """See :meth:`WritePath.purge` (inside ``self.writes.transaction()``)."""
        return self.writes.purge(memory_ids)

    # -- reading ----------------------------------------------------------
    def get(self, id: str) -> Memory:
        """The memory a full or short id names."""
        return lookup.current(self.store, id)

    def history(self, id: str) -> list[Memory]:
        """Every version of a memory, oldest first, the current one last."""
        memory = self.get(id)
        return [*self.store.memory_versions(memory.id), memory]

    def _filter(
        self, workspace: Any, agent_id: Any, category: Any, tags: Any, since: Any, until: Any, include_invalid: bool,
        thread: Any = None,
    ) -> MemoryFilter:
        return MemoryFilter(
            workspace=rules.scope(workspace),
            agent_id=rules.partition(agent_id),
            category=rules.category(category),
            tags=rules.tag_filter(tags),
            since=optional_time(since, "since"),
            until=optional_time(until, "until"),
            include_invalid=bool(include_invalid),
            thread=rules.thread(thread, "thread") if thread is not None else None,
        )

    def list(
        self,
        *,
        workspace: str | None = None,
        agent_id: str | None = None,
        category: str | None = None,
        tags: Mapping[str, Any] | list[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        limit: int = 50,
        cursor: str | None = None,
        include_invalid: bool = True,
        thread: str | None = None,
    ) -> Page:
        """Memories newest first. ``workspace`` W lists W and global; ``"*"`` lists all.

        ``agent_id`` None lists the shared partition only (memories without an
        agent_id); a name lists that partition; ``"*"`` every partition.
        Snapshots are listed only with ``category="snapshot"``. ``thread``
        lists one conversation (the memories added with that ``thread``).

        Pass the returned page's ``next_cursor`` as ``cursor`` for the next page.
        """
        flt = self._filter(workspace, agent_id, category, tags, since, until, include_invalid, thread)
        size = rules.limit(limit)
        before = ids.normalize_ref(cursor, "cursor") if cursor else None
        if before is not None and len(before) != ids.ID_LENGTH:
            raise InvalidInput("cursor", "must be the next_cursor value of an earlier page")
        rows = self.store.list_memories(flt, size + 1, before, at=now())
        more = len(rows) > size
        rows = rows[:size]
        return Page(rows, rows[-1].id if more else None)

    def search(
        self,
        query: str,
        *,
        workspace: str | None = None,
        limit: int = 10,
        agent_id: str | None = None,
        category: str | None = None,
        tags: Mapping[str, Any] | list[str] | None = None,
        tags_mode: str = "all",
        artifact: str | None = None,
        created_after: str | datetime | None = None,
        created_before: str | datetime | None = None,
        valid_after: str | datetime | None = None,
        valid_before: str | datetime | None = None,
        include_invalid: bool = False,
        recipe: str | Recipe | None = None,
        center: str | None = None,
        explain: bool = False,
        now: str | datetime | None = None,
        thread: str | None = None,
    ) -> list[Hit]:
        """Memories that answer ``query``, best first. ``workspace`` W searches W and global;
        ``agent_id`` as for :meth:`list` (None: the shared partition only; ``"*"``: every one).

        ``recipe`` names the sources, fusion and rerankers (default
        ``memory_hybrid``: BM25 and vectors, each on an absolute scale,
        in a weighted mean, so ``hit.score`` is a relevance in [0, 1] that means the
        same in every query); ``center`` is a memory
        the graph source and the node-distance reranker measure from;
        ``explain=True`` fills ``hit.explain`` with every stage's score.
        Memories whose ``invalid_at`` has passed are left out unless
        ``include_invalid``. ``now`` is when the question is asked (default:
        the current time): validity, freshness and times named in the query
        ("two weeks ago", "last Tuesday", "in March") count from it.
        ``thread`` searches one conversation only.
        """
        text = rules.query(query)
        if tags_mode not in ("all", "any"):
            raise InvalidInput("tags_mode", f"must be 'all' or 'any', got {tags_mode!r}")
        flt = replace(
            self._filter(workspace, agent_id, category, tags, created_after, created_before, include_invalid, thread),
            tags_mode=tags_mode,
            artifact=rules.str_list(artifact, "artifact")[0] if artifact else None,
            valid_since=optional_time(valid_after, "valid_after"),
            valid_until=optional_time(valid_before, "valid_before"),
        )
        chosen = get_recipe(recipe)
        center_id = self.get(center).id if center else None
        at = optional_time(now, "now") or temporal.now()
        from knotwork.search.floor import above_floor, answered
        from knotwork.search.pipeline import Query
        from knotwork.search.successors import successors_first

        q = Query(text, flt, rules.limit(limit), at, center_id)
        with self.foreground.held():  # a worker thread of this process waits meanwhile
            cands, memories, trace = self._pipeline.run(chosen, q)
        cands = above_floor(chosen, cands, self.settings.search_floor, center_id)  # nothing matches: say so
        judge = self.settings.search_answerable and bool(self.embedder)  # fitted with vectors: none, no judging
        cands, trace.answerable = answered(chosen, cands, memories, text, flt.workspace, self._pipeline.lexical, judge,
                                           explain, center_id, trace.tops, q.at, self._baselines)
        cands = successors_first(cands, memories, q.at)  # a retired memory below the one that retired it
        self.last_trace = trace
        if "novelty" in {st.name for st in chosen.rerankers}:
            self.store.record_surfacing(flt.workspace if flt.workspace != ALL_WORKSPACES else None, [c.id for c in cands], q.at)
        return [Hit(memories[c.id], c.score, dict(c.scores) if explain else None) for c in cands]

    def reembed(self, on_progress: Callable[[int], object] | None = None, batch: int = 256) -> int:
        """Rebuild every vector with the configured embedder; returns how many memories were embedded."""
        if not self.embedder:
            raise InvalidInput("embedder", "no embedder is configured (KNOTWORK_EMBEDDER=none)")
        self.store.clear_vectors()
        done = self._embed_missing(on_progress, batch)
        self.store.set_meta("embedding_model", self.embedder.model_id)
        return done

    def _embed_missing(self, on_progress: Callable[[int], object] | None = None, batch: int = 256) -> int:
        """Embed the memories that have no vector; how many there were (``WritePath.embed_missing``)."""
        return self.writes.embed_missing(on_progress, batch)

    # -- relationships ----------------------------------------------------
    def link(self, from_id: str, to_id: str, type: str, metadata: Mapping[str, Any] | None = None) -> Relationship:
        """Link two memories: ``from_id --type--> to_id``. Idempotent.

        Types: relates_to, parent_of, child_of, references, supersedes,
        implements, example_of, contradicts, fixes. ``A supersedes B`` retires
        B from A's ``valid_at``. Memories of two different workspaces cannot
        be linked; a workspace memory may link to a global one.
        """
        return self._links.link(from_id, to_id, type, metadata)

    def relationship(self, ref: str) -> Relationship:
        """The relationship a full or short id names."""
        rel = self.store.get_link(self._links.resolve(ref))
        if rel is None:
            raise NotFound("relationship", ref)
        return rel

    def list_links(self, workspace: str | None = ALL_WORKSPACES) -> list[Relationship]:
        """Every relationship of ``workspace`` (``*``: of every workspace)."""
        return self.store.list_links(workspace)

    def unlink(self, relationship_id: str) -> Relationship:
        """Remove a relationship (full id or unique 8+ char prefix/suffix); returns it."""
        return self._links.unlink(relationship_id)

    def relationships(self, id: str, direction: str = "both", types: list[str] | None = None) -> list[Relationship]:
        """The links of one memory: outgoing, incoming or both."""
        return self._links.relationships(id, direction, types)

    def related(self, id: str, types: list[str] | None = None, depth: int = 1, direction: str = "both") -> list[Related]:
        """Memories reachable within ``depth`` (1-5) links, BFS order, each once at its shortest depth.

        Each comes in brief (:class:`~knotwork.domain.models.MemoryBrief`: id, content, workspace, category, importance,
        valid times) with the link that reached it; ``get`` reads a whole memory.
        """
        return self._links.related(id, types, depth, direction)

    def graph(self, id: str, max_depth: int = 2, max_nodes: int = 50) -> Graph:
        """Nodes (depth 1-3, at most 1-100 nodes; memories in brief) and edges around a memory, ready to draw."""
        return self._links.graph(id, max_depth, max_nodes)

    def relations(self, ids: list[str]) -> dict[str, list[MetaRelation]]:
        """Each memory's metadata seen as edges (artifacts, tags, evidence, category, scope, app),
        and its ``similar`` memories: the 5 nearest by vector, with score and preview (with an embedder)."""
        rules.id_count(ids, "ids")
        memories = self._links.current(ids)
        own = self._links.relations(ids, memories)
        similar = self._similar.relations(list(own), {m.id: m for m in memories})
        return {mid: rels + similar.get(mid, []) for mid, rels in own.items()}

    # -- presentation ----------------------------------------------------
    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """``{full id: shortest unique prefix or suffix (8+ chars)}``: ids to show that resolve back."""
        return shortids.short_ids(self.store, memory_ids)

    # -- moving data ------------------------------------------------------
    def export(self, within: Collection[str] | None = None) -> Iterator[dict[str, Any]]:
        """Every memory as a JSON-ready dict, oldest first, with its past versions under ``history`` and the
        entities it mentions under ``mentions``; then the knowledge graph (records named by their ``record``
        key: entities, facts, communities…; ``services.records``). ``within`` (workspace names, '' for the
        global scope): the memories and graph of those workspaces only, with the links whose other end is one
        of them too."""
        from knotwork.services import transfer

        yield from transfer.memory_records(self.store, within)
        yield from transfer.graph_records(self.store, within)

    def import_records(
        self, records: Iterable[Mapping[str, Any]], on_progress: Callable[[int], object] | None = None,
        on_stage: Callable[[str, int | None], object] | None = None,
    ) -> ImportReport:
        """Load :meth:`export` records, keeping ids, times and versions.

        Every record is checked before anything is written; then all land in
        one transaction. A record whose id or content is already stored is
        skipped. The graph the records carry comes back with the memories
        added (``transfer.restore_graph``); an export without one (older) has
        its added memories queued for the graph, as an add queues them: the
        enrichment worker reads them in after the import answers
        (``Settings.enrich = "inline"``: the import reads them in itself). ``on_stage(name, total)`` is told as
        each step starts (``embedded``, ``stored``, ``graph``, then ``committed`` once all is written), and
        ``on_progress(n)`` then counts within the step; without it, ``on_progress`` counts records stored.
        """
        from knotwork.services import transfer
        from knotwork.services.records import embed_in_steps

        stage = on_stage or (lambda name, total: None)
        from knotwork.services.knowledge import GraphInput

        parsed: list[tuple[Memory, list[Memory]]] = []
        links: list[Relationship] = []
        graph = GraphRecords()
        for index, record in enumerate(records):
            try:
                if isinstance(record, Mapping) and "record" in record:
                    imported_graph(record, graph)
                    continue
                parsed.append(imported_memory(record, self.settings.max_content_bytes))
                links += [imported_link(link) for link in record.get("links") or []]
                mentions = mentions_of(record)
                if mentions:
                    graph.mentions[parsed[-1][0].id] = mentions
            except InvalidInput as exc:
                where = f"record {index + 1}" if exc.field == "record" else f"record {index + 1}: {exc.field}"
                raise InvalidInput(where, exc.problem) from None
            except (KeyError, TypeError, AttributeError) as exc:
                raise InvalidInput(f"record {index + 1}", f"malformed link ({exc})") from None
        added = skipped = 0
        if self.embedder:
            stage("embedded", len(parsed))
        texts = [m.content for m, _ in parsed]
        vectors = embed_in_steps(self._vectors, texts, on_progress if on_stage else None) if self.embedder else []
        embedded = []
        carried = graph.seen or bool(graph.mentions)
        inline = not carried and not self.enrichment.background
        if inline:
            stage("graph", None)
        inputs = self.knowledge.prepare([m for m, _ in parsed], [GraphInput() for _ in parsed]) if inline else []
        fresh: list[int] = []
        stage("stored", len(parsed))
        with self._similar.transaction():
            for index, (memory, past) in enumerate(parsed):
                try:
                    stored = self.store.import_memory(memory, past)
                except Conflict:
                    stored = False
                if stored and vectors:
                    self.store.put_vectors(memory.id, vectors[index])
                    embedded.append((memory.id, memory.workspace, vectors[index]))
                added += stored
                skipped += not stored
                if stored:
                    fresh.append(index)
                if on_progress:
                    on_progress(1)
            stage("graph", None)
            for rel in links:  # a link whose ends are not both stored cannot dangle: skip it
                if len(self.store.get_memories([rel.from_id, rel.to_id])) == 2:
                    self.store.insert_link(rel)
            if carried:
                sources = {m for f in graph.facts for m in f.sources}
                embed = self.knowledge.embed_names if self.knowledge.embedder else None
                model = self.knowledge.embedder.model_id if self.knowledge.embedder else None
                transfer.restore_graph(self.store, graph, {parsed[i][0].id: parsed[i][0].workspace for i in fresh},
                                       set(self.store.get_memories(list(sources))), embed, model, self.knowledge.single_valued)
            elif fresh and inline:
                self.knowledge.ingest([parsed[i][0] for i in fresh], [inputs[i] for i in fresh])
            elif fresh:
                # Trigger: an export without a graph (older). Why: parsing every memory inside the import's
                # transaction held the write lock for as long as an add of each would. Outcome: the memories
                # are queued like an add's and the background worker reads them in after the import commits.
                self.enrichment.enqueue([parsed[i][0] for i in fresh], [GraphInput() for _ in fresh])
            self._similar.refresh(embedded)
        if carried and fresh:  # an export from a store written before short names joined their entities
            spellings.join(self.store, lambda: self.knowledge)
        stage("committed", None)
        if fresh and not carried and not inline:
            self.enrichment.notify()
        return ImportReport(added, skipped)

    # -- ambient recall and status (services/recall.py, services/status.py) --------
    def recall(
        self,
        context: str = "startup",
        *,
        workspace: str | None = None,
        query: str | None = None,
        budget_tokens: int = 1500,
        sections: list[str] | None = None,
        within: Collection[str] | None = None,
    ) -> Recall:
        """The context to hand an agent now, within ``budget_tokens`` exact o200k tokens.

        Sections (each optional): clock, directives, facts (the ``ambient``
        recipe; without ``query``, the workspace's focus), graph (current
        knowledge-graph facts that match it), episodes, entities (off by
        default), health. Retired memories and retired facts never appear. See
        :mod:`knotwork.services.recall`. ``within`` (workspace names, '' for the global scope) limits the
        health line's counts to those workspaces (what a caller limited to them may know of the store).
        """
        from knotwork.services import recall

        with self.foreground.held():
            return recall.recall(
                self, context, workspace=workspace, query=query, budget_tokens=budget_tokens, sections=sections, within=within
            )

    def warm(self, server: bool = False) -> None:
        """Load now what the first recall or search would otherwise wait for: the token encoding,
        a local embedding model (and one run of it), the extraction pipeline (not in a ``server`` whose graph is
        read in by a worker process: the parser is that process's), the lexical index and the vector index."""
        from knotwork import tokens

        tokens.warm()
        load = getattr(self.embedder, "load", None)
        if load is not None:  # a local model; a remote one has nothing to load
            load()
            self.embedder.embed([MODEL_WARMUP_TEXT])  # writes' sessions and the query's may differ: run both
            self.embedder.embed_query(MODEL_WARMUP_TEXT)
        if not (server and self.enrichment.background and self.enrichment.in_process(server)):
            self.knowledge.warm()
        self.lexical.sync()
        if self.index is not None:
            self.index.sync()

    def status(self, within: Collection[str] | None = None) -> Status:
        """Version, store path, schema version, counts, embedder, and this process's recall p50/p95;
        ``within`` (workspace names, '' for the global scope) counts those workspaces only."""
        from knotwork.services import status

        return status.status(self, within)

    def stats(self) -> Stats:
        """Counts by workspace, partition, tag and category; date range; links; vectors; database size;
        embedder; and health: duplicates detected and merged, superseded, expired, snapshots and the last
        prune, ignored adds, orphaned links and vectors (0 when healthy)."""
        from knotwork.services import status

        return status.stats(self)

    # -- hygiene (services/hygiene.py) ------------------------------------------
    def find_duplicates(
        self, threshold: float = 0.95, *, workspace: str | None = ALL_WORKSPACES, agent_id: str | None = "*", limit: int = 50
    ) -> list[DuplicateGroup]:
        """Groups of current memories of one workspace and partition whose vectors are at least ``threshold``
        (0.5-1) similar, most similar first; :meth:`merge` folds one group. Needs an embedder."""
        return self.hygiene.find_duplicates(threshold, workspace, agent_id, limit)

    def merge(self, ids: list[str]) -> MergeReport:
        """Fold duplicates into the first of ``ids``: it supersedes each other one, which is retired (still
        readable with its history and links), never deleted. All must share one workspace and partition."""
        rules.id_count(ids, "ids")
        return self.hygiene.merge(ids)

    def backup(self, target: str | Path, progress: Callable[[int, int], None] | None = None) -> BackupReport:
        """A consistent copy of the store in the new file ``target``, taken online (others go on reading and
        writing); :func:`knotwork.restore` copies it back. ``progress(done, total)`` gets pages copied."""
        if not isinstance(target, str | Path) or not str(target).strip():
            raise InvalidInput("target", "name the file to write the backup to")
        path = Path(target).expanduser()
        self.store.backup(path, progress)
        return BackupReport(str(path), path.stat().st_size, self.store.count_memories(), self.store.schema_version())

    def check(self, repair: bool = False) -> CheckReport:
        """Check the store: SQLite's quick check, the full-text index against the memories, memories without
        vectors, orphaned rows. ``repair=True`` rebuilds a full-text index that disagrees and embeds memories
        that have no vector; ``knotwork serve`` does so at start-up."""
        return self.hygiene.check(repair)

    def prune(self) -> PruneReport:
        """Purge expired memories (with their vectors, links and the facts that rested on them alone) and keep
        only the latest snapshot of each day per (workspace, partition, key)."""
        return self.hygiene.prune()

    def start_prune_worker(self) -> PruneWorker:
        """A daemon thread running :meth:`prune` now and every ``prune_interval`` seconds; ``.stop()`` ends it."""
        from knotwork.services.hygiene import PruneWorker

        return PruneWorker(self.prune, self.settings.prune_interval).start()

    def prune_snapshots(self) -> int:
        """Keep only the latest snapshot of each day per (workspace, partition, key); returns how many went.
        Idempotent; it ran once when the store was upgraded."""
        return self.hygiene.prune_snapshots()
