"""The service as a running server offers it: the calls the CLI makes, over the REST API, typed both ways.

:class:`RemoteKnotwork` answers the :class:`~knotwork.service.Knotwork` methods
the memory commands of the CLI use (add, get, list, search, history, update,
delete) and the two lookups the :class:`~knotwork.render.respond.Responder`
makes (``relations``, ``short_ids``). It sends JSON and reads JSON back into
the domain's own types (:class:`Memory`, :class:`Hit`, :class:`Page`), so the
CLI renders a server's answer exactly as it renders its own. A server's error
comes back as the :mod:`knotwork.errors` exception it was raised as (its JSON
``type``), never recognised from text; the server's scope rules (its token,
``serve -w``) apply to every call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import quote as quote_url
from urllib.parse import urlencode
from urllib.request import Request, urlopen

from knotwork.adapters.remote import Server
from knotwork.config import Settings
from knotwork.domain.models import Hit, Memory, Page
from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, InvalidInput, KnotworkError, NotFound
from knotwork.services.links import MetaRelation

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


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class RemoteKnotwork:
    """The memory calls of :class:`~knotwork.service.Knotwork`, answered by the server at ``server.url``."""

    def __init__(self, server: Server, settings: Settings) -> None:
        self.server = server
        self.settings = settings

    def __enter__(self) -> RemoteKnotwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is held between calls: each is one HTTP request."""

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None, query: dict[str, Any] | None = None) -> Any:
        params = urlencode({**(query or {}), "format": "json"}, doseq=True)
        headers = {"accept": "application/json", "content-type": "application/json"}
        if self.server.token:
            headers["authorization"] = f"Bearer {self.server.token}"
        data = json.dumps(body).encode() if body is not None else None
        request = Request(f"{self.server.url}{path}?{params}", data=data, headers=headers, method=method)
        try:
            with urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310 - the URL is the server's (http/https)
                return json.loads(answer.read())
        except HTTPError as exc:
            try:
                payload = json.loads(exc.read())
            except ValueError:
                payload = None
            raise error_from(exc.code, payload, self.server.url) from None
        except (URLError, OSError) as exc:
            raise BackendUnavailable(f"server at {self.server.url} did not answer: {getattr(exc, 'reason', exc)}") from None
        except ValueError:
            raise BackendUnavailable(f"server at {self.server.url}: the answer is not JSON") from None

    @staticmethod
    def _id(ref: str) -> str:
        return quote_url(ref, safe="")

    # -- the memory calls ----------------------------------------------------------
    def add(self, content: str, **fields: Any) -> Memory:
        return _memory(self._call("POST", "/memories", {"content": content, **_drop_none(fields)}))

    def get(self, id: str) -> Memory:
        return Memory.from_dict(self._call("GET", f"/memories/{self._id(id)}"))

    def list(self, **filters: Any) -> Page:
        query = _drop_none(filters)
        if "tags" in query:
            query["tag"] = query.pop("tags")
        answer = self._call("GET", "/memories", query=query)
        return Page([Memory.from_dict(m) for m in answer["memories"]], answer.get("next_cursor"))

    def search(self, query: str, **options: Any) -> list[Hit]:
        answer = self._call("POST", "/search", {"query": query, **_drop_none(options)})
        return [Hit(Memory.from_dict(h["memory"]), float(h["score"]), h.get("explain")) for h in answer["hits"]]

    def history(self, id: str) -> list[Memory]:
        return [Memory.from_dict(m) for m in self._call("GET", f"/memories/{self._id(id)}/history")["versions"]]

    def update(self, id: str, **changes: Any) -> Memory:
        return Memory.from_dict(self._call("PATCH", f"/memories/{self._id(id)}", changes))

    def delete(self, id: str) -> Memory:
        return Memory.from_dict(self._call("DELETE", f"/memories/{self._id(id)}"))

    # -- what the Responder looks up -----------------------------------------------
    def relations(self, ids: list[str]) -> dict[str, list[MetaRelation]]:
        if not ids:
            return {}
        answer = self._call("GET", "/relations", query={"id": list(ids)})
        return {mid: [MetaRelation(**r) for r in rels] for mid, rels in answer.items()}

    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]:
        """Full ids: the REST API has no short-id lookup, and a full id always resolves."""
        return {}
