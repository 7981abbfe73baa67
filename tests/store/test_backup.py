"""Durability as a setting, and online backup and restore of a SQLite store (API and CLI); a PostgreSQL store names pg_dump."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput, Settings

from tests._cli import run

NO_MODEL = Settings(embedder="none", kg_extract="none")


def synchronous_of(mem: knotwork.Knotwork) -> int:
    return mem.store._conn.execute("PRAGMA synchronous").fetchone()[0]


def test_durability_is_full_by_default_and_normal_on_request(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "a.db", settings=NO_MODEL) as mem:
        assert synchronous_of(mem) == 2  # FULL: each commit is fsynced
    with knotwork.open(tmp_path / "a.db", settings=NO_MODEL.model_copy(update={"synchronous": "normal"})) as mem:
        assert synchronous_of(mem) == 1
    with pytest.raises(ValueError, match="synchronous"):
        Settings(synchronous="off")


def test_backup_while_another_process_writes_then_restore(tmp_path: Path) -> None:
    db, copy = tmp_path / "live.db", tmp_path / "copies" / "b.db"
    with knotwork.open(db) as mem:
        first = mem.add("The release train leaves every Tuesday", workspace="w")
        mem.add_many([{"content": f"note {i} about the billing service", "workspace": "w"} for i in range(200)],
                     consolidate=False)
        writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            import knotwork
            with knotwork.open({str(db)!r}, settings=knotwork.Settings(embedder="none", kg_extract="none")) as m:
                for i in range(300):
                    m.add(f"written during the backup {{i}}", workspace="w", consolidate=False)
                    if i == 0:
                        print("writing", flush=True)
        """)], stdout=subprocess.PIPE, text=True)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
        pages: list[tuple[int, int]] = []
        report = mem.backup(copy, progress=lambda done, total: pages.append((done, total)))
        writer.wait(timeout=120)
        assert writer.returncode == 0
        assert report.path == str(copy) and report.bytes == copy.stat().st_size and report.memories >= 201
        assert pages and pages[-1][0] == pages[-1][1]
        assert not Path(str(copy) + "-wal").exists()  # one self-contained file
        with pytest.raises(InvalidInput, match="exists"):
            mem.backup(copy)
        mem.update(first.id, content="The release train leaves every Wednesday")
        mem.delete(first.id)
        total = mem.store.count_memories()
    with knotwork.open(copy) as saved:  # the copy opens as a store, with search working
        assert saved.get(first.id).content == "The release train leaves every Tuesday"
        assert saved.search("release train Tuesday", workspace="w")[0].memory.id == first.id
        saved_count = saved.store.count_memories()
        assert sqlite3.connect(copy).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert 202 <= saved_count <= total  # the store as of one moment of the writer's run
    knotwork.restore(copy, db)
    with knotwork.open(db) as mem:
        assert mem.get(first.id).content == "The release train leaves every Tuesday"
        assert mem.store.count_memories() == saved_count
        assert mem.search("release train Tuesday", workspace="w")[0].memory.id == first.id
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_bad_backup_is_refused_with_nothing_written(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    with knotwork.open(db, settings=NO_MODEL) as mem:
        kept = mem.add("The deploy window is Tuesday at 14:00 UTC").id
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    for bad, match in ((junk, "not a knotwork database"), (other, "not a knotwork database"), (tmp_path / "none.db", "not a file")):
        with pytest.raises(InvalidInput, match=match):
            knotwork.restore(bad, db)
    with pytest.raises(InvalidInput, match="SQLite stores"):
        knotwork.restore(junk, "postgresql://localhost/x")
    with knotwork.open(db, settings=NO_MODEL) as mem:
        assert mem.get(kept).content == "The deploy window is Tuesday at 14:00 UTC"


def test_cli_backup_and_restore(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    db, copy = tmp_path / "k.db", tmp_path / "k-backup.db"
    code, out, _ = run(capsys, "add", "We chose SQLite for the store", "--db", str(db))
    assert code == 0
    code, out, _ = run(capsys, "backup", str(copy), "--db", str(db))
    assert code == 0 and out.startswith("✓ Backed up 1 memories") and copy.is_file()
    run(capsys, "add", "We moved the docs to the wiki", "--db", str(db))
    code, _, err = run(capsys, "restore", str(copy), "--db", str(db))
    assert code == 2 and "--yes" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "restore", str(copy), "--db", str(db), "--yes")
    assert code == 0 and "Restored" in out
    code, out, _ = run(capsys, "list", "--db", str(db), "--json")
    assert [m["content"] for m in __import__("json").loads(out)["memories"]] == ["We chose SQLite for the store"]
    code, _, err = run(capsys, "restore", str(tmp_path / "missing.db"), "--db", str(db), "--yes")
    assert code == 2 and "not a file" in err


def test_a_postgres_store_names_its_own_backup_tool(capsys, tmp_path: Path, postgres_database) -> None:
    url = postgres_database.fresh()
    copy = tmp_path / "copy.db"
    with knotwork.open(url, settings=NO_MODEL) as mem:
        mem.add("The release train leaves every Tuesday")
        with pytest.raises(InvalidInput, match="pg_dump"):
            mem.backup(copy)
    code, _, err = run(capsys, "backup", str(copy), "--db", url)
    assert code == 2 and "pg_dump" in err and err.count("\n") == 1
    assert not copy.exists()
