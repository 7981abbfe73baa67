"""Migration 0024 converted the float32 vectors of a store made before it to float16 (store/sqlite/halves.py);
0029 and 0030 then take entity and memory vectors on to int8 with a scale (store/sqlite/scaled.py), and the
store still takes and gives float32 and searches as it did."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork.domain import rules
from knotwork.store.sqlite import halves, migrate, scaled
from tests._fakes import DIM, RandomEmbedder, open_fake

HALF = 24  # the migration that converts the vectors


def old_store(path: Path) -> None:
    """A file at the schema before migration 0024 (float32 vectors), applied as the runner applies them."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for m in migrate.available():
        if m.version >= HALF:
            continue
        for statement in migrate.statements(m.sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00Z')", (m.version, m.name))
    conn.close()


def add_old_memory(path: Path, mid: str, text: str, vectors: list[np.ndarray]) -> None:
    conn = sqlite3.connect(path)
    stamp = "2026-01-01T00:00:00.000000Z"
    conn.execute(
        "INSERT INTO memories (id, rid, content, workspace, agent_id, created_at, updated_at, valid_at, content_hash)"
        " VALUES (?, ?, ?, 'w', '', ?, ?, ?, ?)",
        (mid, mid[::-1], text, stamp, stamp, stamp, rules.content_hash(text)),
    )
    for chunk, v in enumerate(vectors):
        conn.execute("INSERT INTO memory_vectors (memory_id, chunk, vector) VALUES (?, ?, ?)", (mid, chunk, v.astype("<f4").tobytes()))
    conn.commit()
    conn.close()


def test_pack_and_unpack_round_to_float16_and_refuse_a_torn_vector() -> None:
    v = np.random.default_rng(3).standard_normal(384).astype(np.float32)
    v /= np.linalg.norm(v)
    packed = halves.pack(v.tobytes())
    assert len(packed) == 384 * 2
    back = np.frombuffer(halves.unpack(packed), "<f4")
    assert np.array_equal(back, v.astype(np.float16).astype(np.float32))
    assert abs(float(back @ v) - 1.0) < 1e-3
    rows = halves.unpack_rows([(1, packed, "x"), (2, halves.pack(v[:8].tobytes()), "y")], 1)
    assert [(r[0], len(r[1]), r[2]) for r in rows] == [(1, 384 * 4, "x"), (2, 8 * 4, "y")]
    with pytest.raises(ValueError, match="multiple of 4"):
        halves.pack(b"\x00" * 6)


def test_an_old_store_is_converted_on_open_and_searches_as_before(db_path: Path) -> None:
    old_store(db_path)
    embedder = RandomEmbedder()
    texts = {f"01K00000000000000000000{i:03d}": f"old memory {i}" for i in range(30)}
    originals = {mid: [np.asarray(embedder.embed_query(t), dtype=np.float32)] for mid, t in texts.items()}
    for mid, text in texts.items():
        add_old_memory(db_path, mid, text, originals[mid])
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO entities (id, workspace, name, norm, created_at, updated_at)"
                 " VALUES ('01K0000000000000000000E001', 'w', 'Alice', 'alice', '2026-01-01', '2026-01-01')")
    entity = np.asarray(embedder.embed_query("Alice (person)"), dtype=np.float32)
    conn.execute("INSERT INTO entity_vectors (entity_id, vector) VALUES ('01K0000000000000000000E001', ?)", (entity.tobytes(),))
    conn.commit()
    assert {r[0] for r in conn.execute("SELECT length(vector) FROM memory_vectors")} == {DIM * 4}
    conn.close()

    with open_fake(db_path) as mem:
        assert mem.store.schema_version() >= HALF
        stored = mem.store.vectors_by_memory(list(texts))
        for mid, want in originals.items():
            got = np.frombuffer(stored[mid][1][0], "<f4")
            half = want[0].astype(np.float16).astype(np.float32)  # 0024, then 0030 to int8
            assert np.array_equal(got, np.frombuffer(scaled.unpack(scaled.pack(half.tobytes())), "<f4")), mid
        # entity vectors went on to int8 with a scale (migration 0029, store/sqlite/scaled.py)
        got = np.frombuffer(mem.store.kg_vectors_of(["01K0000000000000000000E001"])["01K0000000000000000000E001"], "<f4")
        assert np.array_equal(got, np.frombuffer(scaled.unpack(scaled.pack(entity.astype(np.float16).astype(np.float32).tobytes())), "<f4"))
        for mid, text in list(texts.items())[:5]:
            hits = mem.search(text, workspace="w", limit=3)
            assert hits[0].memory.id == mid  # its own vector (and its words) put it first
    conn = sqlite3.connect(db_path)
    assert {r[0] for r in conn.execute("SELECT length(vector) FROM memory_vectors")} == {DIM + scaled.HEAD}
    assert conn.execute("SELECT length(vector) FROM entity_vectors").fetchone()[0] == DIM + scaled.HEAD
    conn.close()
