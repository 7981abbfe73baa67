"""Hygiene: near-duplicates, merges and prunes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from knotwork.adapters.http.common import Format, Mem, Reply, default_workspace, ranged
from knotwork.views.access import every_workspace

router = APIRouter(tags=["hygiene"])


class MergeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(description="memory ids; the first supersedes the others, which are retired, not deleted")


@router.get("/duplicates", summary="Groups of near-duplicate memories of one workspace and partition")
def duplicates(
    request: Request,
    mem: Mem,
    reply: Reply,
    threshold: Annotated[float, Query(description="least cosine similarity, 0.5-1", **ranged(0.5, 1))] = 0.95,
    workspace: Annotated[str | None, Query(description="a workspace (with global), or * for all; omitted: all the caller may read")] = None,
    agent_id: Annotated[str, Query(description="a partition, or * for all")] = "*",
    limit: Annotated[int, Query(**ranged(1, 1000))] = 50,
    format: Format = "json",
) -> Response:
    scope = default_workspace(request, workspace)
    every = every_workspace(mem)  # "*" for the owner, the caller's workspaces for a scoped one
    groups = mem.find_duplicates(threshold, workspace=every if scope is None else scope, agent_id=agent_id, limit=limit)
    return reply("duplicates", groups, format)


@router.post("/merge", summary="Fold duplicates into the first id: the others are retired, history and links kept")
def merge(body: MergeRequest, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("merge", mem.merge(body.ids), format)


@router.post("/prune", summary="Purge expired memories and keep the latest snapshot of each day per key")
def prune(mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("prune", mem.prune(), format)
