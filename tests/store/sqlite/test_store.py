"""SQLite store mechanics: WAL, busy timeout, migrations recorded in the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import knotwork
from knotwork import BackendUnavailable
from knotwork.store.sqlite import migrate


def test_wal_and_migrations_recorded(db_path: Path) -> None:
    with knotwork.open(db_path) as mem:
        mem.add("x")
        version = mem.store.schema_version()
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert [r[0] for r in rows] == [m.version for m in migrate.available()]
    assert rows[-1][0] == version and rows[0][1] == "memories"
    conn.close()


def test_reopening_does_not_reapply(db_path: Path) -> None:
    knotwork.open(db_path).close()
    knotwork.open(db_path).close()
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(migrate.available())
    conn.close()


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        ("INSERT INTO schema_migrations VALUES (9999, 'future', '2099-01-01')", "newer knotwork"),
        # Two schema changes that shared a number: ours would be skipped, so the schema would be wrong.
        (
            "UPDATE schema_migrations SET name = 'something_else' WHERE version = 2",
            "migration 0002 applied here is 'something_else', but this knotwork's is 'links'",
        ),
    ],
)
def test_a_schema_this_knotwork_did_not_write_is_refused(db_path: Path, tamper: str, message: str) -> None:
    knotwork.open(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute(tamper)
    conn.commit()
    conn.close()
    with pytest.raises(BackendUnavailable, match=message):
        knotwork.open(db_path)


def test_statement_splitter_keeps_trigger_bodies() -> None:
    sql = "CREATE TABLE a (x);\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;\n-- trailing comment\n"
    assert migrate.statements(sql) == [
        "CREATE TABLE a (x);",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;",
    ]


def test_tracer_sees_statements(db_path: Path) -> None:
    seen: list[str] = []
    with knotwork.open(db_path, tracer=lambda sql, params: seen.append(sql)) as mem:
        mem.add("traced")
    assert any(s.startswith("INSERT INTO memories") for s in seen)
    assert "BEGIN IMMEDIATE" in seen and "COMMIT" in seen


def test_failed_batch_rolls_back(db_path: Path) -> None:
    with knotwork.open(db_path) as mem:
        a = mem.add("keep me")
        with pytest.raises(RuntimeError):
            with mem.store.transaction():
                mem.store.delete_memory(a.id)
                raise RuntimeError("boom")
        assert mem.get(a.id).content == "keep me"


def test_unsupported_url(tmp_path: Path) -> None:
    with pytest.raises(knotwork.InvalidInput, match="unsupported URL scheme"):
        knotwork.open("mysql://x")


def test_text_with_a_lone_surrogate_is_bad_input_and_nothing_is_written(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    with knotwork.open(tmp_path / "k.db") as mem:
        with pytest.raises(knotwork.InvalidInput, match="content: is not valid Unicode: lone surrogate"):
            mem.add("half a character: \udcff")
        with pytest.raises(knotwork.InvalidInput, match="query: is not valid Unicode"):
            mem.search("what about \ud800")
        assert mem.store.count_memories() == 0


def test_writers_queue_on_the_write_gate(db_path: Path) -> None:
    """A write transaction holds an exclusive flock on ``<file>-lock`` (so writers of other processes queue
    there, not in SQLite's sleeping busy handler) and lets it go at commit and at rollback."""
    import fcntl
    import os

    from knotwork.store.sqlite import SQLiteStore

    store = SQLiteStore(db_path)
    probe = os.open(f"{db_path}-lock", os.O_RDWR)

    def gate_free() -> bool:
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(probe, fcntl.LOCK_UN)
        return True

    try:
        assert gate_free()
        with store.transaction():
            assert not gate_free()
            with store.transaction():  # nested: the same gate, still held
                assert not gate_free()
            assert not gate_free()
        assert gate_free()
        with pytest.raises(RuntimeError), store.transaction():
            raise RuntimeError("rolled back")
        assert gate_free()
    finally:
        os.close(probe)
        store.close()


def test_a_gate_held_too_long_leaves_the_write_to_sqlites_busy_timeout(db_path: Path) -> None:
    """A gate that another process keeps past the busy timeout does not block a write SQLite would allow."""
    import fcntl
    import os

    from knotwork.store.sqlite import SQLiteStore

    SQLiteStore(db_path).close()
    holder = os.open(f"{db_path}-lock", os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)
    store = SQLiteStore(db_path, busy_timeout_ms=200)
    try:
        with store.transaction():
            store._run("CREATE TABLE gate_probe (x)")
        assert store._run("SELECT count(*) FROM gate_probe").fetchone()[0] == 0
    finally:
        fcntl.flock(holder, fcntl.LOCK_UN)
        os.close(holder)
        store.close()


def test_settle_merges_the_write_ahead_log_into_the_file(db_path: Path) -> None:
    wal = Path(f"{db_path}-wal")
    with knotwork.open(db_path) as mem:
        mem.add_many([{"content": f"note number {i} about the settle test"} for i in range(200)], force=True)
        assert wal.exists() and wal.stat().st_size > 0
        mem.store.settle()
        assert wal.stat().st_size == 0  # emptied: a process killed now leaves nothing to replay
        copy = sqlite3.connect(db_path)  # the file alone holds every memory
        assert copy.execute("SELECT count(*) FROM memories").fetchone()[0] == 200
        copy.close()
        mem.add("one more after settling")
        assert mem.store.count_memories() == 201
