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

from collections.abc import Sequence
from typing import TYPE_CHECKING

from knotwork.domain.models import Memory
from knotwork.services.enrichment import Enrichment
from knotwork.services.knowledge import GraphInput, KnowledgeService
from knotwork.services.similar import SimilarLists
from knotwork.services.stages import StageTimes

if TYPE_CHECKING:
    from knotwork.embed.protocol import Embedder
    from knotwork.search.vector_index import VectorIndex
    from knotwork.store.protocol import Store


class WritePath:
    """What every write of one store goes through."""

    def __init__(
        self, store: Store, embedder: Embedder | None, index: VectorIndex | None, knowledge: KnowledgeService,
        enrichment: Enrichment, times: StageTimes,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.index = index
        self.knowledge = knowledge
        self.enrichment = enrichment
        self.times = times
        self.similar = SimilarLists(store, index)

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
