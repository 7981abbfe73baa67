"""The ``similar`` meta-relation: each memory's 5 nearest memories, kept current on every write path.

Most tests use a tiny deterministic embedder (a random unit vector per text,
``|`` splitting a text into chunks) so that long random write sequences stay
fast; after every step the stored lists are checked against a brute-force
computation over the vectors in the file.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from functools import partialmethod
from pathlib import Path

import numpy as np
import pytest

import knotwork
from knotwork import Knotwork
from knotwork.app import open_store
from knotwork.config import Settings
from knotwork.search.vector_index import VectorIndex
from knotwork.store.sqlite import SQLiteStore
from tests._fakes import DIM, RandomEmbedder, chunky, open_fake
from tests._similar import check, stored


@pytest.fixture
def fake(db_path: Path) -> Iterator[Knotwork]:
    with open_fake(db_path) as m:
        yield m


@pytest.mark.parametrize("cells", [None, 1], ids=["one-block", "one-query-per-block"])
def test_lists_follow_every_write_path(fake: Knotwork, db_path: Path, cells: int | None, monkeypatch) -> None:
    if cells:
        monkeypatch.setattr(VectorIndex, "neighbours", partialmethod(VectorIndex.neighbours, cells=cells))
    rng = random.Random(3)
    spaces = [None, None, "a", "b"]
    texts = map(chunky, range(10_000))
    live: list[str] = []
    for step in range(60):
        op = rng.choice(["add", "add_many", "update", "update_meta", "delete"] if live else ["add_many"])
        if op == "add":
            live.append(fake.add(next(texts), workspace=rng.choice(spaces)).id)
        elif op == "add_many":
            batch = [{"content": next(texts), "workspace": rng.choice(spaces)} for _ in range(rng.randint(1, 12))]
            live += [m.id for m in fake.add_many(batch)]
        elif op == "update":
            fake.update(rng.choice(live), content=next(texts))
        elif op == "update_meta":
            fake.update(rng.choice(live), category=f"c{step}")
        else:
            victim = live.pop(rng.randrange(len(live)))
            fake.delete(victim)
        check(fake, db_path)
    assert len(live) > 20


def test_short_lists_fill_as_memories_arrive(fake: Knotwork, db_path: Path) -> None:
    first = fake.add("alone").id
    assert [n for n, _ in stored(db_path)[first]] == [None] * 5
    assert fake.relations([first])[first][-1].type == "in_scope"  # no similar relation yet
    others = [fake.add(f"friend {i}").id for i in range(6)]
    check(fake, db_path)
    assert {r.target_value for r in fake.relations([first])[first] if r.type == "similar"} <= set(others)
    for mid in others:
        fake.delete(mid)
    check(fake, db_path)
    assert stored(db_path) == {first: [(None, -1.0)] * 5}


def test_workspace_isolation(fake: Knotwork, db_path: Path) -> None:
    # raw loads (consolidate=False): texts one number apart would otherwise read as one value changing
    g = [fake.add(f"global {i}", consolidate=False).id for i in range(3)]
    a = [m.id for m in fake.add_many([{"content": f"in a {i}", "workspace": "a"} for i in range(7)], consolidate=False)]
    b = [m.id for m in fake.add_many([{"content": f"in b {i}", "workspace": "b"} for i in range(7)], consolidate=False)]
    check(fake, db_path)
    lists = {mid: {r.target_value for r in rels if r.type == "similar"} for mid, rels in fake.relations(g + a + b).items()}
    assert all(lists[m] <= set(g) for m in g)  # the global scope sees only itself
    assert all(lists[m] <= set(g + a) for m in a)
    assert all(lists[m] <= set(g + b) for m in b)
    assert all(len(lists[m]) == 5 for m in a + b) and all(len(lists[m]) == 2 for m in g)


def test_another_connection_sees_and_keeps_lists(db_path: Path) -> None:
    with open_fake(db_path) as one, open_fake(db_path) as two:
        ids = [one.add(f"first {i}").id for i in range(4)]
        ids += [m.id for m in two.add_many([{"content": f"second {i}"} for i in range(4)])]
        ids.append(one.add("third").id)  # one's index has to catch up with two's vectors first
        two.delete(ids[0])
        one.update(ids[5], content="changed")
        check(one, db_path)


class AngleEmbedder(RandomEmbedder):
    """``"angle 70"`` is the unit vector at 70 degrees: similarity is the cosine of the angle between two texts."""

    def embed_query(self, text: str) -> np.ndarray:
        a = np.radians(float(text.split()[1]))
        return np.array([np.cos(a), np.sin(a), *[0.0] * (DIM - 2)], dtype=np.float32)


def test_floor_lowered_by_another_connection(db_path: Path) -> None:
    """A list whose last slot another connection lowered still takes a newcomer that beats only the new floor."""
    with Knotwork(SQLiteStore(db_path), embedder=AngleEmbedder()) as one, Knotwork(SQLiteStore(db_path), embedder=AngleEmbedder()) as two:
        made = {a: m.id for a, m in zip([0, 10, 20, 30, 40, 50, 100], one.add_many([{"content": f"angle {a}"} for a in [0, 10, 20, 30, 40, 50, 100]]))}
        two.delete(made[50])  # the list of 0 falls back to 100 degrees
        newcomer = one.add("angle 70").id  # beats 100 degrees, not the 50 that one last saw there
        assert newcomer in {r.target_value for r in one.relations([made[0]])[made[0]] if r.type == "similar"}
        check(one, db_path)


def test_writes_nested_in_a_rolled_back_transaction(fake: Knotwork, db_path: Path) -> None:
    """Writes inside a caller's transaction keep its uncommitted vectors out of the index."""
    fake.add_many([{"content": f"memory {i}"} for i in range(8)])
    with pytest.raises(RuntimeError), fake.store.transaction():
        gone = [fake.add("rolled back").id, fake.add("rolled back too").id]
        raise RuntimeError("roll back")
    kept = fake.add("kept").id
    fake.add("and kept")
    check(fake, db_path)
    assert set(fake.index.vectors_of([*gone, kept])) == {kept}


