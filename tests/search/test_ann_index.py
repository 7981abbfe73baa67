"""The HNSW graph beside a SQLite file: forced on over a small store it must answer what a scan of
every vector in the file answers, follow other connections' writes, and survive a lost or broken file."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from tests._fakes import DIM, RandomEmbedder, chunky, fill_without_graph, open_ann
from tests.search._vectors import SPACES, assert_exact, full_scan


def ready(mem: Knotwork) -> None:
    """Start the graph (a search past the threshold does) and wait until searches ask it."""
    mem.index.search(RandomEmbedder().embed_query("start the graph"), 5, None)
    assert mem.index.wait_for_ann(60)


def fill(mem: Knotwork, n: int, rng: random.Random) -> list[str]:
    return [m.id for m in mem.add_many([{"content": chunky(i), "workspace": rng.choice(SPACES)} for i in range(n)])]


def test_forced_on_it_answers_the_exact_top_k(db_path: Path) -> None:
    rng = random.Random(3)
    with open_ann(db_path) as mem:
        fill(mem, 400, rng)
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann is not None and len(mem.index._ann) == len(mem.index)  # the graph answered


def test_another_connections_adds_and_deletes_are_seen(db_path: Path) -> None:
    rng = random.Random(9)
    with open_ann(db_path) as reader, open_ann(db_path, min_rows=0) as writer:
        live = fill(writer, 300, rng)
        ready(reader)
        assert_exact(reader.index, db_path, rng)
        for step in range(6):
            live += [m.id for m in writer.add_many([{"content": f"fresh {step} {i}"} for i in range(5)])]
            gone = live.pop(rng.randrange(len(live)))
            writer.delete(gone)
            assert_exact(reader.index, db_path, rng)
            query = RandomEmbedder().embed_query(f"fresh {step} 2")
            hits = [h.memory_id for h in reader.index.search(query, 5, None)]
            assert hits[0] == live[-3]  # the other connection's new memory is found first
            assert gone not in [h.memory_id for h in reader.index.search(query, 500, None)]


def _graph_files(db_path: Path) -> tuple[Path, Path]:
    graph = Path(str(db_path) + ".hnsw")
    return graph, Path(str(graph) + ".json")


def test_the_graph_is_saved_reloaded_and_rebuilt_when_missing_or_broken(db_path: Path) -> None:
    rng = random.Random(4)
    with open_ann(db_path) as mem:
        fill(mem, 200, rng)
        ready(mem)
    graph, meta = _graph_files(db_path)
    assert graph.exists() and meta.exists()
    with open_ann(db_path) as mem:  # a clean file is read, not rebuilt
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
    graph.write_bytes(b"not an hnsw graph" * 10)
    with open_ann(db_path) as mem:
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert not mem.index._ann.loaded_from_file
    with open_ann(db_path) as mem:  # the rebuilt graph was saved
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
    graph.unlink()
    with open_ann(db_path) as mem:
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert not mem.index._ann.loaded_from_file


def test_a_graph_of_another_model_or_ahead_of_the_store_is_rebuilt(db_path: Path) -> None:
    rng = random.Random(6)
    other = RandomEmbedder()
    other.model_id = "test-random@2"
    with open_ann(db_path) as mem:
        fill(mem, 150, rng)
        ready(mem)
        assert_exact(mem.index, db_path, rng)
    with open_ann(db_path, embedder=other) as mem:
        ready(mem)
        assert not mem.index._ann.loaded_from_file
    conn = sqlite3.connect(db_path)  # the store loses its newest vectors (a restore): the graph is ahead of it
    newest = conn.execute("SELECT memory_id FROM memory_vectors ORDER BY seq DESC LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM memories WHERE id = ?", (newest,))
    conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (newest,))
    conn.execute("DELETE FROM vector_tombstones")
    conn.commit()
    conn.close()
    with open_ann(db_path, embedder=other) as mem:
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert not mem.index._ann.loaded_from_file


def test_below_the_threshold_search_is_the_exact_scan(db_path: Path) -> None:
    rng = random.Random(8)
    with open_ann(db_path, min_rows=0) as mem:
        fill(mem, 120, rng)
        want = [[h.memory.id for h in mem.search(f"text {i}", limit=5)] for i in range(10)]
    with open_ann(db_path, min_rows=10_000) as mem:
        assert [[h.memory.id for h in mem.search(f"text {i}", limit=5)] for i in range(10)] == want
        assert mem.index._ann is None  # no graph was ever built
    assert not _graph_files(db_path)[0].exists()
    with open_ann(db_path, min_rows=1) as mem:
        mem.search("text 3", limit=5)
        assert mem.index.wait_for_ann(60)


def test_a_stale_graph_is_caught_up_with_writes_made_while_nobody_held_it(db_path: Path) -> None:
    rng = random.Random(12)
    with open_ann(db_path) as mem:
        ids = fill(mem, 150, rng)
        ready(mem)
    with open_ann(db_path, min_rows=0) as writer:  # written while the graph file lay unused
        writer.delete(ids[0])
        later = [m.id for m in writer.add_many([{"content": f"later {i}", "workspace": "a"} for i in range(30)])]
    with open_ann(db_path) as mem:
        ready(mem)
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
        assert mem.index.search(RandomEmbedder().embed_query("later 7"), 1, "a")[0].memory_id == later[7]
        assert ids[0] not in [h.memory_id for h in mem.index.search(RandomEmbedder().embed_query(chunky(0)), 200, None)]


def test_without_hnswlib_the_graph_asked_for_is_refused_and_the_default_falls_back_to_the_scan(tmp_path, monkeypatch) -> None:
    import importlib.util

    from knotwork.errors import InvalidInput
    from knotwork.search.vector_index import VectorIndex

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "hnswlib" else found(name, *a))
    with pytest.raises(InvalidInput, match="knotwork\\[ann\\]") as caught:
        VectorIndex(None, 8, ann_path=str(tmp_path / "k.db.hnsw"), ann_min_rows=1000, ann_required=True)
    assert caught.value.field == "vector_ann_min_rows"
    VectorIndex(None, 8, ann_path=str(tmp_path / "k.db.hnsw"), ann_min_rows=0)  # off: hnswlib is not needed
    # the default threshold, not asked for: a fresh install without the extra searches by the exact scan
    assert VectorIndex(None, 8, ann_path=str(tmp_path / "k.db.hnsw"), ann_min_rows=1000).ann_min_rows == 0
    # and so does the service, opened with the default settings
    with Knotwork(open_store(str(tmp_path / "k.db"), Settings()), Settings(), embedder=RandomEmbedder()) as mem:
        mem.add_many([{"content": f"note {i}"} for i in range(5)])
        assert mem.index.ann_min_rows == 0 and mem.search("note 3", limit=1)[0].memory.content == "note 3"


_WRITER = """
import json, sys
from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from tests._fakes import RandomEmbedder

