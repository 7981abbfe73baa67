"""Hostile input to the ``knotwork`` command: exit 2 and one short line on stderr naming the problem,
nothing written. Each case runs the installed console script in its own process."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import knotwork
from knotwork import Settings
from knotwork.limits import MAX_LIST_ITEMS

MAX_ERROR_CHARS = 600
NO_MODEL = {"KNOTWORK_EMBEDDER": "none"}
DEEP = "[" * 100_000 + "]" * 100_000
DEEP_ARGUMENT = "[" * 30_000 + "]" * 30_000  # one argument may be at most 128 KiB (Linux)


def _args(db: Path, tmp_path: Path) -> dict[str, list[str]]:
    deep_export = tmp_path / "deep.jsonl"
    deep_export.write_text('{"id": ' + DEEP + "}\n", encoding="utf-8")
    many = [a for i in range(MAX_LIST_ITEMS + 1) for a in ("--artifact", f"src/file_{i}.py")]
    return {
        "long-workspace": ["add", "x", "--workspace", "w" * 100_000],
        "long-query": ["search", "q " * 50_000],
        "too-many-artifacts": ["add", "x", *many],
        "deep-metadata": ["add", "x", "--metadata", '{"a": ' + DEEP_ARGUMENT + "}"],
        "deep-import": ["import", str(deep_export)],
        "invalid-before-valid": ["update", "__ID__", "--valid-at", "2026-01-02", "--invalid-at", "2026-01-01"],
    }


@pytest.mark.parametrize(
    ("case", "named"),
    [
        ("long-workspace", "workspace"),
        ("long-query", "query"),
        ("too-many-artifacts", "artifacts"),
        ("deep-metadata", "metadata"),
        ("deep-import", "line 1"),
        ("invalid-before-valid", "invalid_at"),
    ],
)
def test_refused_with_exit_2_and_one_short_line(
    run_cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path, case: str, named: str
) -> None:
    db = tmp_path / "cli.db"
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        kept = mem.add("the one memory these commands must leave alone", valid_at="2026-01-01T12:00:00Z")
    args = [a.replace("__ID__", kept.id) for a in _args(db, tmp_path)[case]]
    result = run_cli(*args, "--db", str(db), env=NO_MODEL)
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= MAX_ERROR_CHARS, result.stderr[:2000]
    assert lines[0].startswith(f"error: {named}"), lines[0]
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        assert [(m.id, m.version) for m in mem.list(workspace="*", agent_id="*")] == [(kept.id, 1)]


def test_serve_refuses_a_blank_token(run_cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    result = run_cli("serve", "--db", str(tmp_path / "serve.db"), "--port", "1", env={**NO_MODEL, "KNOTWORK_API_TOKEN": " "})
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines() == [
        "error: KNOTWORK_API_TOKEN: is blank or has spaces around it; give the exact text clients will send"
    ]
