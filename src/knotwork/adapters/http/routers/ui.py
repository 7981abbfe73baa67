"""The web UI: its page at ``/``, its built files under ``/ui/static``, and the read-only JSON it draws
that the rest of the API lacks (``/ui/api/...``). Every endpoint here only reads."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from knotwork.adapters.http.common import Mem, Reply, default_workspace, ranged
from knotwork.views import browse
from knotwork.views.access import checked_read, unwrapped

router = APIRouter(tags=["web UI"])

STATIC = Path(__file__).resolve().parent.parent / "static"
INDEX = STATIC / "index.html"
NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>knotwork</title>
<h1>The knotwork web UI is not built</h1>
<p>Build it with <code>make</code> (needs Node.js and npm), or <code>cd web &amp;&amp; npm ci &amp;&amp; npm run build</code>.
The REST API is served as usual (<a href="/docs">/docs</a>).</p>"""


def built() -> bool:
    return INDEX.is_file() and (STATIC / "app.js").is_file()


@router.get("/", include_in_schema=False)
def index() -> Response:
    if not built():
        return HTMLResponse(NOT_BUILT, status_code=503)
    return FileResponse(INDEX, media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/ui/api/choices", summary="What the UI's pickers offer: workspaces, partitions, categories, recipes, link types")
def choices(mem: Mem, reply: Reply) -> Response:
    owner, readable = unwrapped(mem)
    return reply("ui_choices", browse.choices(owner, readable))


@router.get("/ui/api/tags", summary="Tag keys in use, most used first")
def tags(mem: Mem, reply: Reply, limit: Annotated[int, Query(**ranged(1, 1000))] = 200) -> Response:
    owner, readable = unwrapped(mem)
    return reply("ui_tags", {"tags": browse.tag_keys(owner, limit, readable)})


@router.get("/ui/api/activity", summary="Memories per day, month or year of when they became true (by=valid) or were "
            "stored (by=created), by workspace, category, partition and tag")
def activity(mem: Mem, reply: Reply, bucket: str = "month", by: str = "valid") -> Response:
    owner, readable = unwrapped(mem)
    return reply("ui_activity", browse.activity(owner, bucket, readable, by))


@router.get("/ui/api/latency", summary="p50/p95 of recall (service) and of POST /search (this server), recent calls")
def latency(request: Request, mem: Mem, reply: Reply) -> Response:
    return reply("ui_latency", {"recall": mem.status().recall, "search": request.app.state.search_latencies.summary()})


@router.get("/ui/api/token_savings", summary="Totals of the token metrics file per operation")
def token_savings(mem: Mem, reply: Reply) -> Response:
    return reply("ui_token_savings", browse.token_savings(mem))


@router.get("/ui/api/memories/{id}/knowledge", summary="The entities a memory mentions and the facts it is a source of")
def memory_knowledge(id: str, mem: Mem, reply: Reply) -> Response:
    owner, _ = unwrapped(mem)
    return reply("ui_memory_knowledge", browse.memory_knowledge(owner, mem.get(id).id))  # found in the caller's scope


@router.get("/ui/api/knowledge", summary="Entities, facts true at as_of and communities of a workspace, for drawing")
def knowledge(
    request: Request,
    mem: Mem,
    reply: Reply,
    workspace: str | None = None,
    as_of: Annotated[str | None, Query(description="ISO-8601 time: the facts true then (default now)")] = None,
    limit: Annotated[int, Query(**ranged(1, 2000))] = 300,
    min_confidence: Annotated[float | None, Query(description="only facts at least this sure (0-1)", **ranged(0, 1))] = None,
) -> Response:
    owner, readable = unwrapped(mem)
    chosen = default_workspace(request, workspace)
    if readable is not None:
        chosen = checked_read(mem, chosen)
    return reply("ui_knowledge", browse.knowledge(owner, chosen, as_of, limit, min_confidence))
