"""The CLI on a real database file, through the same entry point the console script uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import knotwork
from tests._cli import run


def test_add_get_update_history_delete(capsys, db_path: Path) -> None:
    db = str(db_path)
    code, out, _ = run(capsys, "add", "Use uv for Python installs", "--db", db, "-w", "tools", "-c", "decision",
                       "--tag", "lang=py", "--artifact", "pyproject.toml", "--evidence", "ADR-7", "--json")
    assert code == 0
    added = json.loads(out)
    assert added["duplicate"] is False and added["tags"] == {"lang": "py"} and added["workspace"] == "tools"
    mid = added["id"]

    code, out, _ = run(capsys, "add", "Use uv for Python installs", "--db", db, "-w", "tools")
    assert code == 0 and "already stored" in out and mid in out

    code, out, _ = run(capsys, "get", mid[-8:], "--db", db)
    assert code == 0 and "Use uv for Python installs" in out and "ADR-7" in out and "pyproject.toml" in out

    code, out, _ = run(capsys, "update", mid, "--content", "Use uv for every Python install", "--db", db)
    assert code == 0 and "v2" in out
    code, out, _ = run(capsys, "history", mid, "--db", db, "--json")
    versions = json.loads(out)["versions"]
    assert [v["content"] for v in versions] == ["Use uv for Python installs", "Use uv for every Python install"]

    code, out, _ = run(capsys, "search", "python install", "--db", db, "-w", "tools", "--json")
    assert [h["memory"]["id"] for h in json.loads(out)["hits"]] == [mid]
    code, out, _ = run(capsys, "search", "python install", "--db", db, "-w", "other")
    assert code == 0 and "No matching memories" in out

    code, out, _ = run(capsys, "delete", mid, "--db", db)
    assert code == 0 and "Deleted" in out
    with knotwork.open(db_path) as mem:
        assert mem.store.count_memories() == 0


def test_content_from_stdin(capsys, monkeypatch, db_path: Path) -> None:
    code, out, _ = run(capsys, "add", "-", "--db", str(db_path), "--json", stdin="piped\nmemory text\n", monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["content"] == "piped\nmemory text"


def test_list_filters_and_cursor(capsys, db_path: Path) -> None:
    with knotwork.open(db_path) as mem:
        mem.add_many([{"content": f"entry {i}", "category": "log" if i % 2 else "fact"} for i in range(6)])
    code, out, _ = run(capsys, "list", "--db", str(db_path), "-n", "2", "-c", "log", "--json")
    page = json.loads(out)
    assert len(page["memories"]) == 2 and page["next_cursor"]
    code, out, _ = run(capsys, "list", "--db", str(db_path), "-n", "2", "-c", "log", "--cursor", page["next_cursor"], "--json")
    rest = json.loads(out)
    assert len(rest["memories"]) == 1 and rest["next_cursor"] is None
    assert {m["category"] for m in page["memories"] + rest["memories"]} == {"log"}


def test_knotwork_home_picks_the_database(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KNOTWORK_HOME", str(tmp_path))
    monkeypatch.delenv("KNOTWORK_DB", raising=False)
    code, _, _ = run(capsys, "add", "stored in home")
    assert code == 0
    with knotwork.open(tmp_path / "knotwork.db") as mem:
        assert [m.content for m in mem.list()] == ["stored in home"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["add", "   "], "content"),
        (["add", "x", "--tag", "bad key=v"], "tags"),
        (["add", "x", "--valid-at", "yesterday-ish"], "valid_at"),
        (["add", "x", "-w", "bad workspace!"], "workspace"),
        (["add", "x", "--importance", "7"], "importance"),
        (["add", "x", "--metadata", "{not json"], "metadata"),
        (["add", "x", "--metadata", "[1, 2]"], "metadata"),
        (["get", "ZZZZZZZZZZ"], "ZZZZZZZZZZ"),
        (["get", "abc"], "id"),
        (["update", "ZZZZZZZZZZ", "--content", "y"], "ZZZZZZZZZZ"),
        (["list", "--since", "soon"], "since"),
        (["list", "--limit", "0"], "limit"),
        (["search", "  "], "query"),
        (["add"], "CONTENT"),
        (["add", "x", "--bogus"], "--bogus"),
    ],
)
def test_bad_input_exit_2_one_line(capsys, db_path: Path, argv: list[str], needle: str) -> None:
    with knotwork.open(db_path) as mem:
        mem.add("already here")
    code, out, err = run(capsys, *argv, "--db", str(db_path))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and needle in err
    assert out == ""
    with knotwork.open(db_path) as mem:
        assert [m.content for m in mem.list(workspace="*")] == ["already here"]


def test_content_over_limit(capsys, monkeypatch, db_path: Path) -> None:
    monkeypatch.setenv("KNOTWORK_MAX_CONTENT_BYTES", "100")
    code, _, err = run(capsys, "add", "é" * 51, "--db", str(db_path))  # 102 bytes
    assert code == 2 and "102 bytes" in err and "100" in err
    code, _, _ = run(capsys, "add", "é" * 50, "--db", str(db_path))
    assert code == 0


def test_ambiguous_id(capsys, db_path: Path) -> None:
    with knotwork.open(db_path) as mem:
        for attempt in range(5):  # the ids share 8 chars unless a ~1 s time boundary falls between them
            ms = mem.add_many([{"content": f"twin {attempt} {i}"} for i in range(2)])
            prefix = ms[0].id[:8]
            if ms[1].id.startswith(prefix):
                break
    code, _, err = run(capsys, "get", prefix, "--db", str(db_path))
    assert code == 2 and "ambiguous" in err and ms[0].id in err and ms[1].id in err


def test_unreadable_database_is_exit_1(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db"
    bad.write_bytes(b"this is not sqlite" * 100)
    code, _, err = run(capsys, "list", "--db", str(bad))
    assert code == 1 and "cannot open" in err and err.count("\n") == 1


def test_recall_status_and_stats_commands(capsys, db_path: Path) -> None:
    db = str(db_path)
    run(capsys, "add", "Never commit secrets", "--db", db, "-w", "app", "-c", "directive")
    code, out, _ = run(capsys, "recall", "--db", db, "-w", "app", "--budget", "200")
    assert code == 0 and out.startswith("## now ") and "Never commit secrets" in out
    code, out, _ = run(capsys, "recall", "--db", db, "-w", "app", "--section", "directives", "--json")
    assert code == 0 and [s["name"] for s in json.loads(out)["sections"]] == ["directives"]
    code, out, _ = run(capsys, "status", "--db", db)
    assert code == 0 and "1 memory ·" in out and len(out.strip().splitlines()) == 2
    code, out, _ = run(capsys, "stats", "--db", db, "--json")
    assert code == 0 and json.loads(out)["by_workspace"] == {"app": 1}
    code, out, err = run(capsys, "recall", "--db", db, "--budget", "0")
    assert code == 2 and out == "" and err == "error: budget_tokens: must be a whole number from 1 to 32000, got 0\n"
