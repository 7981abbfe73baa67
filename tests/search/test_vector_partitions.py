"""The vector index keeps one partition per scope: searches within a workspace must
return exactly what a scan of every vector in the file returns, whoever wrote them."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork.search import vector_index
from knotwork.store.sqlite import scaled
from tests._fakes import RandomEmbedder, chunky, open_fake
from tests._similar import check
from tests.search._vectors import SPACES, assert_exact


def test_filtered_searches_match_a_full_scan_while_another_process_writes(db_path: Path) -> None:
    rng = random.Random(7)
    texts = map(chunky, range(100_000))
    with open_fake(db_path) as reader, open_fake(db_path) as writer:
        live: list[str] = []
        for step in range(12):
            batch = [{"content": next(texts), "workspace": rng.choice(SPACES)} for _ in range(rng.randint(1, 15))]
            live += [m.id for m in writer.add_many(batch)]
            if step % 3 == 2:
                gone = live.pop(rng.randrange(len(live)))
                writer.delete(gone)
                writer.update(rng.choice(live), content=next(texts))  # new vectors, old ones tombstoned
            assert_exact(reader.index, db_path, rng)
        assert len(reader.index) == len(writer.index)


def test_compaction_keeps_searches_and_vectors_exact(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deleting most rows renumbers them (a new generation); every partition follows."""
    monkeypatch.setattr(vector_index, "_COMPACT_FROM", 100)  # the rule as at 1,000, on fewer rows
    rng = random.Random(11)
    with open_fake(db_path) as mem:
        stored = mem.add_many([{"content": f"note {i}", "workspace": rng.choice(SPACES)} for i in range(160)])
        assert_exact(mem.index, db_path, rng)
        before = mem.index.generation
        doomed = [m.id for m in stored[:130]]
        conn = sqlite3.connect(db_path)  # another process deletes the vectors: tombstones only
        conn.executemany("DELETE FROM memory_vectors WHERE memory_id = ?", [(mid,) for mid in doomed])
        conn.commit()
        conn.close()
        mem.index.sync()
        assert mem.index.generation == before + 1
        assert len(mem.index) == 30
        assert_exact(mem.index, db_path, rng)
        kept = [m.id for m in stored[130:]]
        vectors = mem.index.vectors_of(kept)
        for m in stored[130:150]:
            fresh = np.asarray(RandomEmbedder().embed_query(m.content), dtype=np.float32)
            stored_as = np.frombuffer(scaled.unpack(scaled.pack(fresh.tobytes())), "<f4")  # the store keeps int8
            assert vectors[m.id] == pytest.approx(stored_as, abs=1e-6)
        assert [mid for mid, _ in mem.index.rows_of(kept)] == kept
        mem.add_many([{"content": f"later {i}", "workspace": rng.choice(SPACES)} for i in range(40)])
        assert_exact(mem.index, db_path, rng)


def test_similar_lists_stay_exact_across_partitions(db_path: Path) -> None:
    rng = random.Random(5)
    texts = map(chunky, range(100_000))
    with open_fake(db_path) as mem:
        for _ in range(6):
            mem.add_many([{"content": next(texts), "workspace": rng.choice(SPACES)} for _ in range(rng.randint(1, 20))])
            check(mem, db_path)
