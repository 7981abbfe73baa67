"""Typed relationships, traversal and graphs on a real store."""

from __future__ import annotations

import sqlite3
import typing

import pytest

import knotwork
from knotwork import InvalidInput, Knotwork, NotFound
from knotwork.adapters.mcp import LinkType
from knotwork.domain import ids
from knotwork.domain.models import LINK_TYPES
from knotwork.graph.traverse import bfs, over_links
from knotwork.domain.models import Relationship
from knotwork.domain.temporal import now


def chain(mem: Knotwork, n: int, **kw) -> list[str]:
    return [mem.add(f"node {i}", **kw).id for i in range(n)]


def test_link_is_idempotent_and_typed(mem: Knotwork) -> None:
    a, b = chain(mem, 2)
    r = mem.link(a, b, "references", {"why": "source"})
    again = mem.link(a[-8:], b[-8:], "references")
    assert again.id == r.id and again.existing and not r.existing
    other = mem.link(a, b, "relates_to")  # another type is another link
    assert other.id != r.id
    assert (r.from_id, r.to_id, r.type, r.metadata) == (a, b, "references", {"why": "source"})
    assert typing.get_args(LinkType) == LINK_TYPES


@pytest.mark.parametrize(
    ("make", "error", "needle"),
    [
        (lambda mem, a, b: mem.link(a, a, "relates_to"), InvalidInput, "itself"),
        (lambda mem, a, b: mem.link(a, b, "likes"), InvalidInput, "unknown relationship type"),
        (lambda mem, a, b: mem.link(a, "ZZZZZZZZZZZZ", "relates_to"), NotFound, "ZZZZZZZZZZZZ"),
        (lambda mem, a, b: mem.link(a, b, "relates_to", metadata=[1]), InvalidInput, "metadata"),
    ],
)
def test_link_refusals(mem: Knotwork, make, error, needle) -> None:
    a, b = chain(mem, 2)
    with pytest.raises(error, match=needle):
        make(mem, a, b)
    assert mem.store.count_links() == 0


def test_link_scope_rules(mem: Knotwork) -> None:
    g1, g2 = chain(mem, 2)
    w1 = mem.add("in w1", workspace="w1").id
    w1b = mem.add("also in w1", workspace="w1", consolidate=False).id
    w2 = mem.add("in w2", workspace="w2").id
    assert mem.link(g1, g2, "relates_to").workspace is None
    assert mem.link(w1, g1, "references").workspace == "w1"
    assert mem.link(g2, w1, "references").workspace == "w1"
    assert mem.link(w1, w1b, "relates_to").workspace == "w1"
    with pytest.raises(InvalidInput, match="different workspaces"):
        mem.link(w1, w2, "relates_to")
    assert {r.workspace for r in mem.store.list_links("w1")} == {None, "w1"}
    assert {r.workspace for r in mem.store.list_links(None)} == {None}


def test_delete_cascades_links(mem: Knotwork) -> None:
    a, b, c = chain(mem, 3)
    mem.link(a, b, "relates_to")
    mem.link(c, b, "fixes")
    mem.delete(b)
    assert mem.store.count_links() == 0
    assert mem.relationships(a) == [] and mem.related(c) == []


def test_unlink(mem: Knotwork) -> None:
    a, b = chain(mem, 2)
    r = mem.link(a, b, "relates_to")
    assert mem.unlink(r.id[-8:]).id == r.id
    assert mem.relationships(a) == []
    with pytest.raises(NotFound):
        mem.unlink(r.id)


def test_cycle_at_depth_5(mem: Knotwork) -> None:
    a, b, c = chain(mem, 3)
    mem.link(a, b, "relates_to")
    mem.link(b, c, "relates_to")
    mem.link(c, a, "relates_to")
    out = mem.related(a, depth=5, direction="outgoing")
    assert [(r.memory.id, r.depth) for r in out] == [(b, 1), (c, 2)]
    both = mem.related(a, depth=5)
    assert sorted((r.memory.id, r.depth) for r in both) == sorted([(b, 1), (c, 1)])


def test_direction_and_type_filters(mem: Knotwork) -> None:
    a, b, c, d = chain(mem, 4)
    mem.link(a, b, "parent_of")
    mem.link(c, a, "fixes")
    mem.link(a, d, "references")
    assert {r.memory.id for r in mem.related(a, direction="outgoing")} == {b, d}
    assert {r.memory.id for r in mem.related(a, direction="incoming")} == {c}
    assert {r.memory.id for r in mem.related(a, types=["parent_of", "fixes"])} == {b, c}
    assert [r.type for r in mem.relationships(a, direction="incoming")] == ["fixes"]
    with pytest.raises(InvalidInput, match="direction"):
        mem.related(a, direction="sideways")
    with pytest.raises(InvalidInput, match="depth"):
        mem.related(a, depth=6)
    with pytest.raises(InvalidInput, match="types"):
        mem.related(a, types=["friend_of"])


