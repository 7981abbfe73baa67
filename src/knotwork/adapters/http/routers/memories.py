"""Memories: add, read, list, search, update, delete, history."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from knotwork.adapters.http.common import Format, Mem, Reply, default_workspace, ranged
from knotwork.views import elsewhere
from knotwork.limits import MAX_BATCH

router = APIRouter(tags=["memories"])


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryFields(Strict):
    """Fields a memory is written with, on creation and on change."""

    category: str | None = None
    tags: dict[str, Any] | list[str] | None = None
    artifacts: list[str] | None = None
    evidence: list[str] | None = None
    importance: float | None = Field(None, **ranged(0, 1))
    metadata: dict[str, Any] | None = None
    valid_at: str | None = None
    thread: str | None = Field(default=None, description="the conversation, session or thread it belongs to (kept as metadata.thread); search scores a thread's memories together")


class NewMemory(MemoryFields):
    content: str = Field(description="the text to remember")
    workspace: str | None = None
    agent_id: str | None = None
    entities: list[dict[str, Any]] | None = Field(default=None, description="[{name, type?, summary?}] it is about")
    facts: list[dict[str, Any]] | None = Field(
        default=None, description="[{subject, predicate, object, valid_at?, invalid_at?, confidence?}] it states (confidence 0-1, default 1)"
    )
    expires_at: str | None = Field(default=None, description="when it expires (ISO-8601); then it leaves every read")
    ttl: int | str | None = Field(default=None, description="time to live instead of expires_at: seconds, or 30m, 12h, 7d")
    consolidate: StrictBool = Field(default=True, description="false: no NOOP/UPDATE/SUPERSEDE decision, store as given")
    force: StrictBool = Field(default=False, description="store even what the store/ignore instructions would ignore")


class NewMemories(Strict):
    items: list[dict[str, Any]] = Field(
        description="memories as for POST /memories; all land or none", max_length=MAX_BATCH
    )
    consolidate: StrictBool = Field(True, description="decide each item as POST /memories does (false: exact duplicates only)")
    force: StrictBool = Field(False, description="store items the store/ignore rules would drop")


class MemoryChanges(MemoryFields):
    """Only the fields present change; ``invalid_at: null`` clears it."""

    content: str | None = None
    invalid_at: str | None = None


class SearchRequest(Strict):
    query: str
    workspace: str | None = None
    limit: int = Field(10, **ranged(1, 1000))
    agent_id: str | None = None
    category: str | None = None
    tags: dict[str, Any] | list[str] | None = None
    tags_mode: Literal["all", "any"] = "all"
    artifact: str | None = None
    created_after: str | None = None
    created_before: str | None = None
    valid_after: str | None = None
    valid_before: str | None = None
    include_invalid: bool = False
    recipe: str | None = None
    center: str | None = None
    explain: bool = False
    now: str | None = Field(default=None, description="when the question is asked (ISO-8601); default the current time")
    thread: str | None = Field(default=None, description="only the memories of this thread")


@router.post(
    "/memories",
    status_code=201,
    summary="Store a memory",
    response_description="the memory with decision (ADD, UPDATE, SUPERSEDE, NOOP, IGNORE), touched and reason;"
    " 201 when a memory was created (ADD, SUPERSEDE), else 200",
)
def add_memory(body: NewMemory, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    fields = body.model_dump(exclude={"content", "workspace"})
    m = mem.add(body.content, workspace=default_workspace(request, body.workspace), **fields)
    return reply("add", m, format, 201 if m.decision in ("ADD", "SUPERSEDE") and not m.duplicate else 200)


@router.post("/memories/batch", status_code=201, summary="Store many memories in one transaction")
def add_memories(body: NewMemories, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    fallback = request.app.state.default_workspace
    items = [item if "workspace" in item or fallback is None else {**item, "workspace": fallback} for item in body.items]
    return reply("add_many", mem.add_many(items, consolidate=body.consolidate, force=body.force), format, 201)


@router.get("/memories", summary="List memories, newest first")
def list_memories(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: str | None = None,
    agent_id: str | None = None,
    category: str | None = None,
    tag: Annotated[list[str] | None, Query(description="KEY or KEY=VALUE; repeat")] = None,
    since: str | None = None,
    until: str | None = None,
    limit: Annotated[int, Query(**ranged(1, 1000))] = 50,
    cursor: str | None = None,
    include_invalid: bool = True,
    thread: Annotated[str | None, Query(description="only the memories of this thread")] = None,
    format: Format = "json",
) -> Response:
    page = elsewhere.listed(
        mem,
        workspace=default_workspace(request, workspace),
        agent_id=agent_id,
        category=category,
        tags=tag,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
        include_invalid=include_invalid,
        thread=thread,
    )
    return reply("list", page, format)


@router.post("/search", summary="Memories that answer a query, best first")
def search(body: SearchRequest, request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    args = body.model_dump(exclude={"query", "workspace"})
    hits = elsewhere.search(mem, body.query, workspace=default_workspace(request, body.workspace), **args)
    return reply("search", hits, format)


@router.get("/memories/{id}", summary="One memory")
def get_memory(id: str, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("get", mem.get(id), format)


@router.patch("/memories/{id}", summary="Change a memory; earlier versions are kept")
def update_memory(id: str, body: MemoryChanges, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("update", mem.update(id, **body.model_dump(exclude_unset=True)), format)


@router.delete("/memories/{id}", summary="Forget a memory and its history")
def delete_memory(id: str, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("delete", mem.delete(id), format)


@router.get("/memories/{id}/history", summary="Every version, oldest first")
def history(id: str, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    return reply("history", mem.history(id), format)