path, old = sys.argv[1], json.loads(sys.argv[2])
settings = Settings(vector_ann_min_rows=0)
with Knotwork(open_store(path, settings), settings, embedder=RandomEmbedder()) as mem:
    new = [m.id for m in mem.add_many([{"content": f"from the other process {i}", "workspace": "b"} for i in range(40)])]
    for gone in old[:3] + new[:1]:
        mem.delete(gone)
print(json.dumps(new))
"""


def test_another_process_adds_and_deletes_and_the_graph_follows(db_path: Path) -> None:
    import json
    import subprocess
    import sys

    rng = random.Random(21)
    with open_ann(db_path) as reader:
        old = fill(reader, 300, rng)
        ready(reader)
        ann = reader.index._ann
        run = subprocess.run(
            [sys.executable, "-c", _WRITER, str(db_path), json.dumps(old)], capture_output=True, text=True, timeout=120,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert run.returncode == 0, run.stderr
        new = json.loads(run.stdout)
        assert_exact(reader.index, db_path, rng)
        assert reader.index._ann is ann  # the same graph, caught up by the search, not rebuilt
        query = RandomEmbedder().embed_query("from the other process 7")
        assert reader.index.search(query, 1, "b")[0].memory_id == new[7]
        gone = set(old[:3] + new[:1])
        # the deleted vectors are marked deleted in the graph itself: it never returns them
        seqs_gone = {s for s, mid in zip(reader.index._seqs.tolist(), reader.index._memory_ids) if mid in gone}
        assert seqs_gone and ann.deleted >= len(seqs_gone)
        for mid in gone:
            text = chunky(old.index(mid)) if mid in old else "from the other process 0"
            for chunk in text.split("|"):
                labels, _ = ann.search(RandomEmbedder().embed_query(chunk), 50)
                assert not seqs_gone & set(labels.tolist())


def test_searches_answer_by_the_scan_while_another_builds_the_graph(db_path: Path) -> None:
    import fcntl

    rng = random.Random(5)
    with open_ann(db_path) as mem:
        fill(mem, 200, rng)
        # another process holds the graph file's build lock: this one's build waits for it
        with open(str(db_path) + ".hnsw.lock", "a+b") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            assert_exact(mem.index, db_path, rng)  # answered at once, by the exact scan
            assert mem.index._ann is None and mem.index._builder.is_alive()
            assert not mem.index.wait_for_ann(0.2)
        assert mem.index.wait_for_ann(60)
        assert_exact(mem.index, db_path, rng)


def test_a_graph_far_behind_is_caught_up_in_the_background(db_path: Path, monkeypatch) -> None:
    from knotwork.search import vector_index

    rng = random.Random(17)
    with open_ann(db_path) as mem, open_ann(db_path, min_rows=0) as writer:
        fill(mem, 100, rng)
        ready(mem)
        ann = mem.index._ann
        monkeypatch.setattr(vector_index, "ANN_INLINE", 20)
        # more new rows than a search adds itself
        writer.add_many([{"content": f"behind {i}|part {i}", "workspace": rng.choice(SPACES)} for i in range(60)])
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann is None or mem.index._ann is ann
        assert mem.index.wait_for_ann(60)
        assert mem.index._ann is ann and len(ann) == len(mem.index)  # the same graph, caught up
        assert_exact(mem.index, db_path, rng)


def test_a_workspaces_walk_follows_its_share_of_the_rows_unrounded(db_path: Path) -> None:
    # workspace "a" and the global scope hold 2/3 of the rows: a search of "a" walks k x 8 x 1.5 entries, not x 2
    with open_ann(db_path) as mem:
        mem.add_many([{"content": f"note {i}", "workspace": ("a", None, "b")[i % 3]} for i in range(300)])  # a chunk each
        ready(mem)
        ann = mem.index._ann
        asked: list[int] = []
        search = ann.search

        def counted(query, take):
            asked.append(take)
            return search(query, take)

        ann.search = counted
        rng = random.Random(4)
        for _ in range(5):
            query = np.array([rng.gauss(0, 1) for _ in range(DIM)], dtype=np.float32)
            query /= np.linalg.norm(query)
            got = [h.memory_id for h in mem.index.search(query, 10, "a")]
            assert got == [m for m, _ in full_scan(db_path, query, 10, "a")]
        assert asked == [120] * 5  # ceil(10 x 8 x 300 / 200); the graph answered each


CLOSER = """
import sys, time
import numpy as np
from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from tests._fakes import RandomEmbedder
settings = Settings(vector_ann_min_rows=1)
mem = Knotwork(open_store(sys.argv[1], settings), settings, embedder=RandomEmbedder())
mem.index.search(RandomEmbedder().embed_query("start the graph"), 5, None)  # starts the graph's build
time.sleep(0.2)
print("building:", mem.index._builder is not None and mem.index._builder.is_alive(), flush=True)
mem.close()
print("closed:", mem.index._builder is None or not mem.index._builder.is_alive(), flush=True)
"""


def test_a_process_that_closes_while_the_graph_is_built_exits_cleanly(db_path: Path) -> None:
    """Closing while the graph's build is inside hnswlib waits for its step: a thread still in hnswlib when the
    interpreter exits aborted the process (exit 134, "terminate called without an active exception"), after
    a CLI call had printed its answer."""
    import subprocess
    import sys

    fill_without_graph(db_path)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", CLOSER, str(db_path)], cwd=root, capture_output=True, text=True, timeout=300)
    assert "building: True" in done.stdout, done.stdout + done.stderr  # the close came while the build ran
    assert done.returncode == 0, done.stderr[-2000:]
    assert "closed: True" in done.stdout