def test_shortest_depth_wins(mem: Knotwork) -> None:
    a, b, c, d = chain(mem, 4)
    mem.link(a, b, "relates_to")
    mem.link(b, c, "relates_to")
    mem.link(c, d, "relates_to")
    mem.link(a, d, "relates_to")  # d is one hop away, not three
    depths = {r.memory.id: r.depth for r in mem.related(a, depth=3, direction="outgoing")}
    assert depths == {b: 1, d: 1, c: 2}
    assert len(mem.related(a, depth=3)) == 3  # each memory once


def test_related_returns_each_memory_in_brief(mem: Knotwork) -> None:
    """A reached memory carries what shows it and places it (category, scope, importance, valid times)."""
    old = mem.add("cache TTL was 300 s", workspace="shop", category="decision", importance=0.9, tags={"k": "v"})
    new = mem.add("cache TTL is 600 s", workspace="shop", valid_at="2026-01-03")
    link = mem.link(new.id, old.id, "supersedes", {"why": "ADR-14"})
    [reached] = mem.related(new.id)
    old = mem.get(old.id)  # retired by the supersedes link
    assert reached.memory == old.brief()
    assert (reached.memory.category, reached.memory.workspace, reached.memory.importance) == ("decision", "shop", 0.9)
    assert reached.memory.invalid_at == new.valid_at
    assert reached.relationship == link and reached.relationship.metadata == {"why": "ADR-14"}
    shown = reached.to_dict()["memory"]
    whole = old.to_dict()
    assert shown == {k: whole[k] for k in ("id", "content", "workspace", "category", "importance", "valid_at", "invalid_at")}
    assert [n.content for n in mem.graph(new.id).nodes] == [new.content, old.content]


def test_graph_and_truncation(mem: Knotwork) -> None:
    center = mem.add("hub").id
    spokes = chain(mem, 6)
    for s in spokes:
        mem.link(center, s, "parent_of")
    mem.link(spokes[0], spokes[1], "relates_to")
    g = mem.graph(center, max_depth=1, max_nodes=100)
    assert not g.truncated and len(g.nodes) == 7
    assert len(g.edges) == 7  # the spoke-to-spoke edge between two depth-1 nodes is drawn too
    assert g.depths[center] == 0
    small = mem.graph(center, max_depth=2, max_nodes=3)
    assert small.truncated and len(small.nodes) == 3
    assert all(e.from_id in small.depths and e.to_id in small.depths for e in small.edges)
    with pytest.raises(InvalidInput, match="max_nodes"):
        mem.graph(center, max_nodes=101)
    with pytest.raises(InvalidInput, match="max_depth"):
        mem.graph(center, max_depth=4)


def test_supersedes_retires_target(mem: Knotwork) -> None:
    old = mem.add("The team prefers tabs", valid_at="2025-01-01")
    new = mem.add("The team now prefers spaces", valid_at="2026-03-01")
    mem.link(new.id, old.id, "supersedes")
    retired = mem.get(old.id)
    assert retired.invalid_at == new.valid_at and retired.version == 2
    assert [h.memory.id for h in mem.search("team prefers")] == [new.id]
    assert {h.memory.id for h in mem.search("team prefers", include_invalid=True)} == {new.id, old.id}


def test_meta_relations(mem: Knotwork) -> None:
    m = mem.add("x", workspace="w", category="fact", tags={"k": "v"}, artifacts=["a.py"], evidence=["PR-9"],
                metadata={"written_via": "claude-code"})
    rels = mem.relations([m.id[-8:]])[m.id]
    got = {(r.type, r.target_label, r.target_value) for r in rels}
    assert got == {
        ("references_artifact", "artifact", "a.py"),
        ("tagged", "k", "v"),
        ("has_evidence", "evidence", "PR-9"),
        ("in_category", "category", "fact"),
        ("in_scope", "workspace", "w"),
        ("written_via", "app", "claude-code"),
    }


