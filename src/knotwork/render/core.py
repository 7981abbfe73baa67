"""Dispatch from (operation, result, format) to a renderer, and the never-fail wrapper.

Each operation registers one text renderer and, optionally, one JSON
renderer (the default JSON is ``jsonform.to_jsonable``, which falls back to a
result's ``to_dict()``)::

    register("search_nodes", knowledge.nodes, knowledge.nodes_json)
    register_all(knowledge.RENDERERS, knowledge.to_jsonable)   # a module's whole table

A renderer is ``fn(result, view) -> str`` (text) or ``fn(result, view) ->
JSON-ready value`` (JSON), or takes the result alone. ``view`` carries what
the result does not hold: short ids, relations, the relation detail and
"now" for relative times.

:func:`render_safe` is what adapters use (through ``Responder``): a text
renderer that raises or runs past its budget (:data:`BUDGET_MS` of CPU time,
at most :data:`WALL_CAP_MS` of wall time) is replaced by the JSON form, and a log record says which operation, how big the input was, what
went wrong, how long it took and that JSON was sent instead.
"""

from __future__ import annotations

import inspect
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from knotwork.render.jsonform import to_jsonable
from knotwork.render.relations import check_detail
from knotwork.render.view import View

log = logging.getLogger("knotwork.render")

FORMATS = ("compact", "json")
# A text renderer's budget is CPU time on its own thread, so a busy machine (other processes
# taking the cores) does not trip it; WALL_CAP_MS bounds a renderer that waits instead of working.
BUDGET_MS = 100.0  # a text renderer using more CPU than this is abandoned for the JSON form
WARN_MS = 50.0  # more than this is logged as a warning
WALL_CAP_MS = 1000.0
_SLICE_S = 0.005


TextRenderer = Callable[[Any, View], str]
JsonRenderer = Callable[[Any, View], Any]


@dataclass(frozen=True, slots=True)
class Renderer:
    text: TextRenderer
    json: JsonRenderer | None = None


RENDERERS: dict[str, Renderer] = {}
DRAWINGS: dict[str, Callable[[Any], str]] = {}


def register(operation: str, text: Callable[..., str], json_form: Callable[..., Any] | None = None) -> None:
    """Make ``operation`` renderable: ``text`` for compact, ``json_form`` for JSON (default: the generic form).

    Either may take ``(result, view)`` or just ``(result)``.
    """
    RENDERERS[operation] = Renderer(_with_view(text), _with_view(json_form) if json_form else None)


def register_all(renderers: Mapping[str, Callable[..., str]], to_jsonable: Callable[[str, Any], Any] | None = None) -> None:
    """Register a module's ``{operation: text renderer}`` and its ``to_jsonable(operation, result)``, if any.

    Without ``to_jsonable`` a result's JSON is its ``to_dict()`` (see :func:`to_json`).
    """
    for operation, text in renderers.items():
        json_form = (lambda result, view, op=operation: to_jsonable(op, result)) if to_jsonable else None
        register(operation, text, json_form)


