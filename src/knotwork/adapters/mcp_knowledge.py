"""MCP tools of the knowledge graph: each a thin adapter over one service method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

from knotwork.service_api import ServiceApi
from knotwork.views import elsewhere

Format = Literal["compact", "json"]
Workspace = str | None  # omitted: the server's default workspace
Center = Annotated[str | None, Field(description="entity name or id: nearer ranks first")]

#: What add_memory says about its graph arguments: the calling model already
#: understands the text, so naming its entities and facts costs it nothing.
ENTITIES_DESCRIPTION = "entities it is about: [{name, type?, summary?}]"
FACTS_DESCRIPTION = (
    "facts it states: [{subject, predicate, object, valid_at?, confidence?}]; a new value of a single-valued one retires the old"
)


def register(
    mem: ServiceApi,
    ws: Callable[[str | None], str | None],
    tool: Callable,
    respond: Callable[..., str],
    read: Any,
    destroy: Any,
) -> None:
    @tool(read)
    def search_nodes(
        query: Annotated[str, Field(description="names or words to look for")],
        center: Center = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        workspace: Workspace = None,
        format: Format = "compact",
    ) -> str:
        """Find entities (people, libraries, files, places…) in the knowledge graph, with their summaries."""
        return respond("search_nodes", elsewhere.search_nodes(mem, query, center, limit, workspace=ws(workspace)), format)

    @tool(read)
    def search_facts(
        query: Annotated[str, Field(description="what the facts are about")],
        center: Center = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        as_of: Annotated[str | None, Field(description="ISO-8601 date: the facts true then")] = None,
        include_invalid: Annotated[bool, Field(description="also facts no longer true")] = False,
        workspace: Workspace = None,
        min_confidence: Annotated[float | None, Field(ge=0, le=1, description="only facts at least this sure (0-1)")] = None,
        format: Format = "compact",
    ) -> str:
        """Find facts (subject --predicate--> object) that are true now, or at as_of; retired ones on request."""
        hits = elsewhere.search_facts(
            mem, query, center, limit, as_of, include_invalid, workspace=ws(workspace), min_confidence=min_confidence
        )
        return respond("search_facts", hits, format)

    @tool(read)
    def get_episodes(
        workspace: Workspace = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        query: Annotated[str | None, Field(description="only episodes matching this")] = None,
        format: Format = "compact",
    ) -> str:
        """Recent memories (episodes) with the entities they mention and the facts they gave."""
        return respond("episodes", mem.episodes(workspace=ws(workspace), limit=limit, query=query), format)

    @tool(destroy)
    def delete_fact(
        id: Annotated[str, Field(description="fact id (full, or a unique 8+ char prefix/suffix)")],
        format: Format = "compact",
    ) -> str:
        """Delete a wrong fact; a fact it had retired becomes current again."""
        return respond("delete_fact", mem.delete_fact(id), format)

    @tool(destroy)
    def clear_graph(
        confirm: Annotated[bool, Field(description="must be true")],
        workspace: Workspace = None,
        format: Format = "compact",
    ) -> str:
        """Delete every entity and fact of a workspace (memories are kept)."""
        return respond("clear_graph", mem.clear_graph(ws(workspace), confirm=confirm), format)

    @tool(read)
    def get_communities(
        workspace: Workspace = None,
        entity: Annotated[str | None, Field(description="only the community of this entity (name or id)")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        format: Format = "compact",
    ) -> str:
        """Communities of closely linked entities (named after their hubs, with a summary), largest first."""
        return respond("communities", mem.communities(workspace=ws(workspace), entity=entity, limit=limit), format)

    @tool(read)
    def get_extraction_status(
        status: Annotated[
            Literal["pending", "running", "done", "failed"] | None, Field(description="list only items of this status")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        format: Format = "compact",
    ) -> str:
        """The LLM extraction queue: how many memories are pending, running, done or failed, with each one's last error."""
        return respond("extraction_status", mem.extraction_status(status=status, limit=limit), format)
