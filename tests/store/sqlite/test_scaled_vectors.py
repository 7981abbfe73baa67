"""SQLite keeps entity-name and memory vectors as int8 with a scale (store/sqlite/scaled.py), takes and gives
float32 of unit length; migration 0029 converts the float16 entity vectors of a store made before it, 0030 its
float16 memory vectors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork.store.sqlite import halves, migrate, scaled
from knotwork.domain import rules
from tests._fakes import DIM, RandomEmbedder, open_fake

SCALED = 29  # the migration that converts the entity vectors
SCALED_MEMORIES = 30  # the one that converts the memory vectors


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


def store_before(db_path: Path, version: int) -> sqlite3.Connection:
    """A store file with every migration before ``version`` applied, as an older knotwork left it."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    conn.create_function("knotwork_half", 1, halves.migrate_function)
    conn.create_function("knotwork_scaled", 1, scaled.migrate_function)
    for m in migrate.available():
        if m.version >= version:
            continue
        for statement in migrate.statements(m.sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00Z')", (m.version, m.name))
    return conn


def test_an_old_store_has_its_entity_vectors_converted_on_open(db_path: Path) -> None:
    conn = store_before(db_path, SCALED)
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


def test_vectors_of_several_widths_decode_each_as_its_own() -> None:
    wide, narrow = unit(1), unit(2, 16)
    rows = scaled.unpack_rows([("a", scaled.pack(wide.tobytes())), ("b", scaled.pack(narrow.tobytes()))], 1)
    assert [len(r[1]) for r in rows] == [384 * 4, 16 * 4]
    assert float(np.frombuffer(rows[0][1], "<f4") @ wide) > 0.999
    assert float(np.frombuffer(rows[1][1], "<f4") @ narrow) > 0.999
    assert scaled.unpack_rows([], 1) == []


def test_new_memory_vectors_are_kept_as_int8_and_read_back_as_unit_float32(db_path: Path) -> None:
    with open_fake(db_path) as mem:
        m = mem.add("alpha|beta", workspace="w")
        chunks = mem.store.vectors_by_memory([m.id])[m.id][1]
    embedder = RandomEmbedder()
    for chunk, text in zip(chunks, ["alpha", "beta"]):
        exact = np.asarray(embedder.embed_query(text), dtype=np.float32)
        want = np.frombuffer(scaled.unpack(scaled.pack(exact.tobytes())), "<f4")
        got = np.frombuffer(chunk, "<f4")
        assert np.array_equal(got, want)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    conn = sqlite3.connect(db_path)
    sizes = [r[0] for r in conn.execute("SELECT length(vector) FROM memory_vectors WHERE memory_id = ?", (m.id,))]
    conn.close()
    assert sizes == [DIM + scaled.HEAD, DIM + scaled.HEAD]


def test_an_old_store_has_its_memory_vectors_converted_on_open_and_searches_as_before(db_path: Path) -> None:
    conn = store_before(db_path, SCALED_MEMORIES)
    embedder = RandomEmbedder()
    texts = {f"01K00000000000000000000{i:03d}": f"old memory {i}" for i in range(30)}
    stamp = "2026-01-01T00:00:00.000000Z"
    halfs = {}
    for mid, text in texts.items():
        conn.execute(
            "INSERT INTO memories (id, rid, content, workspace, agent_id, created_at, updated_at, valid_at, content_hash)"
            " VALUES (?, ?, ?, 'w', '', ?, ?, ?, ?)",
            (mid, mid[::-1], text, stamp, stamp, stamp, rules.content_hash(text)),
        )
        halfs[mid] = halves.pack(np.asarray(embedder.embed_query(text), dtype=np.float32).tobytes())
        conn.execute("INSERT INTO memory_vectors (memory_id, chunk, vector) VALUES (?, 0, ?)", (mid, halfs[mid]))
    assert {r[0] for r in conn.execute("SELECT length(vector) FROM memory_vectors")} == {DIM * 2}
    conn.close()

    with open_fake(db_path) as mem:
        assert mem.store.schema_version() >= SCALED_MEMORIES
        stored = mem.store.vectors_by_memory(list(texts))
        for mid, half in halfs.items():
            assert stored[mid][1][0] == scaled.unpack(scaled.pack(halves.unpack(half))), mid
        for mid, text in list(texts.items())[:5]:
            hits = mem.search(text, workspace="w", limit=3)
            assert hits[0].memory.id == mid  # its own vector (and its words) put it first
    conn = sqlite3.connect(db_path)
    assert {r[0] for r in conn.execute("SELECT length(vector) FROM memory_vectors")} == {DIM + scaled.HEAD}
    conn.close()


def test_a_vector_read_back_and_packed_again_reads_back_the_same_bits() -> None:
    """Export, ``migrate`` and import hand on the float32 read back; packing it again must not drift."""
    for seed in range(20):
        once = scaled.unpack(scaled.pack(unit(seed).tobytes()))
        twice = scaled.pack(once)
        assert twice[scaled.HEAD :] == scaled.pack(unit(seed).tobytes())[scaled.HEAD :]
        assert scaled.unpack(twice) == once


def test_a_vector_of_another_width_is_left_out_of_search_not_fatal_on_either_backend(target: str) -> None:
    """A process of a version that kept float16 (before SQLite migration 0030), open on the file while a newer one
    converted it, writes a vector of another width: searches go on, without that memory's vector, as PostgreSQL's
    k-NN (which reads only rows of the query's width) always did."""
    import knotwork
    from tests import _sql

    with knotwork.open(target) as mem:
        kept = mem.add("the deploy runs on fridays after the release review", force=True)
        mem.add("redis holds the web sessions for a day", force=True)
        odd = mem.add("the postgres schema migration notes for the deploy", force=True)
    v = (np.ones(384) / np.sqrt(384)).astype("<f4")
    if "://" in target:
        _sql.execute(target, "UPDATE memory_vectors SET vector = ? WHERE memory_id = ?", (str(v[:100].tolist()), odd.id))
    else:
        _sql.execute(target, "UPDATE memory_vectors SET vector = ? WHERE memory_id = ?", (halves.pack(v.tobytes()), odd.id))
    with knotwork.open(target) as mem:
        vector_only = mem.search("weekly shipping day", recipe="memory_vector")
        assert kept.id in [h.memory.id for h in vector_only] and odd.id not in [h.memory.id for h in vector_only]
        assert odd.id in [h.memory.id for h in mem.search("postgres schema migration")]  # BM25 still finds it
