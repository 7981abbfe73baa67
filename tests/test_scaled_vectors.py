"""SQLite keeps entity-name vectors as int8 with a scale (store/sqlite/scaled.py), takes and gives float32 of
unit length, and migration 0029 converts the float16 entity vectors of a store made before it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork.store.sqlite import halves, migrate, scaled
from tests.test_similar import open_fake

SCALED = 29  # the migration that converts the entity vectors


def unit(seed: int, dim: int = 384) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def test_pack_keeps_a_quarter_of_the_bytes_and_cosines_within_0_004() -> None:
    vs = [unit(i) for i in range(50)]
    packed = [scaled.pack(v.tobytes()) for v in vs]
    assert {len(p) for p in packed} == {384 + scaled.HEAD}
    back = [np.frombuffer(scaled.unpack(p), "<f4") for p in packed]
    assert all(abs(float(np.linalg.norm(b)) - 1.0) < 1e-5 for b in back)
    for i in range(0, 50, 2):
        near = vs[i] + 0.4 * vs[i + 1]  # pairs with a range of cosines, not only near 0
        near /= np.linalg.norm(near)
        exact = float(vs[i] @ near)
        got = float(back[i] @ np.frombuffer(scaled.unpack(scaled.pack(near.tobytes())), "<f4"))
        assert abs(got - exact) < 0.004
    rows = scaled.unpack_rows([(1, packed[0], "x"), (2, packed[1], "y")], 1)
    assert [(r[0], r[1], r[2]) for r in rows] == [(1, scaled.unpack(packed[0]), "x"), (2, scaled.unpack(packed[1]), "y")]
    with pytest.raises(ValueError, match="multiple of 4"):
        scaled.pack(b"\x00" * 6)


def test_an_old_store_has_its_entity_vectors_converted_on_open(db_path: Path) -> None:
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    conn.create_function("knotwork_half", 1, halves.migrate_function)
    for m in migrate.available():
        if m.version >= SCALED:
            continue
        for statement in migrate.statements(m.sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00Z')", (m.version, m.name))
    vectors = {f"01K0000000000000000000E{i:03d}": unit(100 + i, 16) for i in range(3)}
    for eid, v in vectors.items():
        conn.execute("INSERT INTO entities (id, workspace, name, norm, created_at, updated_at)"
                     " VALUES (?, 'w', ?, ?, '2026-01-01', '2026-01-01')", (eid, f"Name {eid}", f"name{eid.lower()}"))
        conn.execute("INSERT INTO entity_vectors (entity_id, vector) VALUES (?, ?)", (eid, halves.pack(v.tobytes())))
    conn.close()

    with open_fake(db_path) as mem:
        assert mem.store.schema_version() >= SCALED
        got = mem.store.kg_vectors_of(list(vectors))
        rows = {eid: blob for _, eid, _, blob in mem.store.kg_entity_vectors(0)}
    for eid, v in vectors.items():
        half = v.astype(np.float16).astype(np.float32)
        assert got[eid] == rows[eid] == scaled.unpack(scaled.pack(half.tobytes()))
        assert float(np.frombuffer(got[eid], "<f4") @ v) > 0.999
    conn = sqlite3.connect(db_path)
    assert {r[0] for r in conn.execute("SELECT length(vector) FROM entity_vectors")} == {16 + scaled.HEAD}
    conn.close()
