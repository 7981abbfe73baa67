"""The knowledge graph: entities, facts in time, episodes, communities, the LLM extraction queue."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from knotwork.adapters.http.common import Format, Mem, Reply, default_workspace, ranged
from knotwork.views import elsewhere

router = APIRouter(tags=["knowledge graph"])

WORKSPACE = "workspace name (\"*\": every workspace); omit for the server default"
AS_OF = "ISO-8601 time: the facts true then"
MIN_CONFIDENCE = "only facts whose extractor was at least this sure (0-1)"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NodeSearch(Strict):
    query: str = Field(description="names or words to look for")
    center: str | None = Field(None, description="an entity (name or id): entities near it in the graph rank first")
    limit: int = Field(10, **ranged(1, 100))
    workspace: str | None = None


class FactSearch(Strict):
    query: str = Field(description="what the facts are about")
    center: str | None = Field(None, description="an entity (name or id): facts near it in the graph rank first")
    limit: int = Field(10, **ranged(1, 100))
    as_of: str | None = Field(None, description=AS_OF)
    include_invalid: bool = Field(False, description="also facts no longer true")
    workspace: str | None = None
    min_confidence: float | None = Field(None, description=MIN_CONFIDENCE, **ranged(0, 1))


class Merge(Strict):
    a: str = Field(description="an entity (name, alias or id)")
    b: str = Field(description="another entity of the same workspace")
    workspace: str | None = None


class Drain(Strict):
    limit: int | None = Field(None, description="most extraction attempts to make; default: until none is due", **ranged(1, 100_000))
    retry_failed: bool = Field(False, description="give failed memories a fresh start first")


@router.post("/search/entities", summary="Entities matching a query (names, aliases, summaries), best first")
def search_nodes(body: NodeSearch, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    hits = elsewhere.search_nodes(mem, body.query, body.center, body.limit, workspace=default_workspace(request, body.workspace))
    return reply("search_nodes", hits, format)


@router.post("/search/facts", summary="Facts matching a query, true now (or at as_of) unless include_invalid")
def search_facts(body: FactSearch, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    hits = elsewhere.search_facts(
        mem,
        body.query,
        body.center,
        body.limit,
        body.as_of,
        body.include_invalid,
        workspace=default_workspace(request, body.workspace),
        min_confidence=body.min_confidence,
    )
    return reply("search_facts", hits, format)


@router.get("/episodes", summary="Memories with the entities they mention and the facts they gave, newest first")
def episodes(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: str | None = None,
    limit: Annotated[int, Query(**ranged(1, 1000))] = 20,
    query: Annotated[str | None, Query(description="best matches for this instead of the newest")] = None,
    format: Format = "json",
) -> Response:
    return reply("episodes", mem.episodes(workspace=default_workspace(request, workspace), limit=limit, query=query), format)


@router.post("/entities/merge", summary="Merge two entities: the more connected stays, the other's name becomes its alias")
def merge_entities(body: Merge, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    merged = mem.merge_entities(body.a, body.b, workspace=default_workspace(request, body.workspace))
    return reply("merge_entities", merged, format)


# Entity names may hold slashes (files, URLs), so the ref is a path; /facts is matched first, which
# leaves a name that itself ends in /facts reachable by its id.
@router.get("/entities/{ref:path}/facts", summary="Facts about one entity, as subject or object, newest first")
def entity_facts(
    ref: str,
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: str | None = None,
    as_of: Annotated[str | None, Query(description=AS_OF)] = None,
    include_invalid: Annotated[bool, Query(description="also facts no longer true")] = False,
    min_confidence: Annotated[float | None, Query(description=MIN_CONFIDENCE, **ranged(0, 1))] = None,
    format: Format = "json",
) -> Response:
    fs = elsewhere.entity_facts(
        mem, ref, workspace=default_workspace(request, workspace), as_of=as_of, include_invalid=include_invalid,
        min_confidence=min_confidence,
    )
    return reply("facts", fs, format)


@router.get("/entities/{ref:path}", summary="One entity, by id (full or 8+ char prefix/suffix), name or alias")
def entity(ref: str, request: Request, mem: Mem, reply: Reply, workspace: str | None = None, format: Format = "json") -> Response:
    return reply("entity", elsewhere.entity(mem, ref, workspace=default_workspace(request, workspace)), format)


@router.get("/facts/{id}", summary="One fact, by id (full or 8+ char prefix/suffix); JSON")
def fact(id: str, mem: Mem, reply: Reply) -> Response:
    return reply("fact", mem.fact(id))


@router.delete("/facts/{id}", summary="Delete a fact; a fact it had retired becomes current again")
def delete_fact(id: str, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("delete_fact", mem.delete_fact(id), format)


@router.delete("/graph", summary="Delete every entity and fact of a workspace (memories are kept); needs confirm=true")
def clear_graph(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: Annotated[str | None, Query(description=WORKSPACE)] = None,
    confirm: Annotated[bool, Query(description="must be true")] = False,
    format: Format = "json",
) -> Response:
    return reply("clear_graph", mem.clear_graph(default_workspace(request, workspace), confirm=confirm), format)


@router.get("/communities", summary="Communities of closely linked entities, largest first")
def communities(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: str | None = None,
    entity: Annotated[str | None, Query(description="only the community of this entity (name or id)")] = None,
    limit: Annotated[int, Query(**ranged(1, 1000))] = 20,
    format: Format = "json",
) -> Response:
    found = mem.communities(workspace=default_workspace(request, workspace), entity=entity, limit=limit)
    return reply("communities", found, format)


@router.post("/communities/rebuild", summary="Recompute every community of a workspace from the current facts")
def rebuild_communities(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: Annotated[str | None, Query(description=WORKSPACE)] = None,
    format: Format = "json",
) -> Response:
    return reply("communities", mem.rebuild_communities(default_workspace(request, workspace)), format)


@router.get("/extraction", summary="The LLM extraction queue: counts by status and the items not done (or of one status)")
def extraction_status(
    mem: Mem,
    reply: Reply,
    status: Annotated[str | None, Query(description="pending, running, done or failed")] = None,
    limit: Annotated[int, Query(**ranged(1, 1000))] = 50,
    format: Format = "json",
) -> Response:
    return reply("extraction_status", mem.extraction_status(status=status, limit=limit), format)


@router.post("/extraction/run", summary="Run LLM extraction on the queued memories that are due")
def extract_pending(mem: Mem, reply: Reply, body: Drain | None = None, format: Format = "json") -> Response:
    drain = body or Drain()
    return reply("extract", mem.extract_pending(limit=drain.limit, retry_failed=drain.retry_failed), format)
