"""Workspaces as an access boundary: what a caller of a server (a token, ``serve -w``) may see and change.

A :class:`Scope` names the workspaces a caller may read and whether it may
write. Reads of a workspace in knotwork also see the global scope, so every
scoped caller reads global memories; writing them takes the global scope
named in the scope (:data:`GLOBAL`). :class:`ScopedKnotwork` stands between
the adapters (REST, MCP, the web UI's data, hooks) and the service, with the
methods the adapters call and nothing else:

- a memory, relationship or fact outside the scope is *not found*, never
  *forbidden*; a short id resolves among the scope's memories only, so an
  ambiguous-id error never lists another scope's ids;
- ``workspace="*"`` and a workspace outside the scope are refused;
- export, import, status and recall's health line stay within the scope;
  store-wide operations (stats, backup, check, prune, reembed, the
  extraction queue…) are the owner's (an unrestricted scope).

The library API (``knotwork.open``) is the owner's own process and stays
unrestricted; an unrestricted scope gets the service itself, unwrapped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn, cast

from knotwork.domain import ids, rules
from knotwork.domain.models import ALL_WORKSPACES, Graph, Hit, Memory, Related, Relationship
from knotwork.errors import AmbiguousId, Forbidden, InvalidInput, NotFound

if TYPE_CHECKING:
    from knotwork.service import Knotwork
    from knotwork.service_api import ServiceApi

#: How a scope names the global scope (no workspace name can start with "@").
GLOBAL = "@global"


class Refused(Forbidden):
    """An operation this caller's scope does not allow (a 403 naming what is missing, never a 5xx)."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Workspaces (names; '' is the global scope) a caller may use, None for all; and whether it may write."""

    workspaces: frozenset[str] | None = None
    write: bool = True

    @classmethod
    def of(cls, names: Iterable[str] | None, write: bool = True) -> Scope:
        """A scope from workspace names as a person writes them (:data:`GLOBAL` for the global scope, ``*`` for all)."""
        if names is None:
            return cls(None, write)
        listed = list(names)
        if "*" in listed:
            return cls(None, write)
        parsed = set()
        for name in listed:
            if name == GLOBAL:
                parsed.add("")
            else:
                checked = rules.workspace(name)
                if checked is None:
                    raise InvalidInput("workspaces", f"name a workspace, {GLOBAL} or *; got {name!r}")
                parsed.add(checked)
        if not parsed:
            raise InvalidInput("workspaces", "a scope needs at least one workspace")
        return cls(frozenset(parsed), write)

    @property
    def unrestricted(self) -> bool:
        return self.workspaces is None and self.write

    def names(self) -> list[str]:
        """The scope as a person writes it."""
        if self.workspaces is None:
            return ["*"]
        return sorted(GLOBAL if w == "" else w for w in self.workspaces)

    def readable(self) -> frozenset[str] | None:
        """Workspaces whose memories this scope reads ('' included: every reader sees the global scope)."""
        return None if self.workspaces is None else self.workspaces | {""}

    def reads(self, workspace: str | None) -> bool:
        return self.workspaces is None or (workspace or "") in self.workspaces or not workspace

    def writes(self, workspace: str | None) -> bool:
        return self.write and (self.workspaces is None or (workspace or "") in self.workspaces)

    def within(self, other: Scope) -> Scope:
        """What both scopes allow (a token's scope on a server started with ``-w``)."""
        if self.workspaces is None:
            workspaces = other.workspaces
        elif other.workspaces is None:
            workspaces = self.workspaces
        else:
            workspaces = self.workspaces & other.workspaces
        return Scope(workspaces, self.write and other.write)


def of_workspace(name: str | None) -> Scope | None:
    """The scope of a server started with a workspace (``serve -w W``, ``mcp -w W``): W (and, to read, the
    global scope), read and write; None (no limit) without one."""
    return Scope.of([name]) if name else None


