"""SQLite reads go through one shared memory map, not a private copy of each page per connection.

A server has a writer and one reader per request thread; each used to copy every page it read into its own
page cache (8 MB per reader, 64 MB for the writer), so RSS grew with the store up to those caps. With
``mmap_size`` set, a page read is the file's page, mapped once per process and shared with the OS's cache.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import knotwork
from knotwork.store.sqlite.connections import MMAP_BYTES

SCAN = """
    import sqlite3, sys, threading
    from pathlib import Path
    from knotwork.store.sqlite import connections
    connections.MMAP_BYTES = int(sys.argv[2])
    from knotwork.store.sqlite.connections import Readers

    def anon_kb():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1])

    readers = Readers(sys.argv[1], 1000)
    before = anon_kb()

    def scan():  # every page of the table, through this thread's reader
        assert readers.get().execute("SELECT sum(length(b)) FROM t").fetchone()[0] == 64_000 * 400

    threads = [threading.Thread(target=scan) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(anon_kb() - before)
"""


def _grown_kb(db: Path, mmap_bytes: int) -> int:
    code = textwrap.dedent(SCAN)
    out = subprocess.run([sys.executable, "-c", code, str(db), str(mmap_bytes)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def test_readers_share_mapped_pages_instead_of_copying_them(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "pages.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (b BLOB)")
        conn.executemany("INSERT INTO t VALUES (randomblob(400))", [()] * 64_000)  # ~27 MB of table pages (rows small enough to sit on them)
    copied = _grown_kb(db, 0)  # no map: each of four readers fills its 8 MB cache
    mapped = _grown_kb(db, MMAP_BYTES)
    assert copied > 24_000
    assert mapped < copied / 4


def test_the_store_opens_every_connection_with_the_map(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db") as mem:
        mem.add("the release train leaves on Thursdays")
        writer = mem.store._conn.execute("PRAGMA mmap_size").fetchone()[0]
        reader = mem.store._readers.get().execute("PRAGMA mmap_size").fetchone()[0]
    assert writer == reader == MMAP_BYTES
