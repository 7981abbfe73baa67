"""The HNSW graph beside a SQLite file: forced on over a small store it must answer what a scan of
every vector in the file answers, follow other connections' writes, and survive a lost or broken file."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from tests.search.test_vector_partitions import SPACES, assert_exact
from tests.test_similar import RandomEmbedder, chunky


def open_ann(path: Path, min_rows: int = 1, embedder: RandomEmbedder | None = None) -> Knotwork:
    settings = Settings(vector_ann_min_rows=min_rows)
    return Knotwork(open_store(str(path), settings), settings, embedder=embedder or RandomEmbedder())


def fill(mem: Knotwork, n: int, rng: random.Random) -> list[str]:
    return [m.id for m in mem.add_many([{"content": chunky(i), "workspace": rng.choice(SPACES)} for i in range(n)])]


def test_forced_on_it_answers_the_exact_top_k(db_path: Path) -> None:
    rng = random.Random(3)
    with open_ann(db_path) as mem:
        fill(mem, 400, rng)
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann is not None and len(mem.index._ann) == len(mem.index)  # the graph answered


def test_another_connections_adds_and_deletes_are_seen(db_path: Path) -> None:
    rng = random.Random(9)
    with open_ann(db_path) as reader, open_ann(db_path, min_rows=0) as writer:
        live = fill(writer, 300, rng)
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
        mem.index.search(RandomEmbedder().embed_query("x"), 5, None)
    graph, meta = _graph_files(db_path)
    assert graph.exists() and meta.exists()
    with open_ann(db_path) as mem:  # a clean file is read, not rebuilt
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
    graph.write_bytes(b"not an hnsw graph" * 10)
    with open_ann(db_path) as mem:
        assert_exact(mem.index, db_path, rng)
        assert not mem.index._ann.loaded_from_file
    with open_ann(db_path) as mem:  # the rebuilt graph was saved on close
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
    graph.unlink()
    with open_ann(db_path) as mem:
        assert_exact(mem.index, db_path, rng)
        assert not mem.index._ann.loaded_from_file


def test_a_graph_of_another_model_or_ahead_of_the_store_is_rebuilt(db_path: Path) -> None:
    rng = random.Random(6)
    other = RandomEmbedder()
    other.model_id = "test-random@2"
    with open_ann(db_path) as mem:
        fill(mem, 150, rng)
        assert_exact(mem.index, db_path, rng)
    with open_ann(db_path, embedder=other) as mem:
        mem.index.search(other.embed_query("x"), 5, None)
        assert not mem.index._ann.loaded_from_file
    conn = sqlite3.connect(db_path)  # the store loses its newest vectors (a restore): the graph is ahead of it
    newest = conn.execute("SELECT memory_id FROM memory_vectors ORDER BY seq DESC LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM memories WHERE id = ?", (newest,))
    conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (newest,))
    conn.execute("DELETE FROM vector_tombstones")
    conn.commit()
    conn.close()
    with open_ann(db_path, embedder=other) as mem:
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
        assert mem.index._ann is not None


def test_a_stale_graph_is_caught_up_with_writes_made_while_nobody_held_it(db_path: Path) -> None:
    rng = random.Random(12)
    with open_ann(db_path) as mem:
        ids = fill(mem, 150, rng)
        mem.index.search(RandomEmbedder().embed_query("x"), 5, None)
    with open_ann(db_path, min_rows=0) as writer:  # written while the graph file lay unused
        writer.delete(ids[0])
        later = [m.id for m in writer.add_many([{"content": f"later {i}", "workspace": "a"} for i in range(30)])]
    with open_ann(db_path) as mem:
        assert_exact(mem.index, db_path, rng)
        assert mem.index._ann.loaded_from_file
        assert mem.index.search(RandomEmbedder().embed_query("later 7"), 1, "a")[0].memory_id == later[7]
        assert ids[0] not in [h.memory_id for h in mem.index.search(RandomEmbedder().embed_query(chunky(0)), 200, None)]


def test_asking_for_the_graph_without_hnswlib_installed_is_refused_by_name(tmp_path, monkeypatch) -> None:
    import importlib.util

    from knotwork.errors import InvalidInput
    from knotwork.search.vector_index import VectorIndex

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "hnswlib" else found(name, *a))
    with pytest.raises(InvalidInput, match="knotwork\\[ann\\]") as caught:
        VectorIndex(None, 8, ann_path=str(tmp_path / "k.db.hnsw"), ann_min_rows=1000)
    assert caught.value.field == "vector_ann_min_rows"
    VectorIndex(None, 8, ann_path=str(tmp_path / "k.db.hnsw"), ann_min_rows=0)  # off: hnswlib is not needed
