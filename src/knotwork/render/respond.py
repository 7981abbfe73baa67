"""The adapters' one way to answer: gather what a renderer needs, render safely, count tokens.

``Responder(mem)`` is built once per adapter. Calling it with an operation
and the service's result:

1. looks up what the result alone does not hold: short ids of every memory
   it shows (compact text only) and, for ``search``, each hit's
   meta-relations (``mem.relations``) unless ``relation_detail="none"``;
2. renders with :func:`render_safe` (a failing or slow text renderer falls
   back to JSON);
3. when metrics are on (``KNOTWORK_METRICS_FILE``, or ``metrics=`` given),
   records the token counts of the full JSON and of what was sent.
"""

from __future__ import annotations

import copy
from dataclasses import replace
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from knotwork import tokens
from knotwork.domain.models import Graph, Hit, Memory, Related, Relationship
from knotwork.errors import WORKSPACE_ARG, KnotworkError
from knotwork.render import compact
from knotwork.render.core import View, render_safe, to_json
from knotwork.metrics import CallMetrics, MetricsLog
from knotwork.render.relations import DEFAULT_DETAIL, check_detail, targets
from knotwork.render.status import backlog_note

if TYPE_CHECKING:
    from knotwork.config import Settings

#: Answers read from the knowledge graph: they say when some memories are not read into it yet.
GRAPH_ANSWERS = frozenset({"search_nodes", "search_facts", "facts", "episodes", "entity", "communities"})


class Answering(Protocol):
    """What a :class:`Responder` asks of the service it answers for: the ``Knotwork`` facade, one caller's
    view of it (views/access.py) or a running server's (adapters/client.py). Rendering needs no more of it."""

    settings: Settings

    def short_ids(self, memory_ids: Iterable[str]) -> dict[str, str]: ...

    def relations(self, ids: list[str]) -> dict[str, list[Any]]: ...

    def graph_backlog(self) -> int: ...


class Responder:
    """Turns service results into what an adapter sends (see the module docstring)."""

    def __init__(self, mem: Answering, metrics: MetricsLog | None = None, workspace_arg: str = WORKSPACE_ARG) -> None:
        self.mem = mem
        self.workspace_arg = workspace_arg  # how this surface passes a workspace: a miss says which to pass
        path = mem.settings.metrics_file
        self.metrics = metrics if metrics is not None else (MetricsLog(path) if path else None)
        if self.metrics is not None:  # load the tokenizer's tables now, not during the first call
            threading.Thread(target=tokens.warm, daemon=True).start()

    def __call__(self, operation: str, result: Any, fmt: str = "compact", *, relation_detail: str = DEFAULT_DETAIL) -> str:
        started = time.perf_counter()
        detail = check_detail(relation_detail)
        relations = self._relations(operation, result, detail)
        short = self.mem.short_ids(_shown_ids(result, relations)) if fmt != "json" else {}
        view = View(short=short, relations=relations, detail=detail, workspace_arg=self.workspace_arg)
        rendered = render_safe(operation, result, fmt, view)
        if operation in GRAPH_ANSWERS and rendered.fmt != "json":
            # Trigger: memories stored but not yet read into the graph (enrichment runs after the add). Why: an
            # agent that finds no fact should know whether the graph has caught up. Outcome: one line saying so.
            waiting = self.mem.graph_backlog()
            if waiting:
                rendered = replace(rendered, text=f"{rendered.text}\n{backlog_note(waiting)}")
        if self.metrics is not None:
            took = (time.perf_counter() - started) * 1000  # lookups and formatting; not the counting below
            full = to_json(operation, result, View(relations=relations, detail="full", now=view.now))
            self.metrics.record(CallMetrics.measure(operation, full, rendered.text, rendered.fmt, detail, took, rendered.fallback))
        return rendered.text

    def as_caller(self, mem: Answering) -> Responder:
        """This responder (its metrics log too) looking up short ids and relations through ``mem``: the
        service as one caller may use it (:mod:`knotwork.views.access`)."""
        other = copy.copy(self)
        other.mem = mem
        return other

    def failure(self, operation: str, exc: KnotworkError) -> str:
        """The text of a write that did not happen: ``✗ Delete failed: <reason>``."""
        return compact.failed(operation, str(exc))

    def _relations(self, operation: str, result: Any, detail: str) -> dict[str, list]:
        if operation != "search" or (detail == "none" and self.metrics is None):
            return {}
        ids = [h.memory.id for h in result if isinstance(h, Hit)]
        try:
            return self.mem.relations(ids)
        except KnotworkError:
            # A hit deleted by another process since the search: keep the others' relations.
            out: dict[str, list] = {}
            for mid in ids:
                try:
                    out.update(self.mem.relations([mid]))
                except KnotworkError:
                    continue
            return out


def _shown_ids(result: Any, relations: dict[str, list]) -> list[str]:
    """Every memory id a compact rendering of ``result`` shows, so each gets its short id."""
    out: list[str] = []
    for rels in relations.values():
        out += targets(rels)
    if isinstance(result, Graph):
        return [result.center, *(m.id for m in result.nodes), *out]
    if isinstance(result, Relationship):
        return [result.from_id, result.to_id]
    items: Iterable[Any] = result if isinstance(result, list) else result.keys() if isinstance(result, dict) else []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Hit):
            out.append(item.memory.id)
        elif isinstance(item, Memory):
            out.append(item.id)
        elif isinstance(item, Related):
            out += [item.memory.id, item.relationship.from_id, item.relationship.to_id]
        elif isinstance(item, Relationship):
            out += [item.from_id, item.to_id]
        elif isinstance(getattr(item, "ids", None), list):  # a group of near-duplicates
            out += item.ids
    return out
