"""What every backend guarantees the same way: migrations recorded in the database, a newer schema refused,
failed batches rolled back, and several processes writing at once losing nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import psycopg
import pytest

import knotwork
from knotwork import BackendUnavailable, Settings
from knotwork.domain.models import ALL_WORKSPACES, MemoryFilter
from knotwork.domain.temporal import now
from knotwork.search.vector_index import VectorIndex
from knotwork.store.postgres import migrate as pg_migrate

NO_EMBEDDINGS = Settings(embedder="none")


def test_postgres_migrations_recorded_once(postgres_database) -> None:
    url = postgres_database.fresh()
    knotwork.open(url, settings=NO_EMBEDDINGS).close()
    with knotwork.open(url, settings=NO_EMBEDDINGS) as mem:
        mem.add("x")
        version = mem.store.schema_version()
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        extensions = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
    assert rows == [(m.version, m.name) for m in pg_migrate.available()]
    assert rows[-1][0] == version and rows[0][1] == "memories"
    assert "vector" in extensions


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        ("INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')", "newer knotwork"),
        (
            "UPDATE schema_migrations SET name = 'something_else' WHERE version = 2",
            "migration 0002 applied here is 'something_else', but this knotwork's is 'links'",
        ),
    ],
)
def test_a_postgres_schema_this_knotwork_did_not_write_is_refused(postgres_database, tamper: str, message: str) -> None:
    url = postgres_database.fresh()
    with psycopg.connect(url) as conn:
        conn.execute(tamper)
    with pytest.raises(BackendUnavailable, match=message):
        knotwork.open(url, settings=NO_EMBEDDINGS)


def test_a_password_never_shows_in_the_location(postgres_database) -> None:
    url = postgres_database.fresh()
    with knotwork.open(url, settings=NO_EMBEDDINGS) as mem:
        assert mem.store.location == url  # the test server has no password
    from knotwork.store.postgres.store import redact

    assert redact("postgresql://kw:s3cret@db.example:5432/kw") == "postgresql://kw:***@db.example:5432/kw"


def test_unreachable_postgres_is_a_clear_error() -> None:
    with pytest.raises(BackendUnavailable, match="cannot open as a knotwork database"):
        knotwork.open("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", settings=NO_EMBEDDINGS)


def test_failed_batch_rolls_back(target: str) -> None:
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        a = mem.add("keep me")
        with pytest.raises(RuntimeError):
            with mem.store.transaction():
                mem.store.delete_memory(a.id)
                mem.add("written inside, rolled back")
                raise RuntimeError("boom")
        assert mem.get(a.id).content == "keep me"
        assert mem.store.count_memories() == 1


def test_tracer_sees_statements(target: str) -> None:
    seen: list[str] = []
    with knotwork.open(target, settings=NO_EMBEDDINGS, tracer=lambda sql, params: seen.append(sql)) as mem:
        mem.add("traced")
    assert any(s.startswith("INSERT INTO memories") for s in seen)


WRITER = textwrap.dedent(
    """
    import sys
    import knotwork
    from knotwork import Conflict, Settings

    target, name, shared, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        for i in range(n):
            mem.add(f"{name} memory {i}", tags={"writer": name})
            while True:  # an edit that met another's is refused, and tried again: never lost, never overwriting
                try:
                    mem.update(shared, metadata={"edit": f"{name}-{i}"})
                    break
                except Conflict:
                    continue
    """
)


def test_processes_writing_at_once_make_exactly_their_writes(target: str) -> None:
    writers, per_writer = ("alpha", "beta", "gamma"), 25
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        shared = mem.add("edited by everyone").id
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, target, name, shared, str(per_writer)], stderr=subprocess.PIPE)
        for name in writers
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        contents = [m.content for m in mem.store.iter_memories()]
        assert sorted(contents) == sorted(
            ["edited by everyone", *(f"{name} memory {i}" for name in writers for i in range(per_writer))]
        )
        edits = [f"{name}-{i}" for name in writers for i in range(per_writer)]
        history = mem.history(shared)
        # every edit is a version of its own, numbered one after the other: none was lost or overwritten
        assert [m.version for m in history] == list(range(1, len(edits) + 2))
        assert sorted(m.metadata["edit"] for m in history[1:]) == sorted(edits)
        for name in writers:  # and each writer's edits are in the order it made them
            mine = [m.metadata["edit"] for m in history[1:] if m.metadata["edit"].startswith(name + "-")]
            assert mine == [f"{name}-{i}" for i in range(per_writer)]


def test_nearest_memories_of_a_small_workspace_beside_a_large_one(target: str) -> None:
    """The k nearest memories a filter lets through, whatever crowds them out (HNSW filters after its walk)."""
    dim, big, small = 16, 400, 4
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((big + small, dim)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        drafts = [mem._draft(f"big {i}", workspace="big") for i in range(big)]
        drafts += [mem._draft(f"small {i}", workspace="small") for i in range(small)]
        with mem.store.transaction():
            stored = mem.store.insert_memories(drafts)
            for m, v in zip(stored, vectors):
                mem.store.put_vectors(m.id, [v.tobytes()])
        query = vectors[0] + 0.01 * rng.standard_normal(dim).astype("<f4")  # right next to a memory of "big"
        query /= np.linalg.norm(query)
        index = VectorIndex(mem.store, dim)
        got = mem.store.vector_candidates(index, query, 2, MemoryFilter(workspace="small"), now())
        exact = sorted(((float(v @ query), m.id) for m, v in zip(stored[big:], vectors[big:])), reverse=True)[:2]
        assert [mid for mid, _ in got] == [mid for _, mid in exact]
        # SQLite keeps vectors as int8 with a scale (store/sqlite/scaled.py): a component of these 16-dimension unit
        # vectors moves by up to half a step (the largest component / 254, under 3e-3), a cosine by up to about 1e-2
        assert [score for _, score in got] == pytest.approx([score for score, _ in exact], abs=1e-2)
        everywhere = mem.store.vector_candidates(index, query, 1, MemoryFilter(workspace=ALL_WORKSPACES), now())
        assert everywhere[0][0] == stored[0].id


def test_a_query_near_nothing_stops_at_the_similarity_floor(target: str) -> None:
    """Nearest first, a row under ``min_similarity`` ends the k-NN: no wider walk or exact scan can add a memory
    above it (an off-topic query must not cost several HNSW walks and a scan), and the answer is the exact one."""
    dim, n = 16, 300
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((n, dim)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    seen: list[str] = []
    with knotwork.open(target, settings=NO_EMBEDDINGS, tracer=lambda sql, params: seen.append(sql)) as mem:
        with mem.store.transaction():
            stored = mem.store.insert_memories([mem._draft(f"memory {i}", workspace="w") for i in range(n)])
            for m, v in zip(stored, vectors):
                mem.store.put_vectors(m.id, [v.tobytes()])
        query = vectors[7] + 0.05 * rng.standard_normal(dim).astype("<f4")
        query /= np.linalg.norm(query)
        floor = 0.9
        seen.clear()
        got = mem.store.vector_candidates(VectorIndex(mem.store, dim), query, 50, MemoryFilter(workspace="w"), now(), floor)
        above = sorted(((float(v @ query), m.id) for m, v in zip(stored, vectors) if v @ query >= floor), reverse=True)
        assert 0 < len(above) < 50
        assert [mid for mid, _ in got] == [mid for _, mid in above]
        if target.startswith("postgresql"):
            assert sum("<=>" in sql for sql in seen) == 1


def test_an_open_transaction_is_its_own_threads_only(mem) -> None:
    """A write in one thread sees its own transaction open; another thread of the process does not (it waits
    for the write lock and opens its own), so it syncs its indexes and keeps its caches as a fresh writer."""
    import threading

    store = mem.store
    seen: dict[str, bool] = {}
    inside, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.transaction():
            seen["writer"] = store.in_transaction()
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    assert inside.wait(10)
    seen["other"] = store.in_transaction()
    release.set()
    thread.join(10)
    assert seen == {"writer": True, "other": False}
    assert not store.in_transaction()


# Ids that share their first 10 characters (and, by pairs, their last 8) across workspaces, as memories added
# within the same second do; a caller limited to some workspaces must resolve among those only.
SHARED = "01JQ5ZZZZZ"
SCOPED_IDS = {
    f"{SHARED}A{'0' * 14}1": "shop",
    f"{SHARED}B{'0' * 14}1": "lab",
    f"{SHARED}C{'0' * 14}2": "shop",
    f"{SHARED}D{'0' * 14}3": None,
}


def _scoped_records() -> list[dict]:
    stamp = "2026-01-02T03:04:05Z"
    return [
        {"id": mid, "content": f"note {mid[-1]} of {ws or 'global'} ({mid[10]})", "workspace": ws,
         "created_at": stamp, "updated_at": stamp, "valid_at": stamp}
        for mid, ws in SCOPED_IDS.items()
    ]


def test_short_ids_resolve_within_the_workspaces_asked_for(target: str) -> None:
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        assert mem.import_records(_scoped_records()).added == 4
        store = mem.store
        of = {ws: sorted(mid for mid, w in SCOPED_IDS.items() if (w or "") == ws) for ws in ("shop", "lab", "")}
        prefix = SHARED[:8]
        assert sorted(store.resolve_memory_ref(prefix)) == sorted(SCOPED_IDS)
        assert sorted(store.resolve_memory_ref(prefix, workspaces={"shop"})) == of["shop"]
        assert sorted(store.resolve_memory_ref(prefix, workspaces={"lab", ""})) == sorted(of["lab"] + of[""])
        assert store.resolve_memory_ref(prefix, workspaces=set()) == []
        assert store.count_memory_refs(prefix) == 4
        assert store.count_memory_refs(prefix, {"shop"}) == 2 and store.count_memory_refs(prefix, {"nowhere"}) == 0
        # by suffix: the shop and the lab memory end alike
        assert sorted(store.resolve_memory_ref("00000001")) == sorted(of["shop"][:1] + of["lab"])
        assert store.resolve_memory_ref("00000001", workspaces={"lab"}) == of["lab"]
        # a full id outside the workspaces is no match at all
        assert store.resolve_memory_ref(of["shop"][0], workspaces={"lab", ""}) == []
        assert store.resolve_memory_ref(of["shop"][0], workspaces={"shop"}) == of["shop"][:1]
        # and the service's resolve says so: not found, or ambiguous among the workspaces' own ids only
        with pytest.raises(knotwork.NotFound):
            mem.resolve(of["shop"][0], {"lab", ""})
        with pytest.raises(knotwork.AmbiguousId) as ambiguous:
            mem.resolve(prefix, {"lab", ""})
        assert sorted(ambiguous.value.candidates) == sorted(of["lab"] + of[""])


def test_counts_within_workspaces(target: str) -> None:
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        mem.import_records(_scoped_records())
        shop, lab, glob = (sorted(m for m, w in SCOPED_IDS.items() if w == ws) for ws in ("shop", "lab", None))
        mem.link(shop[0], glob[0], "references")
        mem.link(lab[0], glob[0], "relates_to")
        mem.update(shop[1], invalid_at="2026-01-03T00:00:00Z")
        chunk = np.ones(16, dtype="<f4").tobytes()
        with mem.store.transaction():
            mem.store.put_vectors(shop[0], [chunk, chunk])  # two chunks of one memory
            mem.store.put_vectors(lab[0], [chunk])
        at = now()
        assert mem.store.count_within({"shop", ""}, at) == {"memories": 3, "retired": 1, "links": 1, "embedded": 1, "vectors": 2}
        assert mem.store.count_within({"lab", ""}, at) == {"memories": 2, "retired": 0, "links": 1, "embedded": 1, "vectors": 1}
        assert mem.store.count_within({"lab"}, at)["links"] == 0  # its one link ends in the global scope
        assert mem.store.count_within({"shop", "lab", ""}, at)["links"] == 2
        assert mem.store.count_within(set(), at)["memories"] == 0


def test_ranking_facts_read_the_same_columns_on_every_backend(target: str) -> None:
    """What the rerankers read of each candidate: when it became true (a datetime on both engines), its
    importance, its words as SQL counts them (a line break splits too) and its first artifact."""
    with knotwork.open(target, settings=NO_EMBEDDINGS) as mem:
        a = mem.add("Deploys run from main\nafter review", importance=0.8, artifacts=["ci.yml", "deploy.sh"],
                    valid_at="2025-03-04T05:06:07Z")
        b = mem.add("One word", force=True)
        facts = mem.store.ranking_facts([a.id, b.id, "01ZZZZZZZZZZZZZZZZZZZZZZZZ"])
    assert set(facts) == {a.id, b.id}  # an id that is not stored gives nothing
    assert facts[a.id].valid_at == a.valid_at and facts[a.id].valid_at.isoformat() == "2025-03-04T05:06:07+00:00"
    assert (facts[a.id].importance, facts[a.id].words, facts[a.id].artifact) == (0.8, 6, "ci.yml")
    assert (facts[b.id].words, facts[b.id].artifact, facts[b.id].valid_at) == (2, None, b.valid_at)
