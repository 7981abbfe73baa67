"""JSONL export and import: a lossless round trip, all-or-nothing on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput
from tests._cli import run


def _fill(path: Path | str) -> list[str]:
    with knotwork.open(path) as mem:
        a = mem.add("first memory", workspace="w1", agent_id="a", category="fact", tags={"k": "v"},
                    artifacts=["src/a.py"], evidence=["PR-1"], importance=0.7, metadata={"n": [1, 2]},
                    valid_at="2024-02-29T23:59:59.5Z")
        mem.update(a.id, content="first memory, revised")
        mem.update(a.id, invalid_at="2025-01-01")
        b = mem.add("second memory ünïcödé ✓")
        mem.add_many([{"content": f"bulk {i}", "workspace": "w2"} for i in range(30)])
        return [a.id, b.id]


def test_round_trip_is_lossless(capsys, tmp_path: Path, target: str) -> None:
    src, dst = tmp_path / "src.db", target  # into a SQLite file or a PostgreSQL database, out again the same
    ids = _fill(src)
    code, first, _ = run(capsys, "export", "--db", str(src))
    assert code == 0
    lines = first.splitlines()
    memories = [json.loads(line) for line in lines if "record" not in json.loads(line)]
    assert len(memories) == 32 and json.loads(lines[-1]) == {"record": "graph"}  # the graph follows the memories
    records = {r["id"]: r for r in memories}
    assert [v["content"] for v in records[ids[0]]["history"]] == ["first memory", "first memory, revised"]

    export_file = tmp_path / "out.jsonl"
    export_file.write_text(first, encoding="utf-8")
    code, out, _ = run(capsys, "import", str(export_file), "--db", str(dst))
    assert code == 0 and "Imported 32" in out
    code, second, _ = run(capsys, "export", "--db", str(dst))
    assert second == first

    with knotwork.open(src) as a, knotwork.open(dst) as b:
        assert a.history(ids[0]) == b.history(ids[0])
        got = [h.memory.id for h in b.search("bulk", workspace="w2", limit=50)]
        want = [h.memory.id for h in a.search("bulk", workspace="w2", limit=50)]
        assert sorted(got) == sorted(want) and len(got) == 30
        # SQLite keeps vectors as int8 with a scale (store/sqlite/scaled.py), PostgreSQL as float32: "bulk 5" and
        # "bulk 7" score within int8's rounding (about 1e-3) of each other, so across the two their order may differ.
        if not dst.startswith("postgresql"):
            assert got == want

    # importing again adds nothing
    code, out, _ = run(capsys, "import", str(export_file), "--db", str(dst))
    assert code == 0 and "Imported 0, skipped 32" in out


def test_export_to_file_with_progress(capsys, tmp_path: Path) -> None:
    src = tmp_path / "src.db"
    _fill(src)
    target = tmp_path / "dump.jsonl"
    code, out, err = run(capsys, "export", str(target), "--db", str(src), "--progress")
    assert code == 0 and out == ""
    assert "32/32" in err  # the progress bar reached the end
    assert sum("record" not in json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()) == 32


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "line 2"),
        ('{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "", "created_at": "2024-01-01", "updated_at": "2024-01-01", "valid_at": "2024-01-01"}', "content"),
        ('{"id": "short", "content": "x", "created_at": "2024-01-01", "updated_at": "2024-01-01", "valid_at": "2024-01-01"}', "id"),
        ('{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "x"}', "missing"),
        ('{"content": "plain text, not an export"}', "record 2: is not a record an export writes (missing created_at, id, "
                                                     "updated_at, valid_at): import loads an export; to store new text, add it"),
        ('{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "content": "x", "created_at": "never", "updated_at": "2024-01-01", "valid_at": "2024-01-01"}', "created_at"),
    ],
)
def test_bad_import_writes_nothing(capsys, tmp_path: Path, target: str, line: str, needle: str) -> None:
    good = '{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAW", "content": "good one", "created_at": "2024-01-01", "updated_at": "2024-01-01", "valid_at": "2024-01-01"}'
    f = tmp_path / "in.jsonl"
    f.write_text(good + "\n" + line + "\n", encoding="utf-8")
    db = target
    code, _, err = run(capsys, "import", str(f), "--db", db)
    assert code == 2 and needle in err and err.count("\n") == 1
    with knotwork.open(db) as mem:
        assert mem.store.count_memories() == 0


def test_import_missing_file(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "import", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "x.db"))
    assert code == 2 and "nope.jsonl" in err


def test_import_records_api_checks_everything_first(target: str) -> None:
    with knotwork.open(target) as mem:
        with pytest.raises(InvalidInput, match="record 2"):
            mem.import_records([
                {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAW", "content": "ok", "created_at": "2024-01-01",
                 "updated_at": "2024-01-01", "valid_at": "2024-01-01"},
                {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAX", "content": "ok 2", "created_at": "2024-01-01",
                 "updated_at": "2024-01-01", "valid_at": "2024-01-01", "tags": {"bad key": 1}},
            ])
        assert mem.store.count_memories() == 0