def test_bfs_pure() -> None:
    t = now()
    edges = [Relationship(f"e{i}", f, to, "relates_to", None, t) for i, (f, to) in enumerate([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])]
    touching = lambda frontier: [e for e in edges if e.from_id in frontier or e.to_id in frontier]
    steps, truncated = bfs("a", over_links(touching, "outgoing"), max_depth=5)
    assert [(s.node, s.via.id, s.depth) for s in steps] == [("b", "e0", 1), ("c", "e1", 2), ("d", "e3", 3)]
    assert not truncated
    steps, _ = bfs("a", over_links(touching, "incoming"), max_depth=5)
    assert [(s.node, s.depth) for s in steps] == [("c", 1), ("b", 2)]
    steps, truncated = bfs("a", over_links(touching, "both"), max_depth=5, max_nodes=2)
    assert truncated and len(steps) == 1
    steps, truncated = bfs("a", over_links(touching, "both"), max_depth=5, max_nodes=4)
    assert not truncated and len(steps) == 3  # every node fits: nothing was cut


def test_walks_see_another_connections_links(target: str) -> None:
    """The in-memory copy of the links catches up with link, unlink and delete done through another connection."""
    settings = knotwork.Settings(embedder="none")
    with knotwork.open(target, settings=settings) as one, knotwork.open(target, settings=settings) as two:
        a, b, c = chain(one, 3)
        assert one.related(a) == []  # the copy is loaded now
        r = two.link(a, b, "relates_to")
        assert [(x.memory.id, x.relationship.id) for x in one.related(a)] == [(b, r.id)]
        two.link(b, c, "fixes")
        assert {x.memory.id: x.depth for x in one.related(a, depth=2)} == {b: 1, c: 2}
        two.unlink(r.id)
        assert one.related(a, depth=2) == []
        two.link(a, c, "references")
        assert {e.type for e in one.graph(a).edges} == {"references", "fixes"}
        two.delete(c)  # its links go with it
        assert one.related(a) == [] and one.graph(b).edges == []
        assert len(one._links.adjacency) == 0


def test_a_copy_older_than_the_kept_changes_loads_every_link_again(db_path) -> None:
    """The change log keeps its newest 10,000 rows; a copy that missed pruned changes does not just apply the rest."""
    settings = knotwork.Settings(embedder="none")
    with knotwork.open(db_path, settings=settings) as one, knotwork.open(db_path, settings=settings) as two:
        a, b, c = chain(one, 3)
        first = one.link(a, b, "relates_to")
        assert [x.memory.id for x in one.related(a)] == [b]  # one's copy is loaded now
        two.unlink(first.id)
        second = two.link(a, c, "references")
        with two.store.transaction():  # 10,000 more changes: the two above are pruned
            for _ in range(5_000):
                two.store.delete_link(two.store.insert_link(Relationship(ids.new_id(), b, c, "fixes", None, now())).id)
        with sqlite3.connect(db_path) as conn:
            assert conn.execute("SELECT count(*) FROM link_changes").fetchone()[0] == 10_000
        assert [(x.memory.id, x.relationship.id) for x in one.related(a)] == [(c, second.id)]
        assert len(one._links.adjacency) == 1
        two.link(b, c, "fixes")  # and it catches up from there as before
        assert {x.memory.id: x.depth for x in one.related(a, depth=2)} == {c: 1, b: 2}


def test_walk_inside_a_rolled_back_transaction(mem: Knotwork) -> None:
    """Inside a write transaction a walk sees its uncommitted links; after a rollback nothing of them stays."""
    a, b = chain(mem, 2)
    assert mem.related(a) == []
    with pytest.raises(RuntimeError), mem.store.transaction():
        mem.link(a, b, "relates_to")
        assert [r.memory.id for r in mem.related(a)] == [b]
        raise RuntimeError("roll back")
    assert mem.related(a) == [] and mem.graph(a).edges == []


def test_returned_links_are_the_callers_own(mem: Knotwork) -> None:
    a, b = chain(mem, 2)
    mem.link(a, b, "relates_to", {"why": "x"})
    mem.related(a)[0].relationship.metadata["why"] = "changed by a caller"
    assert mem.related(a)[0].relationship.metadata == {"why": "x"}


def test_relations_read_full_ids_together_and_still_resolve_short_and_refuse_expired(mem: Knotwork) -> None:
    import time as _time

    a = mem.add("alpha note about the deploy", workspace="w", tags={"team": "core"})
    b = mem.add("beta note about the cache", workspace="w", artifacts=["src/cache.py"], evidence=["PR-12"])
    both = mem.relations([a.id, b.id])
    assert list(both) == [a.id, b.id]
    assert both == {**mem.relations([a.id]), **mem.relations([b.id])}
    assert ("references_artifact", "src/cache.py") in {(r.type, r.target_value) for r in both[b.id]}
    assert mem.relations([b.id[-10:].lower()]) == {b.id: both[b.id]}  # a short id, in lower case, is resolved
    brief = mem.add("gamma note that expires", workspace="w", ttl=1)
    _time.sleep(1.2)
    with pytest.raises(NotFound):
        mem.relations([a.id, brief.id])
