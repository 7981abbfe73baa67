"""Faults: a writer killed with SIGKILL in the middle of its work (or of its schema migrations) leaves every batch
whole or absent and the store consistent; a store whose full-text index or vectors fell out of step is found out and mended."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing
from pathlib import Path

import pytest

import knotwork
from knotwork import Settings
from knotwork.store.sqlite import migrate

from tests._cli import run

NO_MODEL = Settings(embedder="none", kg_extract="none")
BATCH = 50


def writer(db: Path, body: str, embedder: str = "none") -> subprocess.Popen[str]:
    """A child process that opens ``db`` and runs ``body`` (with ``m`` the store), printing "go" once open."""
    code = textwrap.dedent(f"""
        import json, sys, knotwork
        s = knotwork.Settings(embedder={embedder!r}, kg_extract="none")
        with knotwork.open({str(db)!r}, settings=s) as m:
            print("go", flush=True)
    """) + textwrap.indent(textwrap.dedent(body), "    ")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
    return proc


def kill_after(proc: subprocess.Popen[str], seconds: float) -> None:
    time.sleep(seconds)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def assert_consistent(db: Path, settings: Settings = NO_MODEL) -> knotwork.Knotwork:
    mem = knotwork.open(db, settings=settings)
    report = mem.check()
    assert report.ok, report.to_dict()
    return mem


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8])
def test_sigkill_inside_add_many_leaves_whole_batches(tmp_path: Path, delay: float) -> None:
    db = tmp_path / "k.db"
    proc = writer(db, f"""
        for b in range(1000):
            m.add_many([{{"content": f"batch {{b}} item {{i}} about the billing service", "workspace": "w",
                          "tags": {{"batch": str(b)}}}} for i in range({BATCH})], consolidate=False)
    """)
    kill_after(proc, delay)
    with assert_consistent(db) as mem:
        total = mem.store.count_memories()
        assert total % BATCH == 0  # all of a batch or none of it
        by_batch = mem.stats().by_tag
        assert all(n == BATCH for key, n in by_batch.items() if key.startswith("batch=")), by_batch
        mem.add("The store takes writes after the kill", workspace="w")


def test_sigkill_inside_import_leaves_all_or_nothing(tmp_path: Path) -> None:
    source, db, dump = tmp_path / "src.db", tmp_path / "k.db", tmp_path / "dump.jsonl"
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add_many([{"content": f"exported note {i}", "workspace": "w"} for i in range(3000)], consolidate=False)
        dump.write_text("".join(json.dumps(r) + "\n" for r in mem.export()))
    body = f"""
        records = [json.loads(line) for line in open({str(dump)!r})]
        m.import_records(records)
        print("done", flush=True)
    """
    for delay in (0.3, 0.9):
        kill_after(writer(db, body), delay)
        with assert_consistent(db) as mem:
            assert mem.store.count_memories() in (0, 3000)  # one transaction: all or nothing
    finished = writer(db, body)
    assert finished.stdout is not None and finished.stdout.readline().strip() == "done"
    finished.wait(timeout=60)
    with assert_consistent(db) as mem:
        assert mem.store.count_memories() == 3000


def test_sigkill_during_consolidating_adds(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with knotwork.open(db) as mem:
        mem.add("The deploy window is Tuesday at 14:00 UTC", workspace="w")
    proc = writer(db, """
        for i in range(2000):
            channels = " ".join(f"c{j}" for j in range(i + 1))
            m.add(f"The deploy window is Tuesday at 14:00 UTC, announced in {channels}", workspace="w")
            m.add(f"Release {i} uses Python 3.{i % 50}", workspace="w")
    """, embedder="minilm")
    kill_after(proc, 4.0)
    with assert_consistent(db, Settings()) as mem:
        window = [m for m in mem.list(workspace="w", limit=1000) if "deploy window" in m.content]
        assert len(window) == 1  # each add said more: UPDATEs folded into the one memory
        assert window[0].version > 1 and len(mem.history(window[0].id)) == window[0].version


def test_a_stale_full_text_index_and_missing_vectors_are_found_and_mended(tmp_path: Path, capsys) -> None:
    db = tmp_path / "k.db"
    with knotwork.open(db, settings=NO_MODEL) as mem:  # no embedder: these memories get no vectors
        # a raw load: five values of one count would otherwise retire each other
        ids = [m.id for m in mem.add_many([{"content": f"the payment retries back off {i} times"} for i in range(5)],
                                          consolidate=False)]
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', "
                 "(SELECT rowid FROM memories WHERE id = ?), 'the payment retries back off 0 times')", (ids[0],))
    conn.commit()
    conn.close()
    with knotwork.open(db) as mem:
        found = mem.check()
        assert not found.ok
        assert any(p.startswith("full-text index") for p in found.problems)
        assert "vectors: 5 memories have none" in found.problems
        mended = mem.check(repair=True)
        assert mended.ok and mended.repaired == ["full-text index rebuilt", "5 memories without vectors embedded"]
        assert mem.check().ok
        assert {h.memory.id for h in mem.search("payment retries", limit=5)} == set(ids)
    code, out, _ = run(capsys, "check", "--db", str(db))
    assert code == 0 and "consistent" in out


def test_sigkill_inside_migrate_then_migrate_again_moves_everything_once(tmp_path: Path, postgres_database) -> None:
    """``knotwork migrate`` killed at several points of its copy to PostgreSQL, then run again to the end:
    the counts match the source and nothing is duplicated (every batch lands whole or not at all)."""
    from contextlib import closing

    from knotwork.app import open_store

    from tests._snapshot import snapshot

    source = tmp_path / "src.db"
    with knotwork.open(source, settings=NO_MODEL) as mem:
        made = mem.add_many([{"content": f"note {i} on the release train", "workspace": "w" if i % 3 else None}
                             for i in range(4000)], consolidate=False)
        for a, b in zip(made[:300], made[300:600]):
            mem.link(a.id, b.id, "relates_to")
    url = postgres_database.fresh()
    knotwork_cli = str(Path(sys.executable).parent / "knotwork")
    env = {"KNOTWORK_EMBEDDER": "none", "KNOTWORK_KG_EXTRACT": "none", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "KNOTWORK_HOME": str(tmp_path / "home")}
    killed = 0
    with closing(open_store(url, NO_MODEL)) as target:
        for extra in (0.0, 0.3, 0.6):  # killed once the copy has begun, at three points of it
            before = target.count_memories()
            proc = subprocess.Popen([knotwork_cli, "migrate", "--from", str(source), "--to", url, "--no-progress"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            deadline = time.monotonic() + 60
            while proc.poll() is None and target.count_memories() == before and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(extra)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                killed += 1
            proc.wait(timeout=60)
            landed = target.count_memories()
            assert landed % 500 == 0 or landed == 4000  # whole batches only
    assert killed, "every migrate finished before its kill: the store is too small to test this"
    done = subprocess.run([knotwork_cli, "migrate", "--from", str(source), "--to", url, "--no-progress"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "✓ memories: 4000 -> 4000" in done.stdout and "✓ links: 300 -> 300" in done.stdout
    assert snapshot(url) == snapshot(str(source))


# -- a store opened by a newer knotwork, killed while its schema migrations run ----------------------------------------

CREATED = re.compile(
    r"CREATE\s+(?:UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|TRIGGER)\s+(\w+)|ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", re.I
)
# Opens the store named by argv[1]: prints "opening" just before knotwork.open (every import already done), "migrated"
# at the store's first traced statement (migrations run on the bare connection, untraced, before any), then waits.
OPENER = textwrap.dedent("""
    import sys, time, knotwork
    s = knotwork.Settings(embedder="none", kg_extract="none")
    knotwork.open(":memory:", settings=s).close()
    seen = []
    def first(sql, params):
        if not seen:
            seen.append(sql)
            print("migrated", flush=True)
    print("opening", flush=True)
    with knotwork.open(sys.argv[1], settings=s, tracer=first):
        time.sleep(60)
