"""The service as a running server offers it: the calls the CLI makes, over the REST API, typed both ways.

:class:`RemoteKnotwork` answers the :class:`~knotwork.service.Knotwork` methods
the CLI's commands use when a server answers (add, get, list, search, history,
update, delete; link, unlink, related, graph; recall, status, stats; export,
import) and the two lookups the :class:`~knotwork.render.respond.Responder`
makes (``relations``, ``short_ids``); the knowledge-graph commands (entities,
facts, episodes, communities, the LLM extraction queue) and the hygiene ones
with REST routes (duplicates, merge, prune) too: every operation of
:class:`~knotwork.service_api.ServiceApi`, among them the batch add, one fact,
the relationships of a workspace or of one memory, and ``reembed``. It sends JSON and reads JSON
back into the domain's own types (:class:`Memory`, :class:`Hit`, :class:`Page`), so the
CLI renders a server's answer exactly as it renders its own. A server's error
comes back as the :mod:`knotwork.errors` exception it was raised as (its JSON
``type``), never recognised from text; the server's scope rules (its token,
``serve -w``) apply to every call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import quote as quote_url
from urllib.parse import urlencode
from urllib.request import Request, urlopen

from knotwork.adapters.remote import Server
from knotwork.config import Settings
from knotwork.domain.models import ALL_WORKSPACES, Graph, Hit, Hits, ImportReport, Memory, MemoryBrief, MetaRelation, Page, Related, Relationship
from knotwork.domain.temporal import from_text
from knotwork.knowledge.models import (
    ClearReport, Community, Entity, Episode, ExtractionReport, ExtractionStatus, Fact, FactHit, Found, NodeHit, QueueItem,
)
from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, Forbidden, InvalidInput, KnotworkError, NotFound

_EPOCH = from_text("1970-01-01T00:00:00Z")
TIMEOUT_S = 120.0  # an add or a search on a busy server; a server that does not answer at all fails at connect


def _instance(cls: type[KnotworkError], message: str, **attrs: Any) -> KnotworkError:
    """An exception of ``cls`` carrying the server's message as it was (its constructor would word it again)."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(attrs)
    return exc


