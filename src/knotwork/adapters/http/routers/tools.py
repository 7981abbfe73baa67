"""Ambient recall for session hooks, and the store's status and statistics."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from knotwork.adapters.http.common import Format, Mem, Reply, default_workspace

router = APIRouter(tags=["recall and status"])

SectionName = Literal["clock", "directives", "facts", "graph", "episodes", "entities", "health"]


class RecallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    context: str = Field("startup", description="startup (session start), prompt (a new turn), resume…")
    workspace: str | None = None
    query: str | None = Field(None, description="what the turn is about; omit to use the workspace's focus")
    budget_tokens: int = Field(1500, description="most o200k tokens of text")
    sections: list[SectionName] | None = Field(None, description="default: all but entities")


@router.post(
    "/tools/ambient_recall",
    summary="Context for an agent within a token budget (what session hooks inject)",
    response_description="{text, sections, tokens, latency_ms, …}; text is exactly what the agent is given",
)
def ambient_recall(body: RecallRequest, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    result = mem.recall(
        body.context,
        workspace=default_workspace(request, body.workspace),
        query=body.query,
        budget_tokens=body.budget_tokens,
        sections=body.sections,
    )
    return reply("recall", result, format)


@router.get("/status", summary="Version, store, schema version, counts, embedder, recall p50/p95")
def status(mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("status", mem.status(), format)


@router.get("/stats", summary="Counts by workspace, partition, tag and category; date range; health (duplicates, "
            "superseded, expired, snapshots, ignored adds, orphans); size; embedder")
def stats(mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("stats", mem.stats(), format)