#: A workspace argument an adapter passes when its caller names none and the operation reads every workspace
#: by default (duplicates): every workspace for the owner, every workspace of the scope for a scoped caller
#: (who may not name ``*``).
IN_SCOPE: Any = type("InScope", (), {"__repr__": lambda self: "IN_SCOPE"})()


def every_workspace(mem: ServiceApi) -> Any:
    """What an adapter passes as "every workspace" for ``mem``'s caller: ``*`` for the owner, else :data:`IN_SCOPE`."""
    if isinstance(mem, PerCall):
        mem = mem.current()
    return IN_SCOPE if isinstance(mem, ScopedKnotwork) else ALL_WORKSPACES


#: The scope of whoever is being answered now, where a transport says it per message (MCP over HTTP);
#: None (the default) is the owner: a process of one's own, such as ``knotwork mcp`` over stdio.
CALLER: ContextVar[Scope | None] = ContextVar("knotwork_caller", default=None)


class PerCall:
    """The service as the current caller (:data:`CALLER`) may use it, looked up at each use; ``fallback`` is
    the scope of a message that names no caller (``knotwork mcp -w`` over stdio: the server's workspace). It
    answers every operation of :class:`~knotwork.service_api.ServiceApi`, as the service it looks up does."""

    def __init__(self, mem: Knotwork, fallback: Scope | None = None) -> None:
        self._mem = mem
        self._fallback = fallback

    def current(self) -> ServiceApi:
        """The service as the caller being answered now may use it."""
        caller = CALLER.get()
        return scoped(self._mem, caller if caller is not None else self._fallback)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.current(), name)


def _ref(value: Any) -> str:
    """An id of an import's record or link as the service will read it (trimmed, upper case)."""
    return str(value if value is not None else "").strip().upper()


def _homed(record: Any, where: Mapping[str, str | None]) -> Any:
    """``record`` with each of its links that names no workspace given the one of its workspace end."""
    links = record.get("links") if isinstance(record, Mapping) else None
    if not isinstance(links, list):
        return record
    homed = [
        {**link, "workspace": where[_ref(link.get("from"))] or where[_ref(link.get("to"))]}
        if isinstance(link, Mapping) and link.get("workspace") is None else link
        for link in links
    ]
    return {**record, "links": homed}


def unwrapped(mem: ServiceApi) -> tuple[Knotwork, frozenset[str] | None]:
    """The service behind ``mem`` and the workspaces its caller reads (None: all), for views that read the
    store in bulk and filter by workspace themselves (the web UI's overviews)."""
    if isinstance(mem, PerCall):
        mem = mem.current()
    if isinstance(mem, ScopedKnotwork):
        return mem._mem, mem.scope.readable()
    return cast("Knotwork", mem), None  # the owner's: the facade itself


def checked_read(mem: ServiceApi, workspace: Any, field: str = "workspace") -> Any:
    """``workspace`` if ``mem``'s caller may read it (the owner reads every one); refused otherwise, as a scoped
    call of the service refuses it."""
    if isinstance(mem, PerCall):
        mem = mem.current()
    return mem.check_read(workspace, field) if isinstance(mem, ScopedKnotwork) else workspace


def scoped(mem: Knotwork, scope: Scope | None) -> ServiceApi:
    """The service as a caller of ``scope`` may use it: itself when unrestricted."""
    return mem if scope is None or scope.unrestricted else ScopedKnotwork(mem, scope)