def error_from(status: int, body: Any, base: str) -> KnotworkError:
    """The :mod:`knotwork.errors` exception a server's error answer stands for (adapters/http/errors.py)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return BackendUnavailable(f"server at {base} answered HTTP {status} without a knotwork error")
    kind, message = str(error.get("type", "")), str(error.get("message", ""))
    if kind in ("invalid_input", "invalid_request"):
        field = str(error.get("field") or "request")
        problem = message[len(field) + 2:] if message.startswith(f"{field}: ") else message
        return InvalidInput(field, problem)
    if kind == "forbidden" and status == 403:
        field = str(error.get("field") or "request")
        problem = message[len(field) + 2:] if message.startswith(f"{field}: ") else message
        return Forbidden(field, problem)
    if kind == "ambiguous_id":
        candidates = list(error.get("candidates") or [])
        return _instance(AmbiguousId, message, candidates=candidates, total=len(candidates))
    if kind == "not_found" and status == 404 and "candidates" not in error:
        if isinstance(error.get("record"), str) and isinstance(error.get("ref"), str):
            elsewhere = error.get("elsewhere") if isinstance(error.get("elsewhere"), dict) else {}
            return NotFound(error["record"], error["ref"], by=str(error.get("by") or "id"), elsewhere=elsewhere)
        return _instance(NotFound, message)
    if kind == "conflict":
        return Conflict(message)
    if kind == "unauthorized":
        return BackendUnavailable(f"server at {base} refused the call: {message} (KNOTWORK_API_TOKEN)")
    if kind == "backend_unavailable":
        return BackendUnavailable(message)
    return _instance(KnotworkError, message)


def _memory(d: dict[str, Any]) -> Memory:
    """A memory from its JSON form, with what ``add`` decided when the answer says."""
    m = Memory.from_dict(d)
    if d.get("duplicate"):
        return m.with_duplicate()
    if "decision" in d:
        return m.decided(d["decision"], d.get("touched"), d.get("reason"))
    return m


def _relationship(d: dict[str, Any]) -> Relationship:
    """A relationship from its JSON form (``Relationship.to_dict``, with ``existing`` when a link answers)."""
    return Relationship(d["id"], d["from"], d["to"], d["type"], d.get("workspace"), from_text(d["created_at"]),
                        d.get("metadata") or {}, existing=bool(d.get("existing", False)))


def _brief(d: dict[str, Any]) -> MemoryBrief:
    invalid = d.get("invalid_at")
    return MemoryBrief(d["id"], d["content"], d.get("workspace"), d.get("category"), float(d["importance"]),
                       from_text(d["valid_at"]), from_text(invalid) if invalid else None)


def _time(value: str | None) -> Any:
    return from_text(value) if value else None


def _entity(d: dict[str, Any]) -> Entity:
    return Entity(d["id"], d.get("workspace"), d["name"], d.get("type"), d.get("summary") or "", from_text(d["created_at"]),
                  from_text(d["updated_at"]), tuple(d.get("aliases") or ()), int(d.get("mentions") or 0))


def _fact(d: dict[str, Any]) -> Fact:
    return Fact(d["id"], d.get("workspace"), d["subject"]["id"], d["subject"]["name"], d["predicate"], d["object"]["id"],
                d["object"]["name"], d["fact"], _time(d.get("valid_at")), _time(d.get("invalid_at")),
                from_text(d["created_at"]), _time(d.get("expired_at")), d.get("superseded_by"), d["extractor"],
                tuple(d.get("sources") or ()), float(d.get("confidence", 1.0)))


def _community(d: dict[str, Any]) -> Community:
    return Community(d["id"], d.get("workspace"), d["name"], d.get("summary") or "", tuple(d.get("members") or ()))


def _node_hit(d: dict[str, Any]) -> NodeHit:
    group = d.get("community")
    community = Community(group["id"], None, group["name"], "", ()) if group else None  # members are not sent
    return NodeHit(_entity(d["entity"]), float(d["score"]), d.get("distance"), community)


def _episode(d: dict[str, Any]) -> Episode:
    return Episode(d["memory_id"], d.get("workspace"), d["content"], from_text(d["valid_at"]), from_text(d["created_at"]),
                   tuple(d.get("entities") or ()), int(d.get("facts") or 0), d.get("extraction"))


def _graph(d: dict[str, Any]) -> Graph:
    """A graph from its JSON form (``Graph.to_dict``), which names of each node what every drawing of it shows:
    id, depth, category and content. The brief's other fields are not sent and are left empty (no workspace,
    importance 0, valid since the epoch): nothing that renders a graph reads them."""
    nodes = [MemoryBrief(n["id"], n["content"], None, n.get("category"), 0.0, _EPOCH, None) for n in d["nodes"]]
    return Graph(d["center"], nodes, {n["id"]: int(n["depth"]) for n in d["nodes"]},
                 [_relationship(e) for e in d["edges"]], bool(d["truncated"]))


def _queue_item(d: dict[str, Any]) -> QueueItem:
    return QueueItem(d["memory_id"], d["status"], int(d["attempts"]), d.get("last_error"), from_text(d["enqueued_at"]),
                     from_text(d["updated_at"]), _time(d.get("available_at")))


def _section(d: dict[str, Any]) -> Any:
    """A recall's section from its JSON form. Its entries all come from memories (one id each, in order) or
    none does (services/recall.py builds them so); an answer that mixes them is not one this client reads."""
    from knotwork.services.recall import Entry, Section

    texts, ids = list(d["entries"]), list(d["memory_ids"])
    if ids and len(ids) != len(texts):
        raise BackendUnavailable(f"recall section {d.get('name')!r}: {len(ids)} memory ids for {len(texts)} entries")
    return Section(d["name"], d["title"], tuple(Entry(t, ids[i] if ids else None) for i, t in enumerate(texts)), int(d["tokens"]))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class RemoteKnotwork:
    """The memory calls of :class:`~knotwork.service.Knotwork`, answered by the server at ``server.url``."""

    #: Its searches and lookups come back with the other workspaces to look in already named, by the server
    #: within its scope (views/elsewhere.py asks no further).
    names_elsewhere = True

    def __init__(self, server: Server, settings: Settings) -> None:
        self.server = server
        self.settings = settings

    def __enter__(self) -> RemoteKnotwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is held between calls: each is one HTTP request."""

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None, query: dict[str, Any] | None = None,
              *, lines: bytes | None = None) -> Any:
        """The server's JSON answer to one request: ``body`` as JSON, or ``lines`` as JSON lines."""
        data = lines if lines is not None else json.dumps(body).encode() if body is not None else None
        kind = "application/x-ndjson" if lines is not None else "application/json"
        with self._open(method, path, data, query, kind) as answer:
            try:
                return json.loads(answer.read())
            except ValueError:
                raise BackendUnavailable(f"server at {self.server.url}: the answer is not JSON") from None

    def _open(self, method: str, path: str, data: bytes | None, query: dict[str, Any] | None, content_type: str) -> Any:
        """The server's answer, open for reading (a context manager); its errors raised as knotwork errors."""
        params = urlencode({**(query or {}), "format": "json"}, doseq=True)
        headers = {"accept": "application/json", "content-type": content_type}
        if self.server.token:
            headers["authorization"] = f"Bearer {self.server.token}"
        request = Request(f"{self.server.url}{path}?{params}", data=data, headers=headers, method=method)
        try:
            return urlopen(request, timeout=TIMEOUT_S)  # noqa: S310 - the URL is the server's (http/https)
        except HTTPError as exc:
            try:
                payload = json.loads(exc.read())
            except ValueError:
                payload = None
            raise error_from(exc.code, payload, self.server.url) from None
        except (URLError, OSError) as exc:
            raise BackendUnavailable(f"server at {self.server.url} did not answer: {getattr(exc, 'reason', exc)}") from None

    @staticmethod
    def _id(ref: str) -> str:
        return quote_url(ref, safe="")

    # -- the memory calls ----------------------------------------------------------
    def add(self, content: str, **fields: Any) -> Memory:
        return _memory(self._call("POST", "/memories", {"content": content, **_drop_none(fields)}))

    def add_many(self, items: Iterable[Mapping[str, Any]], *, consolidate: bool = True, force: bool = False) -> list[Memory]:
        """One request: the server decides every item as ``add`` does, then stores all of them or none."""
        body = {"items": [dict(i) if isinstance(i, Mapping) else i for i in items], "consolidate": consolidate, "force": force}
        return [_memory(m) for m in self._call("POST", "/memories/batch", body)["memories"]]

    def get(self, id: str) -> Memory:
        return Memory.from_dict(self._call("GET", f"/memories/{self._id(id)}"))

    def list(self, **filters: Any) -> Page:
        query = _drop_none(filters)
        if "tags" in query:
            query["tag"] = query.pop("tags")
        answer = self._call("GET", "/memories", query=query)
        return Page([Memory.from_dict(m) for m in answer["memories"]], answer.get("next_cursor"), answer.get("unknown_workspace"),
                    answer.get("elsewhere"))

    def search(self, query: str, **options: Any) -> list[Hit]:
        answer = self._call("POST", "/search", {"query": query, **_drop_none(options)})
        hits = [Hit(Memory.from_dict(h["memory"]), float(h["score"]), h.get("explain")) for h in answer["hits"]]
        return Hits(hits, answer.get("elsewhere"), answer.get("unknown_workspace"))

    def history(self, id: str) -> list[Memory]:
        return [Memory.from_dict(m) for m in self._call("GET", f"/memories/{self._id(id)}/history")["versions"]]

    def update(self, id: str, **changes: Any) -> Memory:
        return Memory.from_dict(self._call("PATCH", f"/memories/{self._id(id)}", changes))

    def delete(self, id: str) -> Memory:
        return Memory.from_dict(self._call("DELETE", f"/memories/{self._id(id)}"))

    # -- links -----------------------------------------------------------------------
    def link(self, from_id: str, to_id: str, type: str, metadata: dict[str, Any] | None = None) -> Relationship:
        body = {"from_id": from_id, "to_id": to_id, "type": type, "metadata": metadata}
        return _relationship(self._call("POST", "/links", _drop_none(body)))

    def unlink(self, relationship_id: str) -> Relationship:
        return _relationship(self._call("DELETE", f"/links/{self._id(relationship_id)}"))

    def list_links(self, workspace: str | None = ALL_WORKSPACES) -> list[Relationship]:
        """The relationships of ``workspace`` (``*``: every one the server's caller reads; None: the server's
        default workspace, as every call that names none)."""
        answer = self._call("GET", "/relationships", query=_drop_none({"workspace": workspace}))
        return [_relationship(r) for r in answer["relationships"]]

    def relationships(self, id: str, direction: str = "both", types: list[str] | None = None) -> list[Relationship]:
        query = _drop_none({"direction": direction, "type": types})
        return [_relationship(r) for r in self._call("GET", f"/memories/{self._id(id)}/relationships", query=query)["relationships"]]

    def related(self, id: str, types: list[str] | None = None, depth: int = 1, direction: str = "both") -> list[Related]:
        query = _drop_none({"type": types, "depth": depth, "direction": direction})
        answer = self._call("GET", f"/memories/{self._id(id)}/related", query=query)
        return [Related(_brief(r["memory"]), _relationship(r["relationship"]), int(r["depth"])) for r in answer["related"]]

    def graph(self, id: str, max_depth: int = 2, max_nodes: int = 50) -> Graph:
        query = {"max_depth": max_depth, "max_nodes": max_nodes}
        return _graph(self._call("GET", f"/memories/{self._id(id)}/graph", query=query))

    # -- the knowledge graph -------------------------------------------------------------
    def search_nodes(self, query: str, center: str | None = None, limit: int = 10, *, workspace: str | None = None) -> Found:
        body = _drop_none({"query": query, "center": center, "limit": limit, "workspace": workspace})
        answer = self._call("POST", "/search/entities", body)
        return Found([_node_hit(h) for h in answer["entities"]], answer.get("query") or query, answer.get("elsewhere"))

    def search_facts(self, query: str, center: str | None = None, limit: int = 10, as_of: Any = None,
                     include_invalid: bool = False, *, workspace: str | None = None,
                     min_confidence: float | None = None) -> Found:
        body = _drop_none({"query": query, "center": center, "limit": limit, "as_of": as_of, "include_invalid": include_invalid,
                           "workspace": workspace, "min_confidence": min_confidence})
        answer = self._call("POST", "/search/facts", body)
        return Found([FactHit(_fact(h["fact"]), float(h["score"]), h.get("distance")) for h in answer["facts"]],
                     answer.get("query") or query, answer.get("elsewhere"), answer.get("less_sure") or 0)

    def episodes(self, *, workspace: str | None = None, limit: int = 20, query: str | None = None) -> list[Episode]:
        answer = self._call("GET", "/episodes", query=_drop_none({"workspace": workspace, "limit": limit, "query": query}))
        return [_episode(e) for e in answer["episodes"]]

    def entity(self, ref: str, *, workspace: str | None = None) -> Entity:
        return _entity(self._call("GET", f"/entities/{self._id(ref)}", query=_drop_none({"workspace": workspace})))

    def entity_facts(self, ref: str, *, workspace: str | None = None, as_of: Any = None, include_invalid: bool = False,
                     min_confidence: float | None = None) -> list[Fact]:
        query = _drop_none({"workspace": workspace, "as_of": as_of, "include_invalid": _flag(include_invalid),
                            "min_confidence": min_confidence})
        return [_fact(f) for f in self._call("GET", f"/entities/{self._id(ref)}/facts", query=query)["facts"]]

    def fact(self, id: str) -> Fact:
        return _fact(self._call("GET", f"/facts/{self._id(id)}"))

    def delete_fact(self, id: str) -> Fact:
        return _fact(self._call("DELETE", f"/facts/{self._id(id)}"))

    def clear_graph(self, workspace: str | None, confirm: bool = True) -> ClearReport:
        answer = self._call("DELETE", "/graph", query=_drop_none({"workspace": workspace, "confirm": _flag(confirm)}))
        return ClearReport(answer.get("workspace"), int(answer["entities"]), int(answer["facts"]))

    def merge_entities(self, a: str, b: str, *, workspace: str | None = None) -> Entity:
        return _entity(self._call("POST", "/entities/merge", _drop_none({"a": a, "b": b, "workspace": workspace})))

    def communities(self, *, workspace: str | None = None, entity: str | None = None, limit: int = 20) -> list[Community]:
        answer = self._call("GET", "/communities", query=_drop_none({"workspace": workspace, "entity": entity, "limit": limit}))
        return [_community(c) for c in answer["communities"]]

    def rebuild_communities(self, workspace: str | None = None) -> list[Community]:
        answer = self._call("POST", "/communities/rebuild", query=_drop_none({"workspace": workspace}))
        return [_community(c) for c in answer["communities"]]

    def graph_backlog(self, within: Any = None) -> int:
        """Memories of the caller's workspaces the server has not yet read into the graph."""
        waiting = self._call("GET", "/status")["graph_backlog"]
        return int(waiting["pending"]) + int(waiting["running"])

    def extraction_status(self, *, status: str | None = None, limit: int = 50) -> ExtractionStatus:
        answer = self._call("GET", "/extraction", query=_drop_none({"status": status, "limit": limit}))
        return ExtractionStatus(bool(answer["enabled"]), dict(answer["counts"]), tuple(_queue_item(q) for q in answer["items"]))

    def extract_pending(self, *, limit: int | None = None, retry_failed: bool = False) -> ExtractionReport:
        """The server drains its LLM extraction queue (``KNOTWORK_KG_LLM_URL`` as the server has it)."""
        answer = self._call("POST", "/extraction/run", _drop_none({"limit": limit, "retry_failed": retry_failed}))
        return ExtractionReport(int(answer["done"]), int(answer["retrying"]), int(answer["failed"]), dict(answer["remaining"]))

    # -- hygiene -----------------------------------------------------------------------
    def find_duplicates(self, threshold: float = 0.95, *, workspace: str | None = None, agent_id: str | None = "*",
                        limit: int = 50) -> list[Any]:
        from knotwork.services.hygiene import DuplicateGroup

        query = _drop_none({"threshold": threshold, "workspace": workspace, "agent_id": agent_id, "limit": limit})
        return [DuplicateGroup(g["ids"], float(g["score"]), g.get("workspace"), g.get("agent_id"), g["previews"])
                for g in self._call("GET", "/duplicates", query=query)["groups"]]

    def merge(self, ids: list[str]) -> Any:
        from knotwork.services.hygiene import MergeReport

        answer = self._call("POST", "/merge", {"ids": list(ids)})
        return MergeReport(answer["kept"], list(answer["merged"]))

    def prune(self) -> Any:
        from knotwork.services.hygiene import PruneReport

        answer = self._call("POST", "/prune")
        return PruneReport(int(answer["expired"]), int(answer["snapshots"]), from_text(answer["at"]))

    # -- the store's state -----------------------------------------------------------
    def recall(self, context: str = "startup", *, workspace: str | None = None, query: str | None = None,
               budget_tokens: int = 1500, sections: list[str] | None = None) -> Any:
        """The server's ambient recall, timed and scoped by the server (its token, ``serve -w``)."""
        from knotwork.services.recall import Recall

        body = _drop_none({"context": context, "workspace": workspace, "query": query, "budget_tokens": budget_tokens,
                           "sections": sections})
        answer = self._call("POST", "/tools/ambient_recall", body)
        return Recall(answer["text"], tuple(_section(s) for s in answer["sections"]), int(answer["tokens"]),
                      int(answer["budget_tokens"]), float(answer["latency_ms"]), answer["context"], answer.get("workspace"),
                      answer.get("query"), bool(answer["focus"]))

    def status(self) -> Any:
        from knotwork.services.status import Status

        return Status(**self._call("GET", "/status"))

    def stats(self) -> Any:
        from knotwork.services.status import Stats

        return Stats(**self._call("GET", "/stats"))

    # -- moving data -------------------------------------------------------------------
    def export(self) -> Iterator[dict[str, Any]]:
        """The server's export, one record per line as it streams in."""
        with self._open("GET", "/export", None, None, "application/json") as answer:
            for line in answer:
                if line.strip():
                    yield json.loads(line)

    def import_records(self, records: Iterable[Any], on_progress: Any = None) -> ImportReport:
        """One request: the server checks every record, then writes all of them or none."""
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
        answer = self._call("POST", "/import", lines=body)
        report = ImportReport(int(answer["added"]), int(answer["skipped"]))
        if on_progress:
            on_progress(report.added + report.skipped)
        return report

    def reembed(self, on_progress: Callable[[int], object] | None = None) -> int:
        """The server rebuilds every vector with its embedder (the owner's call: a scoped token is refused);
        ``on_progress`` hears of them all at once, when the answer comes."""
        done = int(self._call("POST", "/reembed")["embedded"])
        if on_progress:
            on_progress(done)
        return done

    # -- what the Responder looks up -----------------------------------------------
    def relations(self, ids: list[str]) -> dict[str, list[MetaRelation]]:
        if not ids:
            return {}
        answer = self._call("GET", "/relations", query={"id": list(ids)})
        return {mid: [MetaRelation(**r) for r in rels] for mid, rels in answer.items()}

    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """The server's short ids, as in-process (ids the server's scope does not show stay full)."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        return dict(self._call("GET", "/short_ids", query={"id": ids}))