""")


RENAMED = re.compile(r"ALTER\s+TABLE\s+(\w+)\s+RENAME\s+TO\s+(\w+)", re.I)
DROPPED = re.compile(r"DROP\s+(TABLE|INDEX|TRIGGER)\s+(?:IF\s+EXISTS\s+)?(\w+)", re.I)
ON_TABLE = re.compile(r"CREATE\s+(?:UNIQUE\s+)?(?:INDEX|TRIGGER)\s+\w+\s+.*?\bON\s+(\w+)", re.I | re.S)


def _bodies(migration: migrate.Migration) -> list[str]:
    return ["\n".join(line for line in s.splitlines() if not line.lstrip().startswith("--")).strip()
            for s in migrate.statements(migration.sql)]


def created(migration: migrate.Migration) -> list[tuple[str, str]]:
    """What a migration creates, in order: ("table" | "index" | "trigger", name) or ("column", "table.column");
    a table it creates and then renames, under its new name."""
    found = []
    for body in _bodies(migration):
        if m := CREATED.match(body):
            found.append((m[1].lower(), m[2]) if m[1] else ("column", f"{m[3]}.{m[4]}"))
        elif m := RENAMED.match(body):
            found = [("table", m[2]) if item == ("table", m[1]) else item for item in found]
    return found


def dropped(migration: migrate.Migration) -> list[tuple[str, str]]:
    """What a migration drops (a table it rebuilds under the same name, say): ("table" | "index" | "trigger", name)."""
    return [(m[1].lower(), m[2]) for body in _bodies(migration) if (m := DROPPED.match(body))]


def recreate(conn: sqlite3.Connection, before: migrate.Migration, kind: str, name: str) -> None:
    """Make again, empty, what ``before`` dropped, as the migrations before it made it (a table with its indexes)."""
    for migration in migrate.available():
        if migration.version >= before.version:
            break
        for body in _bodies(migration):
            m = CREATED.match(body)
            if m and m[1] and m[2] == name or kind == "table" and (on := ON_TABLE.match(body)) and on[1] == name:
                conn.execute(body)


def present(conn: sqlite3.Connection, kind: str, name: str) -> bool:
    if kind == "column":
        table, column = name.split(".")
        return column in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)).fetchone() is not None


def schema(conn: sqlite3.Connection) -> dict[str, object]:
    """Every table with its columns, every other object with its table."""
    tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        "tables": {t: [row[1] for row in conn.execute(f"PRAGMA table_info({t})")] for t in tables},
        "others": sorted(conn.execute("SELECT type, name, tbl_name FROM sqlite_master WHERE type != 'table'")),
    }


def contents(conn: sqlite3.Connection) -> tuple[list, ...]:
    return (
        conn.execute("SELECT id, content, workspace, tags, version FROM memories ORDER BY id").fetchall(),
        conn.execute("SELECT memory_id, key, value FROM memory_tags ORDER BY memory_id, key").fetchall(),
        conn.execute("SELECT id, from_id, to_id FROM links ORDER BY id").fetchall(),
    )


def holds_write_lock(pid: int, db: Path) -> bool:
    """Whether process ``pid`` holds the WAL write lock of ``db`` (byte 120 of its -shm file): a write transaction
    of that process is open."""
    try:
        inode = os.stat(f"{db}-shm").st_ino
    except FileNotFoundError:
        return False
    with open("/proc/locks") as locks:
        for line in locks:
            fields = line.split()
            # "1: POSIX  ADVISORY  WRITE 4242 fe:00:2165057 120 120"
            if fields[1:4] == ["POSIX", "ADVISORY", "WRITE"] and fields[4] == str(pid) \
                    and fields[5].endswith(f":{inode}") and fields[6] == "120":
                return True
    return False


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs /proc/locks to see the child's write lock")
def test_sigkill_inside_a_schema_migration_leaves_the_old_schema_or_the_new_whole(tmp_path: Path) -> None:
    """A store written by an older knotwork (its last two migrations not applied), holding thousands of memories, is
    opened by a child process killed at several points of the migrations: each kill leaves an intact database whose
    recorded migrations and objects agree (each migration wholly applied and recorded, or wholly absent) and whose
    memories are all there; opening it again completes the migrations, and the store checks out."""
    # the last two that create objects and drop none (one that rebuilds a table cannot be told applied or not by
    # the table's presence; it is undone below all the same, and the schema checked after each kill)
    late = [m for m in migrate.available() if created(m) and not dropped(m)][-2:]
    # what the older knotwork lacks: ``late`` and any data-only migration after it (0024 converts vectors;
    # this store has none, so it changes nothing here)
    missing = [m for m in migrate.available() if m.version >= late[0].version]
    fresh, old = tmp_path / "fresh.db", tmp_path / "old.db"
    knotwork.open(fresh, settings=NO_MODEL).close()
    with knotwork.open(old, settings=NO_MODEL) as mem:
        pad = " ".join(f"term{j}" for j in range(150))  # long rows: the migration's index builds scan more pages
        made = mem.add_many([{"content": f"note {i} on the release train {pad}", "workspace": f"w{i % 3}",
                              "tags": {"n": str(i % 11)}} for i in range(4000)], consolidate=False)
        for a, b in zip(made[:300], made[300:600]):  # of one workspace
            mem.link(a.id, b.id, "relates_to")
    with closing(sqlite3.connect(old, isolation_level=None)) as conn:  # back to the schema before ``late``
        conn.execute("BEGIN")
        for migration in reversed(missing):
            for kind, name in reversed(created(migration)):
                if kind == "column":
                    table, column = name.split(".")
                    conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
                else:
                    conn.execute(f"DROP {kind} {name}")
            for kind, name in dropped(migration):
                recreate(conn, migration, kind, name)
            conn.execute("DELETE FROM schema_migrations WHERE version = ?", (migration.version,))
        conn.execute("COMMIT")
        before = contents(conn)
        with closing(sqlite3.connect(":memory:")) as older:  # what the earlier migrations alone make
            for migration in migrate.available()[: -len(missing)]:
                for statement in migrate.statements(migration.sql):
                    older.execute(statement)
            assert {k: v for k, v in schema(conn)["tables"].items() if k != "schema_migrations"} == \
                schema(older)["tables"] and schema(conn)["others"] == schema(older)["others"]
    assert not Path(f"{old}-wal").exists() and len(before[0]) == 4000 and len(before[2]) == 300
    with closing(sqlite3.connect(fresh)) as conn:
        newest = schema(conn)

    def opener(db: Path) -> subprocess.Popen[str]:
        shutil.copy(old, db)
        proc = subprocess.Popen([sys.executable, "-c", OPENER, str(db)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "opening"
        return proc

    calibration = opener(tmp_path / "calibration.db")  # how long after "opening" the migrations are done
    started = time.perf_counter()
    assert calibration.stdout is not None and calibration.stdout.readline().strip() == "migrated"
    took = time.perf_counter() - started
    calibration.kill()
    calibration.wait(timeout=30)
    inside = 0
    for n, share in enumerate((0.2, 0.4, 0.6, 0.8, 1.5)):
        db = tmp_path / f"killed{n}.db"
        proc = opener(db)
        time.sleep(share * took)
        proc.send_signal(signal.SIGSTOP)
        writing = holds_write_lock(proc.pid, db)
        proc.kill()
        proc.wait(timeout=30)
        with closing(sqlite3.connect(db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            recorded = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
            applied = [m.version in recorded for m in late]
            assert applied == sorted(applied, reverse=True), recorded  # in order
            for migration, done in zip(late, applied):
                states = {present(conn, kind, name) for kind, name in created(migration)}
                assert states == {done}, (migration.name, share, states)  # wholly there, recorded, or wholly absent
            assert contents(conn) == before, share
        if writing and not all(applied):
            inside += 1  # stopped inside a migration's transaction, and the kill undid it
        with knotwork.open(db, settings=NO_MODEL) as mem:
            assert mem.store.schema_version() == missing[-1].version
            report = mem.check()
            assert report.ok, report.to_dict()
            assert mem.store.count_memories() == 4000
        with closing(sqlite3.connect(db)) as conn:
            assert schema(conn) == newest
            assert contents(conn) == before
    assert inside, f"no kill landed inside a migration ({took * 1000:.0f} ms from open to migrated): too few memories"
