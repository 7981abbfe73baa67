"""Parts of the service built on first use, once, under the owner's lock.

A command that reads one memory (``knotwork get``) needs the store and nothing
else; the search pipeline, the indexes, the knowledge graph and the write path
bring NumPy, networkx and the extraction rules with them, which cost a CLI
process far more time than its own work. :class:`part` turns a method that
builds such a part into an attribute that is built on first access and then
read like any other (the built object sits in the instance's ``__dict__``, so
later reads do not go through the descriptor at all). Two threads asking at
once (a server's request threads) get the same object: the build runs under
the instance's ``_parts_lock``, an ``RLock`` because one part's build may ask
for another.

:func:`built` tells whether a part exists yet, for the code that tears parts
down (closing a store need not build a pipeline only to close it).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from knotwork.services import links, lookup
from knotwork.services.links import LinkService

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.embed.protocol import Embedder
    from knotwork.hygiene.instructions import Instructions
    from knotwork.search.baseline import Baselines
    from knotwork.search.lexical_index import LexicalIndex
    from knotwork.search.pipeline import Pipeline
    from knotwork.search.vector_index import VectorIndex
    from knotwork.services.enrichment import Enrichment
    from knotwork.services.foreground import Foreground
    from knotwork.services.hygiene import Hygiene
    from knotwork.services.knowledge import KnowledgeService
    from knotwork.services.similar import SimilarLists
    from knotwork.services.stages import StageTimes
    from knotwork.services.writes import WritePath
    from knotwork.store.protocol import Store

T = TypeVar("T")


class part(Generic[T]):  # noqa: N801 - used as a decorator, like property
    """``@part`` over ``def name(self) -> T``: ``obj.name`` is built by the method on first use, then kept."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]
        with obj._parts_lock:
            built = obj.__dict__
            if self.name not in built:
                built[self.name] = self.build(obj)
            return built[self.name]


def built(obj: Any, name: str) -> Any:
    """The part ``name`` of ``obj`` if it has been built (or set), else None; never builds it."""
    return obj.__dict__.get(name)


class Parts:
    """The engines :class:`~knotwork.service.Knotwork` is built from, each built on first use.

    The facade sets ``store``, ``settings``, ``embedder``, ``write_times`` and ``_parts_lock``. No part holds
    the facade: what a part needs of it (a memory by id, a link, a version) lives below, in ``services.lookup``,
    ``services.links`` and ``services.versions`` (tests/test_layers.py walks the parts to check).
    """

    store: Store
    settings: Settings
    embedder: Embedder | None
    write_times: StageTimes
    foreground: Foreground
    _parts_lock: threading.RLock

    def _numeric(self) -> None:
        """Before the first part that brings NumPy: cap its BLAS threads (``Settings.blas_threads``)."""
        if self.settings.blas_threads and not built(self, "_blas_limited"):
            from knotwork.search.vector_index import limit_blas_threads

            limit_blas_threads(self.settings.blas_threads)
            self.__dict__["_blas_limited"] = True

    @part
    def index(self) -> VectorIndex | None:
        """The vectors in memory (None without an embedder)."""
        if self.embedder is None:
            return None
        from knotwork.search.vector_index import VectorIndex

        self._numeric()
        return VectorIndex(self.store, self.embedder.dim, ann_path=self.store.ann_file(),
                           ann_min_rows=self.settings.vector_ann_min_rows, model=self.embedder.model_id,
                           ann_required="vector_ann_min_rows" in self.settings.model_fields_set)

    @part
    def lexical(self) -> LexicalIndex:
        """BM25 in memory, kept in step through the store's change log of texts."""
        from knotwork.search.lexical_index import LexicalIndex

        self._numeric()
        return LexicalIndex(self.store)

    @part
    def _pipeline(self) -> Pipeline:
        from knotwork.search.pipeline import Pipeline

        self._numeric()
        return Pipeline(self.store, self.index, self.embedder.embed_query if self.embedder else None, self.lexical)

    @part
    def _baselines(self) -> Baselines:
        """What off-topic probes score in each workspace (search/baseline.py), with the default recipe, every
        memory valid now, the shared partition."""
        from knotwork.domain.models import MemoryFilter
        from knotwork.domain.temporal import now
        from knotwork.search.baseline import Baselines
        from knotwork.search.pipeline import Query
        from knotwork.search.recipes import get_recipe

        recipe = get_recipe(None)

        def probe(text: str, workspace: str | None) -> tuple[float, float, float] | None:
            with self.foreground.held():
                cands, _, trace = self._pipeline.run(recipe, Query(text, MemoryFilter(workspace=workspace), 10, now()))
            if not cands:
                return None
            return cands[0].score, float(cands[0].scores.get("vector", 0.0)), float(trace.tops.get("vector", 0.0))

        return Baselines(self.store, probe, self.embedder.model_id if self.embedder else None)

    @part
    def instructions(self) -> Instructions:
        from knotwork.hygiene import instructions as store_rules

        return store_rules.load(self.settings.home)

    @part
    def knowledge(self) -> KnowledgeService:
        from knotwork.services.knowledge import KnowledgeService

        self._numeric()
        kg_settings = self.settings
        if self.settings.kg_llm_url:  # the LLM extractor is told what is worth keeping, too
            told = f"{self.instructions.prose()} {self.settings.kg_llm_instructions}".strip()
            kg_settings = self.settings.model_copy(update={"kg_llm_instructions": told})
        knowledge = KnowledgeService(self.store, kg_settings, self.embedder)
        # the graph's value changes link memories through the write path's own link, not through this facade
        knowledge.on_value_changed = functools.partial(links.value_changed, self.store)
        return knowledge

    @part
    def enrichment(self) -> Enrichment:
        from knotwork.services.enrichment import Enrichment

        return Enrichment(self.store, self.knowledge, self.settings, self.foreground)

    @part
    def writes(self) -> WritePath:
        from knotwork.services.writes import WritePath

        return WritePath(self.store, self.settings, self.embedder, self.index, self.knowledge, self.enrichment,
                         self.write_times)

    @part
    def _similar(self) -> SimilarLists:
        return self.writes.similar

    @part
    def _links(self) -> LinkService:
        return LinkService(self.store, functools.partial(lookup.current, self.store),
                           about=lambda *args: self.knowledge.about(*args))

    @part
    def hygiene(self) -> Hygiene:
        from knotwork.services.hygiene import Hygiene

        return Hygiene(self.writes, self.settings, self.instructions)
