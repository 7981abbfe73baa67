"""The write path below the facade: vectors, the write transaction, and where new memories go for the graph.

An add runs as named stages, each timed (:class:`~knotwork.services.stages.StageTimes`):

    validate  the facade checks every field (``Knotwork.add`` / ``add_many``)
    embed     each new text's chunks, in one model run for the batch      (:meth:`WritePath.vectors`)
    decide    consolidation against the vectors just computed             (``services.hygiene``)
    store     memories, vectors, similar lists and the queue row, one transaction, committed
              (:meth:`WritePath.insert`)
    enrich    later, from the queue (``services.enrichment``); inside ``store`` with ``Settings.enrich = "inline"``

The services above take this object and the few reads they need, not the ``Knotwork`` facade.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.domain import ids, rules
from knotwork.domain.models import Memory
from knotwork.domain.temporal import now, parse_time
from knotwork.errors import InvalidInput
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


def _optional_time(value: Any, field: str) -> datetime | None:
    return None if value is None else parse_time(value, field)


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
        expires_at = rules.expiry(_optional_time(fields.get("expires_at"), "expires_at"), fields.get("ttl"), stamp)
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

    def purge(self, memory_ids: Sequence[str]) -> int:
        """Delete memories with their versions, vectors, links, similar slots and the facts that rested on
        them alone; call inside :meth:`transaction`. Returns how many were deleted."""
        if not memory_ids:
            return 0
        ids = list(memory_ids)
        self.similar.refresh(removed=ids)
        # the facts that came only from a memory go with it (see KnowledgeService.forget)
        return sum(self.knowledge.forget(mid, lambda mid=mid: self.store.delete_memory(mid)) for mid in ids)