class ScopedKnotwork:
    """The adapters' operations on a :class:`~knotwork.service.Knotwork`, limited to one :class:`Scope`."""

    def __init__(self, mem: Knotwork, scope: Scope) -> None:
        self._mem = mem
        self.scope = scope
        self.settings = mem.settings

    # -- checks -----------------------------------------------------------------
    def check_read(self, workspace: Any, field: str = "workspace") -> Any:
        """``workspace`` if this caller may read it; refused otherwise (``*`` included)."""
        return self._read_ws(workspace, field)

    def _read_ws(self, workspace: Any, field: str = "workspace") -> Any:
        """A workspace argument of a read, checked: ``*`` and workspaces outside the scope are refused (``*``
        is a read of every workspace: a scope of them all, such as a read-only ``*`` token, may ask for it)."""
        if workspace == ALL_WORKSPACES and self.scope.workspaces is None:
            return workspace
        if workspace == ALL_WORKSPACES:
            raise Refused(field, f"'*' (every workspace) is not allowed for this caller; its scope is {', '.join(self.scope.names())}")
        name = rules.workspace(workspace)
        if not self.scope.reads(name):
            raise Refused(field, f"{name!r} is outside this caller's scope ({', '.join(self.scope.names())})")
        return name

    def _write_ws(self, workspace: Any, field: str = "workspace") -> str | None:
        name = rules.workspace(workspace)
        if not self.scope.write:
            raise Refused(field, "this caller may read only")
        if not self.scope.writes(name):
            where = repr(name) if name else f"the global scope ({GLOBAL})"
            raise Refused(field, f"{where} is outside what this caller may write ({', '.join(self.scope.names())})")
        return name

    def _writer(self) -> None:
        if not self.scope.write:
            raise Refused("token", "this caller may read only")

    def _owner(self, operation: str) -> NoReturn:
        raise Refused("token", f"{operation} is for an unrestricted caller (every workspace, read and write)")

    def resolve(self, ref: str) -> str:
        return self._mem.resolve(ref, self.scope.readable())

    def _memory(self, ref: str) -> Memory:
        return self._mem.get(self.resolve(ref))

    def _writable(self, ref: str) -> Memory:
        memory = self._memory(ref)
        self._write_ws(memory.workspace)
        return memory

    def _visible_ids(self, ids: Iterable[str]) -> set[str]:
        found = self._mem.store.memory_briefs(list(ids))
        return {mid for mid, brief in found.items() if self.scope.reads(brief.workspace)}

    # -- memories ---------------------------------------------------------------
    def add(self, content: str, *, workspace: str | None = None, **fields: Any) -> Memory:
        return self._mem.add(content, workspace=self._write_ws(workspace), **fields)

    def add_many(
        self, items: Iterable[Mapping[str, Any]], *, consolidate: bool = True, force: bool = False
    ) -> list[Memory]:
        self._writer()  # an empty batch of a read-only caller is refused too, not answered as stored
        checked = []
        for index, item in enumerate(items):
            if isinstance(item, Mapping):
                self._write_ws(item.get("workspace"), f"items[{index}].workspace")
            checked.append(item)
        return self._mem.add_many(checked, consolidate=consolidate, force=force)

    def get(self, id: str) -> Memory:
        return self._memory(id)

    def history(self, id: str) -> list[Memory]:
        return self._mem.history(self.resolve(id))

    def update(self, id: str, **changes: Any) -> Memory:
        return self._mem.update(self._writable(id).id, **changes)

    def delete(self, id: str) -> Memory:
        return self._mem.delete(self._writable(id).id)

    def list(self, *, workspace: str | None = None, **options: Any) -> Any:
        return self._mem.list(workspace=self._read_ws(workspace), **options)

    def search(self, query: str, *, workspace: str | None = None, center: str | None = None, **options: Any) -> list[Hit]:
        ws = self._read_ws(workspace)
        return self._mem.search(query, workspace=ws, center=self.resolve(center) if center else None, **options)

    def recall(self, context: str = "startup", *, workspace: str | None = None, **options: Any) -> Any:
        return self._mem.recall(context, workspace=self._read_ws(workspace), within=self.scope.readable(), **options)

    def find_duplicates(self, threshold: float = 0.95, *, workspace: Any = ALL_WORKSPACES, limit: int = 50, **options: Any) -> Any:
        """Duplicates of one workspace (with the global scope); :data:`IN_SCOPE` (what an adapter asks for
        when its caller names none) gives those of every workspace of the scope, most similar first."""
        if workspace is not IN_SCOPE or self.scope.workspaces is None:
            ws = ALL_WORKSPACES if workspace is IN_SCOPE else self._read_ws(workspace)
            return self._mem.find_duplicates(threshold, workspace=ws, limit=limit, **options)
        groups: dict[tuple[str, ...], Any] = {}
        for name in sorted(self.scope.workspaces, key=lambda w: (w != "", w)):
            for group in self._mem.find_duplicates(threshold, workspace=name or None, limit=limit, **options):
                groups.setdefault(tuple(group.ids), group)  # a workspace's answer holds the global groups too
        return sorted(groups.values(), key=lambda g: (-g.score, g.ids[0]))[: rules.limit(limit, 1000)]

    def merge(self, ids: list[str]) -> Any:
        return self._mem.merge([self._writable(i).id for i in ids])

    def relations(self, ids: list[str]) -> Any:
        return self._mem.relations([self.resolve(i) for i in ids])

    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """Of the memories this caller reads only: the others do not exist for it."""
        return self._mem.short_ids(self._visible_ids(memory_ids))

    def status(self) -> Any:
        return self._mem.status(self.scope.readable())

    def graph_backlog(self) -> int:
        return self._mem.graph_backlog(self.scope.readable())

    # -- links --------------------------------------------------------------------
    def link(self, from_id: str, to_id: str, type: str, metadata: Mapping[str, Any] | None = None) -> Relationship:
        """A link between two memories this caller reads, stored in the workspace it belongs to (its workspace
        end's, else the global scope), which this caller must write; ``supersedes`` retires its target, so the
        target's workspace must be writable too (a lab token may not retire a global memory)."""
        self._writer()
        start, end = self._memory(from_id), self._memory(to_id)
        self._write_ws(start.workspace or end.workspace, "from_id")
        if type == "supersedes":
            self._write_ws(end.workspace, "to_id")
        return self._mem.link(start.id, end.id, type, metadata)

    def _relationship(self, ref: str) -> Relationship:
        """The relationship ``ref`` names among those whose two ends this caller sees (so an ambiguous short
        id lists only those)."""
        store = self._mem.store
        links = [store.get_link(i) for i in store.resolve_link_ref(ids.normalize_ref(ref, "relationship_id"))]
        ends = self._visible_ids({e for rel in links if rel for e in (rel.from_id, rel.to_id)})
        seen = [rel for rel in links if rel and rel.from_id in ends and rel.to_id in ends]
        if not seen:
            raise NotFound("relationship", ref)
        if len(seen) > 1:
            raise AmbiguousId("relationship", ref, [rel.id for rel in seen])
        return seen[0]

    def unlink(self, relationship_id: str) -> Relationship:
        rel = self._relationship(relationship_id)
        self._write_ws(rel.workspace, "relationship_id")  # the workspace the link was stored in (see link)
        return self._mem.unlink(rel.id)

    def relationships(self, id: str, direction: str = "both", types: list[str] | None = None) -> list[Relationship]:
        found = self._mem.relationships(self.resolve(id), direction, types)
        visible = self._visible_ids({e for r in found for e in (r.from_id, r.to_id)})
        return [r for r in found if r.from_id in visible and r.to_id in visible]

    def related(self, id: str, types: list[str] | None = None, depth: int = 1, direction: str = "both") -> list[Related]:
        found = self._mem.related(self.resolve(id), types, depth, direction)
        return [r for r in found if self.scope.reads(r.memory.workspace)]

    def graph(self, id: str, max_depth: int = 2, max_nodes: int = 50) -> Graph:
        g = self._mem.graph(self.resolve(id), max_depth, max_nodes)
        nodes = [n for n in g.nodes if self.scope.reads(n.workspace)]
        kept = {n.id for n in nodes}
        return Graph(
            g.center, nodes, {k: v for k, v in g.depths.items() if k in kept},
            [e for e in g.edges if e.from_id in kept and e.to_id in kept], g.truncated,
        )

    def list_links(self, workspace: str | None = ALL_WORKSPACES) -> list[Relationship]:
        """The links of ``workspace`` whose both ends this caller reads (``*``, the default as on the facade, is
        refused to a caller whose scope is not every workspace)."""
        ws = self._read_ws(workspace)
        found = self._mem.list_links(ws)
        visible = self._visible_ids({e for r in found for e in (r.from_id, r.to_id)})
        return [r for r in found if r.from_id in visible and r.to_id in visible]

    # -- the knowledge graph ----------------------------------------------------------
    def _seen_among(self, kind: str, ref: str, resolve: Any, workspaces_of: Any) -> str:
        """The id ``resolve(ref)`` gives, among the entities or facts this caller sees: one of another scope
        is not found, and an ambiguous short id lists (and counts) the visible ones only."""
        try:
            found = [resolve(ref)]
        except AmbiguousId as exc:
            found = exc.candidates
        where = workspaces_of(found)
        seen = [i for i in found if i in where and self.scope.reads(where[i])]
        if not seen:  # said as a miss of the caller's own store would say it
            raise NotFound(kind, ref, by=ids.looked_up_by(ref) if kind == "entity" and isinstance(ref, str) else "id")
        if len(seen) > 1:
            raise AmbiguousId(kind, ref, seen)
        return seen[0]

    def _entity_id(self, ref: str, workspace: str | None) -> str:
        store = self._mem.store
        return self._seen_among(
            "entity", ref, lambda r: self._mem.knowledge.entity_id(r, workspace),
            lambda found: {i: e.workspace for i, e in store.kg_get_entities(found).items()},
        )

    def _fact_id(self, ref: str) -> str:
        store = self._mem.store
        return self._seen_among(
            "fact", ref, self._mem.knowledge.fact_id, lambda found: {i: f.workspace for i, f in store.kg_get_facts(found).items()}
        )

    def search_nodes(self, query: str, center: str | None = None, limit: int = 10, *, workspace: str | None = None) -> Any:
        ws = self._read_ws(workspace)
        return self._mem.search_nodes(query, self._entity_id(center, ws) if center else None, limit, workspace=ws)

    def search_facts(
        self, query: str, center: str | None = None, limit: int = 10, as_of: str | datetime | None = None,
        include_invalid: bool = False, *, workspace: str | None = None, min_confidence: float | None = None,
    ) -> Any:
        ws = self._read_ws(workspace)
        return self._mem.search_facts(
            query, self._entity_id(center, ws) if center else None, limit, as_of, include_invalid,
            workspace=ws, min_confidence=min_confidence,
        )

    def episodes(self, *, workspace: str | None = None, **options: Any) -> Any:
        return self._mem.episodes(workspace=self._read_ws(workspace), **options)

    def entity(self, ref: str, *, workspace: str | None = None) -> Any:
        ws = self._read_ws(workspace)
        return self._mem.entity(self._entity_id(ref, ws), workspace=ws)

    def entity_facts(self, ref: str, *, workspace: str | None = None, **options: Any) -> Any:
        ws = self._read_ws(workspace)
        return self._mem.entity_facts(self._entity_id(ref, ws), workspace=ws, **options)

    def fact(self, id: str) -> Any:
        return self._mem.fact(self._fact_id(id))

    def delete_fact(self, id: str) -> Any:
        found = self.fact(id)
        self._write_ws(found.workspace)
        return self._mem.delete_fact(found.id)

    def clear_graph(self, workspace: str | None, confirm: bool = True) -> Any:
        return self._mem.clear_graph(self._write_ws(workspace), confirm)

    def merge_entities(self, a: str, b: str, *, workspace: str | None = None) -> Any:
        ws = self._write_ws(workspace)
        ida, idb = self._entity_id(a, ws), self._entity_id(b, ws)
        for eid in (ida, idb):  # a global entity is the global scope's to change
            self._write_ws(self._mem.store.kg_get_entities([eid])[eid].workspace)
        return self._mem.merge_entities(ida, idb, workspace=ws)

    def communities(self, *, workspace: str | None = None, entity: str | None = None, **options: Any) -> Any:
        ws = self._read_ws(workspace)
        return self._mem.communities(workspace=ws, entity=self._entity_id(entity, ws) if entity else None, **options)

    def rebuild_communities(self, workspace: str | None = None) -> Any:
        return self._mem.rebuild_communities(self._write_ws(workspace))

    # -- moving data: within the scope ---------------------------------------------------
    def export(self) -> Iterator[dict[str, Any]]:
        """The memories this caller reads, with the links whose both ends it reads."""
        return self._mem.export(self.scope.readable())

    def import_records(self, records: Iterable[Any], on_progress: Any = None) -> Any:
        """An import whose every record is of a workspace this caller writes, and whose links end in the
        import or at memories it reads (else nothing is written).

        A record whose id is stored already is skipped by the service, so it is no end of the import's: a
        link to it must find a memory this caller reads. Each link is written as :meth:`link` writes one,
        in the workspace of its workspace end, which this caller must write (a link that names none is
        given it; one that names another is refused)."""
        self._writer()
        listed = list(records)
        home: dict[str, str | None] = {}
        links: list[tuple[int, Mapping[str, Any], str, str]] = []
        for index, record in enumerate(listed):
            if not isinstance(record, Mapping):
                continue  # the service says what is wrong with it
            if "record" in record:
                # The knowledge graph: each entity, fact or community of a workspace this caller writes. A queue
                # item names no workspace: it is written only with its memory, whose workspace is checked.
                if record.get("record") not in ("graph", "extraction"):
                    self._write_ws(record.get("workspace"), f"record {index + 1}: workspace")
                continue
            home[_ref(record.get("id"))] = self._write_ws(record.get("workspace"), f"record {index + 1}: workspace")
            found = record.get("links")
            for link in found if isinstance(found, list) else []:
                if isinstance(link, Mapping):
                    links.append((index, link, _ref(link.get("from")), _ref(link.get("to"))))
        stored = self._mem.store.memory_briefs(list({*home, *(e for _, _, a, b in links for e in (a, b))}))
        fresh = {mid: ws for mid, ws in home.items() if mid not in stored}
        where = {mid: brief.workspace for mid, brief in stored.items() if self.scope.reads(brief.workspace)} | fresh
        for index, link, start, end in links:
            for ref in (start, end):
                if ref not in where:
                    raise NotFound("memory", ref)
            field = f"record {index + 1}: links"
            belongs = self._write_ws(where[start] or where[end], field)
            if link.get("workspace") is not None and rules.workspace(link["workspace"]) != belongs:
                raise Refused(field, f"a link between these memories is stored in {belongs or GLOBAL}, not {link['workspace']!r}")
        return self._mem.import_records([_homed(r, where) for r in listed], on_progress)

    # -- the owner's ------------------------------------------------------------------

    def stats(self) -> Any:
        if self.scope.workspaces is not None:  # a read of the whole store: a scope of every workspace may
            self._owner("stats of the whole store")
        return self._mem.stats()

    def extraction_status(self, **options: Any) -> Any:
        if self.scope.workspaces is not None:
            self._owner("the extraction queue")
        return self._mem.extraction_status(**options)

    def extract_pending(self, **options: Any) -> Any:
        self._owner("the extraction queue")

    def prune(self) -> Any:
        self._owner("prune")

    def reembed(self, on_progress: Any = None) -> int:
        self._owner("reembed")

    def __getattr__(self, name: str) -> Any:
        # Anything not listed above is the owner's: say so instead of running it unscoped.
        if name.startswith("_"):
            raise AttributeError(name)
        raise Refused("token", f"{name} is for an unrestricted caller (every workspace, read and write)")
