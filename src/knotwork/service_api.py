"""The service API as the adapters call it: one Protocol that the facade, the scoped view and the remote client
each implement, and that the adapters are typed against.

:class:`ServiceApi` names every operation that ``Knotwork`` (``service.py``), ``ScopedKnotwork`` (the view a
token or ``serve -w`` gives, ``views/access.py``) and ``RemoteKnotwork`` (a running server's service,
``adapters/client.py``) all offer, with the facade's parameters; ``Knotwork``'s docstrings document each one.
It holds every operation a REST route or an MCP tool calls on the service it is handed, so an adapter typed
``mem: ServiceApi`` may be handed any of the three. A scoped caller is refused the owner's operations
(``reembed``, ``prune``, the extraction queue…) with a 403, as it always was: refusing is how the scoped view
implements them.

The facade takes a few more parameters that only the server passes (``within``, ``on_stage``, ``batch``), and
more methods (workers, backup, check, warm…) that only the owner of a store opened in this process calls: the
adapters that need them (``knotwork serve``, ``mcp``, ``backup``, ``check``, ``reembed``; ``adapters/http/app.py``
building the app) are typed against ``Knotwork`` itself. ``tests/test_service_api.py`` checks that each of the
three takes every parameter of every method here, in the same way (positional or by keyword, required or with a
default), and that every method an adapter calls on a service typed ``ServiceApi`` is one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from knotwork.domain.models import ALL_WORKSPACES

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.domain.models import Graph, Hit, ImportReport, Memory, MetaRelation, Page, Related, Relationship
    from knotwork.knowledge.models import (
        ClearReport, Community, Entity, Episode, ExtractionReport, ExtractionStatus, Fact, FactHit, NodeHit,
    )
    from knotwork.search.recipes import Recipe
    from knotwork.services.hygiene import DuplicateGroup, MergeReport, PruneReport
    from knotwork.services.recall import Recall
    from knotwork.services.status import Stats, Status


@runtime_checkable
class ServiceApi(Protocol):
    """What every service an adapter may hold answers (see the module's docstring)."""

    #: The settings the service runs with (a remote client's: this process's); the Responder reads its metrics file.
    settings: Settings

    # -- memories --------------------------------------------------------------------------------
    def add(
        self, content: str, *, workspace: str | None = None, agent_id: str | None = None,
        category: str | None = None, tags: Mapping[str, Any] | list[str] | None = None,
        artifacts: list[str] | None = None, evidence: list[str] | None = None, importance: float | None = None,
        metadata: Mapping[str, Any] | None = None, valid_at: str | datetime | None = None,
        thread: str | None = None, entities: list[Mapping[str, Any]] | None = None,
        facts: list[Mapping[str, Any]] | None = None, expires_at: str | datetime | None = None,
        ttl: int | str | None = None, consolidate: bool = True, force: bool = False,
    ) -> Memory: ...

    def add_many(
        self, items: Iterable[Mapping[str, Any]], *, consolidate: bool = True, force: bool = False,
    ) -> list[Memory]: ...

    def get(self, id: str) -> Memory: ...

    def update(self, id: str, **changes: Any) -> Memory: ...

    def delete(self, id: str) -> Memory: ...

    def history(self, id: str) -> list[Memory]: ...

    def list(
        self, *, workspace: str | None = None, agent_id: str | None = None, category: str | None = None,
        tags: Mapping[str, Any] | list[str] | None = None, since: str | datetime | None = None,
        until: str | datetime | None = None, limit: int = 50, cursor: str | None = None,
        include_invalid: bool = True, thread: str | None = None,
    ) -> Page: ...

    def search(
        self, query: str, *, workspace: str | None = None, limit: int = 10, agent_id: str | None = None,
        category: str | None = None, tags: Mapping[str, Any] | list[str] | None = None, tags_mode: str = "all",
        artifact: str | None = None, created_after: str | datetime | None = None,
        created_before: str | datetime | None = None, valid_after: str | datetime | None = None,
        valid_before: str | datetime | None = None, include_invalid: bool = False,
        recipe: str | Recipe | None = None, center: str | None = None, explain: bool = False,
        now: str | datetime | None = None, thread: str | None = None,
    ) -> list[Hit]: ...

    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]: ...

    def reembed(self, on_progress: Callable[[int], object] | None = None) -> int: ...

    # -- links -----------------------------------------------------------------------------------
    def link(self, from_id: str, to_id: str, type: str, metadata: Mapping[str, Any] | None = None) -> Relationship:
        ...

    def unlink(self, relationship_id: str) -> Relationship: ...

    def list_links(self, workspace: str | None = ALL_WORKSPACES) -> list[Relationship]: ...

    def relationships(
        self, id: str, direction: str = "both", types: list[str] | None = None,
    ) -> list[Relationship]: ...

    def related(
        self, id: str, types: list[str] | None = None, depth: int = 1, direction: str = 'both',
    ) -> list[Related]: ...

    def relations(self, ids: list[str]) -> dict[str, list[MetaRelation]]: ...

    def graph(self, id: str, max_depth: int = 2, max_nodes: int = 50) -> Graph: ...

    # -- knowledge graph -------------------------------------------------------------------------
    def search_nodes(
        self, query: str, center: str | None = None, limit: int = 10, *, workspace: str | None = None,
    ) -> list[NodeHit]: ...

    def search_facts(
        self, query: str, center: str | None = None, limit: int = 10, as_of: str | datetime | None = None,
        include_invalid: bool = False, *, workspace: str | None = None, min_confidence: float | None = None,
    ) -> list[FactHit]: ...

    def entity(self, ref: str, *, workspace: str | None = None) -> Entity: ...

    def entity_facts(
        self, ref: str, *, workspace: str | None = None, as_of: str | datetime | None = None,
        include_invalid: bool = False, min_confidence: float | None = None,
    ) -> list[Fact]: ...

    def episodes(self, *, workspace: str | None = None, limit: int = 20, query: str | None = None) -> list[Episode]:
        ...

    def communities(
        self, *, workspace: str | None = None, entity: str | None = None, limit: int = 20,
    ) -> list[Community]: ...

    def rebuild_communities(self, workspace: str | None = None) -> list[Community]: ...

    def merge_entities(self, a: str, b: str, *, workspace: str | None = None) -> Entity: ...

    def fact(self, id: str) -> Fact: ...

    def delete_fact(self, id: str) -> Fact: ...

    def clear_graph(self, workspace: str | None, confirm: bool = True) -> ClearReport: ...

    def extract_pending(self, *, limit: int | None = None, retry_failed: bool = False) -> ExtractionReport: ...

    def extraction_status(self, *, status: str | None = None, limit: int = 50) -> ExtractionStatus: ...

    def graph_backlog(self) -> int: ...

    # -- recall, hygiene, data, status -----------------------------------------------------------
    def recall(
        self, context: str = "startup", *, workspace: str | None = None, query: str | None = None,
        budget_tokens: int = 1500, sections: list[str] | None = None,
    ) -> Recall: ...

    def find_duplicates(
        self, threshold: float = 0.95, *, workspace: str | None = ALL_WORKSPACES, agent_id: str | None = "*",
        limit: int = 50,
    ) -> list[DuplicateGroup]: ...

    def merge(self, ids: list[str]) -> MergeReport: ...

    def prune(self) -> PruneReport: ...

    def export(self) -> Iterator[dict[str, Any]]: ...

    def import_records(
        self, records: Iterable[Mapping[str, Any]], on_progress: Callable[[int], object] | None = None,
    ) -> ImportReport: ...

    def stats(self) -> Stats: ...

    def status(self) -> Status: ...
