"""Relationships between memories, the graph around one, and metadata relations."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict

from knotwork.adapters.http.common import Format, Mem, Reply, default_workspace, ranged
from knotwork.domain import rules
from knotwork.render import render

router = APIRouter(tags=["relationships"])

Direction = Literal["outgoing", "incoming", "both"]


class NewLink(BaseModel):
    model_config = ConfigDict(extra="forbid")
    from_id: str
    to_id: str
    type: str
    metadata: dict[str, Any] | None = None


@router.post("/links", status_code=201, summary="Link two memories: from --type--> to (idempotent)")
def link(body: NewLink, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    rel = mem.link(body.from_id, body.to_id, body.type, body.metadata)
    return reply("link", rel, format, 200 if rel.existing else 201)


@router.delete("/links/{relationship_id}", summary="Remove a relationship")
def unlink(relationship_id: str, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("unlink", mem.unlink(relationship_id), format)


@router.get("/relationships", summary="Relationships in a workspace (and global), newest first")
def all_relationships(
    request: Request, mem: Mem, reply: Reply, workspace: str | None = None, format: Format = "json"
) -> Response:
    return reply("relationships", mem.list_links(default_workspace(request, workspace)), format)


@router.get("/memories/{id}/relationships", summary="The links of one memory")
def relationships(
    id: str,
    mem: Mem,
    reply: Reply,
    direction: Direction = "both",
    type: Annotated[list[str] | None, Query(description="only these types; repeat")] = None,
    format: Format = "json",
) -> Response:
    return reply("relationships", mem.relationships(id, direction, type), format)


@router.get("/memories/{id}/related", summary="Memories linked to one, nearest first")
def related(
    id: str,
    mem: Mem,
    reply: Reply,
    depth: Annotated[int, Query(**ranged(1, 5))] = 1,
    direction: Direction = "both",
    type: Annotated[list[str] | None, Query(description="only these types; repeat")] = None,
    format: Format = "json",
) -> Response:
    return reply("related", mem.related(id, types=type, depth=depth, direction=direction), format)


@router.get("/memories/{id}/graph", summary="Nodes and edges around a memory")
def graph(
    id: str,
    mem: Mem,
    reply: Reply,
    max_depth: Annotated[int, Query(**ranged(1, 3))] = 2,
    max_nodes: Annotated[int, Query(**ranged(1, 100))] = 50,
    format: Literal["json", "compact", "dot", "mermaid"] = "json",
) -> Response:
    g = mem.graph(id, max_depth=max_depth, max_nodes=max_nodes)
    if format in ("dot", "mermaid"):
        return PlainTextResponse(render("graph", g, format))
    return reply("graph", g, format)


@router.get("/relations", summary="Each memory's metadata seen as edges (artifacts, tags, evidence…)")
def relations(
    mem: Mem, reply: Reply, id: Annotated[list[str], Query(description="memory id; repeat")], format: Format = "json"
) -> Response:
    return reply("relations", mem.relations(id), format)


@router.get("/short_ids", summary="The short id a compact answer shows for each memory id (ids the caller cannot read stay out)")
def short_ids(mem: Mem, id: Annotated[list[str], Query(description="full memory id; repeat")]) -> JSONResponse:
    rules.id_count(id, "id")
    return JSONResponse(mem.short_ids(id))