def test_floors_are_read_once_not_per_write(db_path: Path) -> None:
    """Every list's floor is read from the store once, then kept in step with this process's own writes:
    an add (a transaction of the lists' own nested in another of theirs) must not read them all again."""
    seen: list[str] = []
    store = open_store(str(db_path), Settings())
    store.tracer = lambda sql, params: seen.append(sql)
    with Knotwork(store, embedder=RandomEmbedder()) as mem:
        mem.add_many([{"content": f"memory {i}"} for i in range(12)])
        mem.add("the first single add")
        seen.clear()
        for i in range(3):
            mem.add(f"another add {i}")
            mem.add_many([{"content": f"batch {i} a"}, {"content": f"batch {i} b"}])
        assert not [sql for sql in seen if "WHERE rank = ?" in sql]
        check(mem, db_path)


def test_import_reembed_and_repair(fake: Knotwork, db_path: Path, tmp_path: Path) -> None:
    fake.add_many([{"content": f"memory {i}", "workspace": "a" if i % 3 else None} for i in range(20)])
    records = list(fake.export())
    copy = tmp_path / "copy.db"
    with open_fake(copy) as other:
        assert other.import_records(records).added == 20
        check(other, copy)
        assert other.reembed() == 20
        check(other, copy)
    conn = sqlite3.connect(copy)  # a store whose memories have vectors but no lists (made before them)
    conn.execute("DELETE FROM memory_similar")
    conn.commit()
    conn.close()
    with open_fake(copy) as other:
        other.add("one more write")
        check(other, copy)
    with Knotwork(SQLiteStore(copy)) as blind:  # no embedder: deleting a neighbour leaves its slots empty
        blind.delete(records[0]["id"])
    with open_fake(copy) as other:
        other.add("and one more")
        check(other, copy)


def test_relations_shape_with_the_real_model(mem: Knotwork) -> None:
    cat = mem.add("The cat sits on the mat")
    kitten = mem.add("A kitten sleeps on the rug")
    mem.add_many([{"content": t} for t in ["Stock markets fell sharply", "Bond yields rose", "Rain is expected tomorrow"]])
    similar = [r for r in mem.relations([cat.id])[cat.id] if r.type == "similar"]
    assert len(similar) == 4
    top = similar[0]
    assert (top.target_label, top.target_value, top.preview) == ("memory", kitten.id, "A kitten sleeps on the rug")
    assert 0 < top.score <= 1
    assert [r.score for r in similar] == sorted((r.score for r in similar), reverse=True)
    assert top.to_dict()["type"] == "similar"


def test_no_embedder_no_similar(db_path: Path) -> None:
    with knotwork.open(db_path, settings=knotwork.Settings(embedder="none")) as mem:
        a = mem.add("The cat sits on the mat").id
        mem.add("A kitten sleeps on the rug")
        assert [r.type for r in mem.relations([a])[a]] == ["in_scope"]
    assert stored(db_path) == {}


def test_relations_name_only_neighbours_a_read_of_the_memorys_pool_shows(mem: Knotwork) -> None:
    cat = mem.add("The cat sits on the mat", workspace="w")
    kitten = mem.add("A kitten sleeps on the rug", workspace="w")
    tabby = mem.add("A tabby cat naps on the carpet", workspace="w")
    ops = mem.add("The cat status page was rebuilt on the mat", workspace="w", agent_id="ops")
    brief = mem.add("A cat lies on the doormat", workspace="w", ttl=1)
    listed = {n for n, _ in mem.store.similar_lists([cat.id])[cat.id]}
    assert {kitten.id, tabby.id, ops.id, brief.id} <= listed  # the stored list keeps every neighbour

    def named() -> set[str]:
        return {r.target_value for r in mem.relations([cat.id])[cat.id] if r.type == "similar"}

    import time

    time.sleep(1.1)  # ``brief`` expires
    assert named() == {kitten.id, tabby.id}
    newer = mem.add("A kitten sleeps on the sofa", workspace="w", valid_at="2020-01-01", consolidate=False)
    mem.link(newer.id, kitten.id, "supersedes")  # retires the rug kitten
    assert kitten.id not in named() and tabby.id in named()
    assert {r.target_value for r in mem.relations([ops.id])[ops.id] if r.type == "similar"} == set()