def _with_view(fn: Callable[..., Any]) -> Callable[[Any, View], Any]:
    """``fn`` as ``(result, view)``: renderers that need no view may take the result alone."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):  # a builtin without a signature: call it with the result only
        params = []
    if len(params) >= 2:
        return fn
    return lambda result, view: fn(result)


def to_json(operation: str, result: Any, view: View | None = None) -> str:
    """The JSON form of ``result``: one line, UTF-8 kept, keys as documented in docs/formats.md."""
    view = view or View()
    entry = RENDERERS.get(operation)
    value = entry.json(result, view) if entry and entry.json else to_jsonable(operation, result, view)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_fallback_value)


def render(
    operation: str, result: Any, fmt: str = "compact", view: View | None = None, *, relation_detail: str | None = None
) -> str:
    """Text for ``result`` of ``operation`` in ``fmt`` ("compact" or "json"; graphs also "dot", "mermaid").

    ``relation_detail`` (none, minimal, standard, full) overrides ``view.detail`` for search hits.
    """
    view = view or View()
    if relation_detail is not None:
        view = replace(view, detail=check_detail(relation_detail))
    if fmt == "json":
        return to_json(operation, result, view)
    if operation == "graph" and fmt in DRAWINGS:
        return DRAWINGS[fmt](result)
    if fmt != "compact":
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if operation not in RENDERERS:
        raise KeyError(f"no text renderer for {operation!r}")
    return RENDERERS[operation].text(result, view)


@dataclass(frozen=True, slots=True)
class Rendered:
    """What was sent: the text, its format, how long rendering took, and the error that forced JSON (if any)."""

    text: str
    fmt: str
    ms: float
    fallback: str | None = None


def render_safe(
    operation: str,
    result: Any,
    fmt: str = "compact",
    view: View | None = None,
    *,
    budget_ms: float = BUDGET_MS,
    wall_cap_ms: float = WALL_CAP_MS,
) -> Rendered:
    """Like :func:`render`, but formatting never fails a call: on error or over budget the JSON form is sent."""
    view = view or View()
    started = time.perf_counter()
    if fmt == "json":
        return Rendered(to_json(operation, result, view), "json", _ms(started))
    # The text renderer runs on a daemon thread, so a runaway one can be abandoned at the
    # budget without holding up the answer, or the process's exit.
    box: dict[str, Any] = {}

    def work() -> None:
        box["clock"] = _own_cpu_clock()
        begun = time.thread_time()
        try:
            box["text"] = render(operation, result, fmt, view)
        except BaseException as exc:  # noqa: BLE001 - any formatter bug must end in JSON, not a failed call
            box["error"] = exc
        box["cpu_ms"] = (time.thread_time() - begun) * 1000

    worker = threading.Thread(target=work, name=f"knotwork-render-{operation}", daemon=True)
    worker.start()
    while True:
        worker.join(_SLICE_S)
        if not worker.is_alive():
            break
        cpu = _cpu_ms(box.get("clock"), started) if "clock" in box else 0.0
        if cpu > budget_ms:
            return _fall_back(operation, result, view, started, f"used more than {budget_ms:g} ms of CPU")
        if _ms(started) > wall_cap_ms:
            return _fall_back(operation, result, view, started, f"took longer than {wall_cap_ms:g} ms")
    if "error" in box:
        exc = box["error"]
        return _fall_back(operation, result, view, started, f"{type(exc).__name__}: {exc}")
    took = _ms(started)
    if box["cpu_ms"] > WARN_MS:
        log.warning(
            "slow formatter: operation=%s cpu_ms=%.1f took_ms=%.1f input_items=%s", operation, box["cpu_ms"], took, _size(result)
        )
    return Rendered(box["text"], fmt, took)


def _fall_back(operation: str, result: Any, view: View, started: float, error: str) -> Rendered:
    text = to_json(operation, result, view)
    took = _ms(started)
    # Trigger: the compact renderer raised or ran past its budget. Why: a formatting bug must
    # never cost the caller its answer. Outcome: the JSON form is sent and the failure is logged.
    log.error(
        "formatter failed: operation=%s input_items=%s input_bytes=%d error=%s took_ms=%.1f fallback=json",
        operation, _size(result), len(text.encode()), error, took,
    )
    return Rendered(text, "json", took, error)


def _own_cpu_clock() -> int | None:
    """This thread's CPU-time clock (a kernel clock id: safe to read from another thread, even after this one ends)."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):  # no per-thread CPU clocks on this platform
        return None


def _cpu_ms(clock: int | None, started: float) -> float:
    """CPU time on ``clock``, in ms (0 once its thread has ended); wall time since ``started`` without a clock."""
    if clock is None:
        return _ms(started)
    try:
        return time.clock_gettime(clock) * 1000
    except OSError:  # the thread has just ended: the next join sees it
        return 0.0


def _size(result: Any) -> int:
    try:
        return len(result)
    except TypeError:
        return 1


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _fallback_value(value: Any) -> Any:
    """JSON for values no renderer knows: dataclass-like objects by their fields, else their text."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, datetime):
        from knotwork.domain.temporal import to_text

        return to_text(value)
    return str(value)
