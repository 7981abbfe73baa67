"""The knowledge graph's part of the public API (:class:`knotwork.Knotwork` inherits it): entities, facts,
episodes, communities and the LLM extraction queue, each a call into the knowledge service with the checks and
foreground hold the facade owes every caller."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.domain import rules
from knotwork.domain.models import Hit
from knotwork.knowledge.models import (
    ClearReport, Community, Entity, Episode, ExtractionReport, ExtractionStatus, Fact, FactHit, NodeHit,
)

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.services.extraction import ExtractionWorker
    from knotwork.services.foreground import Foreground
    from knotwork.services.knowledge import KnowledgeService


class GraphApi:
    knowledge: KnowledgeService
    foreground: Foreground
    settings: Settings
    search: Any
    list: Any

    # -- knowledge graph ----------------------------------------------------
    def search_nodes(self, query: str, center: str | None = None, limit: int = 10, *, workspace: str | None = None) -> list[NodeHit]:
        """Entities matching ``query`` (names, aliases, summaries), nearest to ``center`` (an entity) first."""
        with self.foreground.held():
            return self.knowledge.search_nodes(query, center, limit, workspace)

    def search_facts(
        self,
        query: str,
        center: str | None = None,
        limit: int = 10,
        as_of: str | datetime | None = None,
        include_invalid: bool = False,
        *,
        workspace: str | None = None,
        min_confidence: float | None = None,
    ) -> list[FactHit]:
        """Facts matching ``query``, true now (or at ``as_of``) unless ``include_invalid``; with
        ``min_confidence`` (0-1), only facts whose extractor was at least that sure."""
        with self.foreground.held():
            return self.knowledge.search_facts(query, center, limit, as_of, include_invalid, workspace, min_confidence)

    def episodes(self, *, workspace: str | None = None, limit: int = 20, query: str | None = None) -> list[Episode]:
        """Memories seen from the graph (entities mentioned, facts given), newest first or best match for ``query``."""
        if query is not None:
            memories = [h.memory for h in self.search(query, workspace=workspace, limit=limit, include_invalid=True)]
        else:
            memories = list(self.list(workspace=workspace, limit=limit))
        return self.knowledge.episodes(memories)

    def entity(self, ref: str, *, workspace: str | None = None) -> Entity:
        """One entity by id (full or 8+ char prefix/suffix) or by name or alias."""
        return self.knowledge.entity(ref, workspace)

    def entity_facts(
        self, ref: str, *, workspace: str | None = None, as_of: str | datetime | None = None, include_invalid: bool = False,
        min_confidence: float | None = None,
    ) -> list[Fact]:
        """Facts about one entity, as subject or object, newest first (at least ``min_confidence`` sure, when given)."""
        return self.knowledge.facts_of(ref, workspace, as_of, include_invalid, min_confidence)

    def fact(self, id: str) -> Fact:
        return self.knowledge.fact(id)

    def delete_fact(self, id: str) -> Fact:
        """Delete a fact (full id or 8+ char prefix/suffix); facts it had retired are current again."""
        return self.knowledge.delete_fact(id)

    def clear_graph(self, workspace: str | None, confirm: bool = True) -> ClearReport:
        """Delete the entities and facts of one workspace (``"*"``: all). Memories are kept."""
        return self.knowledge.clear_graph(workspace, confirm)

    def merge_entities(self, a: str, b: str, *, workspace: str | None = None) -> Entity:
        """Merge two entities: the most connected stays, the other's name becomes its alias."""
        return self.knowledge.merge_entities(a, b, workspace)

    def communities(self, *, workspace: str | None = None, entity: str | None = None, limit: int = 20) -> list[Community]:
        """Communities of closely linked entities, largest first (those of ``entity`` only, when given).

        Components whose facts changed since the last look are recomputed first.
        """
        return self.knowledge.list_communities(workspace, entity, limit)

    def rebuild_communities(self, workspace: str | None = None) -> list[Community]:
        """Recompute every community of the workspace (``"*"``: all) from the current facts."""
        return self.knowledge.rebuild_communities(workspace)

    def prefer_current(self, hits: list[Hit]) -> list[Hit]:
        """``hits`` re-ranked so that, of memories about the same things (a common entity, or mostly the same
        words) that match about equally well, the later one comes first: a tie-break for changed facts."""
        return self.knowledge.prefer_current(hits)

    def extraction_status(self, *, status: str | None = None, limit: int = 50) -> ExtractionStatus:
        """The LLM extraction queue: counts by status (pending, running, done, failed) and the items not done
        (or those of ``status``), with attempts and last error."""
        return self.knowledge.extraction.status(status, rules.limit(limit))

    def extract_pending(self, *, limit: int | None = None, retry_failed: bool = False) -> ExtractionReport:
        """Run LLM extraction on the queued memories that are due (``retry_failed``: failed ones too)."""
        if retry_failed:
            self.knowledge.extraction.retry_failed()
        return self.knowledge.extraction.drain(None if limit is None else rules.limit(limit, 100_000))

    def start_extraction_worker(self) -> ExtractionWorker | None:
        """A daemon thread draining the LLM extraction queue (None when no LLM is configured); ``.stop()`` ends it."""
        if not self.knowledge.extraction.enabled:
            return None
        from knotwork.services.extraction import ExtractionWorker

        return ExtractionWorker(self.knowledge.extraction, self.settings.kg_llm_worker_interval).start()
