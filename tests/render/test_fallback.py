"""Formatting never fails a call: a raising or slow text renderer gives way to the JSON form."""

from __future__ import annotations

import json
import logging
import time

import pytest

import knotwork
from knotwork.config import Settings
from knotwork.render import RENDERERS, render_safe
from knotwork.render.core import Renderer, View, WARN_MS
from knotwork.metrics import MetricsLog
from knotwork.render.respond import Responder


def _broken(result, view):
    raise ZeroDivisionError("formatter bug")


def test_a_raising_formatter_falls_back_to_json_and_logs_why(monkeypatch, caplog, tmp_path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=Settings(embedder="none")) as mem:
        mem.add("Blue-green deploys for the payments service", artifacts=["deploy.sh"])
        hits = mem.search("payments deploys")
        monkeypatch.setitem(RENDERERS, "search", Renderer(_broken, RENDERERS["search"].json))
        log = MetricsLog()
        with caplog.at_level(logging.ERROR, logger="knotwork.render"):
            text = Responder(mem, log)("search", hits)
    body = json.loads(text)  # the caller still gets an answer, as JSON
    assert body["hits"][0]["memory"]["content"] == "Blue-green deploys for the payments service"
    assert body["hits"][0]["relations"] == {"artifact": "deploy.sh"}
    (record,) = [r for r in caplog.records if r.name == "knotwork.render"]
    message = record.getMessage()
    for fragment in ("operation=search", "input_items=1", f"input_bytes={len(text.encode())}",
                     "ZeroDivisionError: formatter bug", "took_ms=", "fallback=json"):
        assert fragment in message, (fragment, message)
    (metrics,) = log.recent
    assert metrics.format == "json" and metrics.fallback == "ZeroDivisionError: formatter bug"


def _spin(ms: float) -> None:
    """Use ``ms`` of CPU time on this thread."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


def test_a_formatter_past_its_cpu_budget_is_abandoned(monkeypatch, caplog) -> None:
    def slow(result, view):
        _spin(1000)
        return "too late"

    monkeypatch.setitem(RENDERERS, "slow_op", Renderer(slow, lambda result, view: {"items": result}))
    started = time.perf_counter()
    with caplog.at_level(logging.ERROR, logger="knotwork.render"):
        out = render_safe("slow_op", [1, 2, 3], "compact", View(), budget_ms=100)
    assert (time.perf_counter() - started) < 1.0  # did not wait for the runaway formatter's 1 s of CPU
    assert json.loads(out.text) == {"items": [1, 2, 3]} and out.fmt == "json"
    assert out.fallback == "used more than 100 ms of CPU"
    assert "operation=slow_op" in caplog.text and "used more than 100 ms of CPU" in caplog.text


def test_a_formatter_that_waits_is_abandoned_at_the_wall_cap(monkeypatch) -> None:
    monkeypatch.setitem(RENDERERS, "waiting_op", Renderer(lambda result, view: time.sleep(3) or "late"))
    started = time.perf_counter()
    out = render_safe("waiting_op", [], "compact", View(), wall_cap_ms=200)
    assert 0.2 <= time.perf_counter() - started < 1.5
    assert out.fmt == "json" and out.fallback == "took longer than 200 ms"


def test_a_waiting_machine_does_not_trip_the_cpu_budget(monkeypatch) -> None:
    # Sleeping stands in for a formatter descheduled on a busy machine: wall time passes, CPU time does not.
    monkeypatch.setitem(RENDERERS, "patient_op", Renderer(lambda result, view: time.sleep(0.3) or "kept"))
    out = render_safe("patient_op", [], "compact", View(), budget_ms=100)
    assert (out.text, out.fallback) == ("kept", None)


def test_a_slow_but_finished_formatter_is_kept_and_warned_about(monkeypatch, caplog) -> None:
    def sluggish(result, view):
        _spin(WARN_MS + 10)
        return "done"

    monkeypatch.setitem(RENDERERS, "sluggish_op", Renderer(sluggish))
    with caplog.at_level(logging.WARNING, logger="knotwork.render"):
        out = render_safe("sluggish_op", [], "compact", View(), budget_ms=2000, wall_cap_ms=5000)
    assert out.text == "done" and out.fallback is None
    assert "slow formatter: operation=sluggish_op" in caplog.text


def test_an_operation_without_a_text_renderer_still_answers() -> None:
    out = render_safe("no_such_operation", {"a": 1}, "compact", View())
    assert out.fmt == "json" and out.fallback and "no_such_operation" in out.fallback


def test_unknown_relation_detail_is_a_clear_error(tmp_path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=Settings(embedder="none")) as mem:
        with pytest.raises(knotwork.InvalidInput, match="relation_detail: must be one of none, minimal, standard, full"):
            Responder(mem)("search", [], relation_detail="verbose")
