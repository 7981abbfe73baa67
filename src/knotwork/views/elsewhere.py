"""Misses that say where to look: a memory search, an entity or fact search of the knowledge graph, or an
entity lookup that finds nothing in the workspace it was asked about, but would in other workspaces its caller
reads, names them ("2 matches in workspace 'ledgerly'; pass -w ledgerly"). A memory search in a workspace
that holds no memory at all says so (``Hits.unknown_workspace``), as a listing of one does
(``Page.unknown_workspace``): a misspelt name is not an empty answer.

Every surface (CLI, MCP, REST, the web UI through REST) searches and looks entities up through these
functions. Where to look is found among the caller's workspaces only: the owner's (the library, a server
without tokens) are every workspace; a scoped caller's (a token, ``serve -w``) are its scope's, each searched
on its own, so that nothing beyond the scope (not even how it ranks) changes the answer.

A graph search that finds nothing while memories of the scope asked about wait to be read into the graph
names no other workspace: the answer may be there once they are, and the answer's backlog line says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knotwork.domain import rules
from knotwork.domain.models import ALL_WORKSPACES, Hits, Page
from knotwork.errors import NotFound
from knotwork.knowledge.models import Found

if TYPE_CHECKING:
    from knotwork.service import Knotwork
    from knotwork.service_api import ServiceApi

#: A scoped caller's workspaces searched one by one at most (the rest are not looked in).
MOST_WORKSPACES = 20


def _final(mem: ServiceApi) -> bool:
    """Whether ``mem`` names the other workspaces itself (a server's service, through adapters/client.py: the
    server looked within its caller's scope), so that its answer is final."""
    return getattr(type(mem), "names_elsewhere", False)  # the class's: a scoped service refuses unknown names


def _caller(mem: ServiceApi) -> tuple[Knotwork, frozenset[str] | None]:
    """The service itself and the workspaces ``mem``'s caller reads (None: every one)."""
    from knotwork.views.access import unwrapped

    return unwrapped(mem)  # a per-call service (MCP) is unwrapped to its current caller's


def search(mem: ServiceApi, query: str, *, workspace: str | None = None, **options: Any) -> Hits:
    """``mem.search(...)``; when it finds nothing, where the same search would (``Hits.elsewhere``)."""
    hits = mem.search(query, workspace=workspace, **options)
    if _final(mem):  # the server named them already: keep its answer's ``elsewhere``
        return hits if isinstance(hits, Hits) else Hits(hits)
    if hits or workspace == ALL_WORKSPACES or options.get("center"):
        return Hits(hits)
    owner, readable = _caller(mem)
    here = rules.workspace(workspace)
    unknown = here if here and here not in owner.store.count_memories_by("workspace") else None
    return Hits(hits, memories(owner, query, here, readable, options), unknown)


def listed(mem: ServiceApi, *, workspace: str | None = None, **filters: Any) -> Page:
    """``mem.list(...)``; an empty page of a workspace that holds no memory names it (``Page.unknown_workspace``),
    and an empty first page names the other workspaces where the same listing shows memories (``Page.elsewhere``).

    Trigger: after the README's two adds to workspace ``ledgerly``, ``knotwork list``, ``GET /memories`` and the
    web UI's Browse page (each without a workspace: the global scope) said "No memories." of a store that held
    them, while a search said where they were. Outcome: a listing that finds nothing says where it would.
    """
    page = mem.list(workspace=workspace, **filters)
    if _final(mem) or page or workspace == ALL_WORKSPACES:  # a server's page names it already
        return page
    owner, readable = _caller(mem)
    here = rules.workspace(workspace)
    held = owner.store.count_memories_by("workspace")
    if here and here not in held:
        page.unknown_workspace = here
    if not filters.get("cursor"):  # a later page that is empty is the end of a listing, not a miss
        page.elsewhere = listings(owner, here, readable, held, filters)
    return page


#: Memories counted in each other workspace of an empty listing, at most (one page of the largest size).
LISTED_AT_MOST = 1000


def listings(owner: Knotwork, workspace: str | None, readable: frozenset[str] | None, held: dict[str, int],
             filters: dict[str, Any]) -> dict[str, int]:
    """Workspace -> memories (up to :data:`LISTED_AT_MOST`) the same listing shows there, for the workspaces that
    hold memories and ``readable`` names (None: every one) but ``workspace``; each is listed on its own."""
    names = sorted(w for w in held if w and w != workspace and (readable is None or w in readable))
    options = {**filters, "limit": LISTED_AT_MOST}
    counts: dict[str, int] = {}
    for w in names[:MOST_WORKSPACES]:
        found = sum(1 for m in owner.list(workspace=w, **options) if m.workspace == w)
        if found:
            counts[w] = found
    return counts


def memories(owner: Knotwork, query: str, workspace: str | None, readable: frozenset[str] | None,
             options: dict[str, Any]) -> dict[str, int]:
    """Workspace -> hits the search would give there, for the workspaces ``readable`` names (None: all) but
    ``workspace`` (whose search, with the global scope, found nothing)."""
    options = {k: v for k, v in options.items() if k != "explain"}
    counts: dict[str, int] = {}
    if readable is None:
        for hit in owner.search(query, workspace=ALL_WORKSPACES, **options):
            w = hit.memory.workspace
            if w and w != workspace:
                counts[w] = counts.get(w, 0) + 1
        return counts
    for w in sorted(n for n in readable if n and n != workspace)[:MOST_WORKSPACES]:
        found = sum(1 for hit in owner.search(query, workspace=w, **options) if hit.memory.workspace == w)
        if found:
            counts[w] = found
    return counts


def search_nodes(mem: ServiceApi, query: str, center: str | None = None, limit: int = 10, *, workspace: str | None = None) -> Found:
    """``mem.search_nodes(...)``; when it finds nothing, where the same search would (``Found.elsewhere``)."""
    hits = mem.search_nodes(query, center, limit, workspace=workspace)
    return _graph_miss(mem, "search_nodes", hits, workspace, center, {"limit": limit})


def search_facts(
    mem: ServiceApi, query: str, center: str | None = None, limit: int = 10, as_of: Any = None, include_invalid: bool = False,
    *, workspace: str | None = None, min_confidence: float | None = None,
) -> Found:
    """``mem.search_facts(...)``; when it finds nothing, where the same search would (``Found.elsewhere``)."""
    hits = mem.search_facts(query, center, limit, as_of, include_invalid, workspace=workspace, min_confidence=min_confidence)
    options = {"limit": limit, "as_of": as_of, "include_invalid": include_invalid, "min_confidence": min_confidence}
    found = _graph_miss(mem, "search_facts", hits, workspace, center, options)
    # Trigger: `knotwork facts "Valkey" -w ledgerly` (the example of `knotwork --help`) said "No facts found" after
    # the README's adds: the one fact extracted (at 0.6) is below the confidence a read shows by default.
    # Outcome: a miss at the default confidence says how many less sure facts the same search would show.
    if not found and min_confidence is None and not _final(mem):
        found.less_sure = len(mem.search_facts(query, center, limit, as_of, include_invalid, workspace=workspace, min_confidence=0))
    return found


def _graph_miss(mem: ServiceApi, operation: str, hits: Found, workspace: str | None, center: str | None,
                options: dict[str, Any]) -> Found:
    query = getattr(hits, "query", "")
    if _final(mem):
        return hits
    if hits or workspace == ALL_WORKSPACES or center:
        return Found(list(hits), query)
    owner, readable = _caller(mem)
    here = rules.workspace(workspace)
    # Trigger: memories of the scope asked about wait to be read into the graph. Why: the search may find them
    # once they are; pointing elsewhere would send the caller away from the answer. Outcome: no workspace is
    # named; the adapters' backlog line says the answer is without those memories.
    if owner.graph_backlog({here or "", ""}):
        return Found(list(hits), query)
    return Found(list(hits), query, graph_matches(owner, operation, query, here, readable, options))


def graph_matches(owner: Knotwork, operation: str, query: str, workspace: str | None, readable: frozenset[str] | None,
                  options: dict[str, Any]) -> dict[str, int]:
    """Workspace -> results ``operation`` (search_nodes or search_facts) would give there, for the workspaces
    ``readable`` names (None: every one) but ``workspace``. Each workspace is searched on its own: a search of
    every workspace at once keeps one entity of a name, which would hide the others' matches."""
    names = readable if readable is not None else frozenset(owner.store.count_memories_by("workspace"))
    search = getattr(owner, operation)
    counts: dict[str, int] = {}
    for w in sorted(n for n in names if n and n != workspace)[:MOST_WORKSPACES]:
        found = sum(1 for hit in search(query, workspace=w, **options) if _workspace_of(hit) == w)
        if found:
            counts[w] = found
    return counts


def _workspace_of(hit: Any) -> str | None:
    record = getattr(hit, "entity", None) or getattr(hit, "fact", None)
    return getattr(record, "workspace", None)


def entity_missed(mem: ServiceApi, exc: NotFound, ref: str, workspace: str | None) -> NotFound:
    """``exc`` (an entity lookup by name that found nothing), saying in which of the caller's other workspaces
    an entity of that name is."""
    if exc.kind != "entity" or exc.by == "id":
        return exc
    owner, readable = _caller(mem)
    here = rules.workspace(workspace)
    where = {
        w: len(found) for w, found in owner.knowledge.entity_workspaces(ref).items()
        if w != here and (readable is None or w in readable)
    }
    return NotFound("entity", ref, by=exc.by, elsewhere=where) if where else exc


def entity_facts(mem: ServiceApi, ref: str, *, workspace: str | None = None, **options: Any) -> Any:
    """``mem.entity_facts(...)``; when no entity answers the name, where one would."""
    try:
        return mem.entity_facts(ref, workspace=workspace, **options)
    except NotFound as exc:
        if workspace == ALL_WORKSPACES or _final(mem):
            raise
        raise entity_missed(mem, exc, ref, workspace) from None


def entity(mem: ServiceApi, ref: str, *, workspace: str | None = None) -> Any:
    """``mem.entity(...)``; when no entity answers the name, where one would."""
    try:
        return mem.entity(ref, workspace=workspace)
    except NotFound as exc:
        if workspace == ALL_WORKSPACES or _final(mem):
            raise
        raise entity_missed(mem, exc, ref, workspace) from None
