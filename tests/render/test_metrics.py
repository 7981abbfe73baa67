"""Token metrics: exact o200k counts of the full JSON and of what was sent, per call, in a JSONL file."""

from __future__ import annotations

import json

import pytest

import knotwork
from knotwork.adapters.cli import main
from knotwork.config import Settings
from knotwork.render import View, render
from knotwork.metrics import count_tokens, read, summary
from knotwork.render.respond import Responder


def test_counts_are_o200k_tokens() -> None:
    assert count_tokens("hello world") == 2  # o200k_base ids 24912, 2375
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1  # special-token text is counted as plain text


def test_each_call_appends_one_record_with_exact_counts(tmp_path) -> None:
    path = tmp_path / "metrics" / "calls.jsonl"
    settings = Settings(embedder="none", metrics_file=path)
    with knotwork.open(tmp_path / "k.db", settings=settings) as mem:
        respond = Responder(mem)
        added = mem.add("Invoices are archived after ten years", artifacts=["docs/retention.md"], tags={"team": "finance"})
        respond("add", added)
        hits = mem.search("invoices archived")
        sent = respond("search", hits, relation_detail="minimal")
        full = render("search", hits, "json", View(relations=mem.relations([h.memory.id for h in hits]), detail="full"))
        sent_json = respond("search", hits, "json")
    records = read(path)
    assert [r["operation"] for r in records] == ["add", "search", "search"]
    search = records[1]
    assert search["relation_detail"] == "minimal" and search["format"] == "compact"
    assert (search["raw_bytes"], search["raw_tokens"]) == (len(full.encode()), count_tokens(full))
    assert (search["sent_bytes"], search["sent_tokens"]) == (len(sent.encode()), count_tokens(sent))
    assert search["savings_pct"] == round(100 * (1 - count_tokens(sent) / count_tokens(full)), 1) > 50
    assert search["ms"] >= 0 and search["fallback"] is None and search["at"].endswith("Z")
    assert records[2]["sent_tokens"] == count_tokens(sent_json) and records[2]["format"] == "json"


def test_summary_is_per_operation() -> None:
    rows = [
        {"operation": "search", "raw_tokens": 1000, "sent_tokens": 200, "ms": 1.0},
        {"operation": "search", "raw_tokens": 3000, "sent_tokens": 400, "ms": 3.0, "fallback": "ValueError: x"},
        {"operation": "add", "raw_tokens": 200, "sent_tokens": 30, "ms": 0.5},
    ]
    lines = summary(rows).splitlines()
    assert lines[0].split() == ["operation", "calls", "json", "tok", "sent", "tok", "saved", "p50", "ms", "max", "ms", "fallbacks"]
    assert lines[1].split() == ["add", "1", "200", "30", "85.0%", "0.50", "0.50", "0"]
    assert lines[2].split() == ["search", "2", "2000", "300", "85.0%", "2.00", "3.00", "1"]
    assert summary([]) == "No calls recorded."


def test_cli_records_and_summarises(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "calls.jsonl"
    monkeypatch.setenv("KNOTWORK_METRICS_FILE", str(path))
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    db = str(tmp_path / "k.db")
    argv_list = (
        ["add", "Deploys go out on Tuesdays with Terraform", "--db", db],
        ["search", "deploys", "--db", db],
        ["nodes", "terraform", "--db", db],  # knowledge-graph commands answer through the same Responder
        ["metrics"],
    )
    for argv in argv_list:
        main(argv)  # success returns; an error would raise SystemExit
    out = capsys.readouterr().out.splitlines()
    table = out[out.index(next(line for line in out if line.startswith("operation"))):]
    assert [line.split()[0] for line in table[1:]] == ["add", "search", "search_nodes"]
    assert all(line.split()[1] == "1" for line in table[1:])
    assert len(read(path)) == 3  # `metrics` itself records nothing


def test_cli_metrics_without_a_file_is_a_usage_error(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("KNOTWORK_METRICS_FILE", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip() == "error: file: no metrics file: pass --file or set KNOTWORK_METRICS_FILE"
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", "--file", str(tmp_path / "absent.jsonl")])
    assert exit_info.value.code == 2 and "absent.jsonl does not exist" in capsys.readouterr().err

