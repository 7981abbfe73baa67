"""KnotworkStore driven through LangGraph's own API (BaseStore methods, ops, a compiled graph), on both backends."""

from __future__ import annotations

import asyncio
import json
import operator
import time
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.config import get_store  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp  # noqa: E402

import knotwork  # noqa: E402
from knotwork.integrations.langgraph import KnotworkStore  # noqa: E402


@pytest.fixture
def store(mem: knotwork.Knotwork) -> KnotworkStore:
    return KnotworkStore(mem, index={"fields": ["text"]})


def count(mem: knotwork.Knotwork) -> int:
    return len(mem.list(workspace="*", agent_id="*", limit=1000))


def test_a_value_comes_back_exactly_as_stored(store: KnotworkStore) -> None:
    value = {"text": "Ünïcode café ☕", "n": 3, "x": 0.1, "ok": True, "none": None, "nested": {"a": [1, {"b": "c"}]}}
    store.put(("users", "u1"), "prefs", value)
    item = store.get(("users", "u1"), "prefs")
    assert item is not None and item.value == value and item.namespace == ("users", "u1") and item.key == "prefs"
    assert item.created_at == item.updated_at
    assert store.get(("users", "u1"), "other") is None and store.get(("users",), "prefs") is None


def test_items_are_ordinary_memories(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("users", "u1"), "food", {"text": "Prefers vegetarian restaurants near the office"})
    (m,) = mem.list(workspace="langgraph")
    assert m.tags["lg.ns0"] == "users" and m.tags["lg.ns1"] == "u1" and m.tags["lg.key"] == "food"
    assert m.content.startswith("Prefers vegetarian restaurants") and "[users/u1: food]" in m.content
    assert mem.search("vegetarian restaurants", workspace="langgraph")[0].memory.id == m.id
    exported = [r for r in mem.export() if "record" not in r]
    assert [r["id"] for r in exported] == [m.id] and exported[0]["metadata"]["langgraph"]["value"]["text"].startswith("Prefers")


def test_put_replaces_by_key_and_keeps_the_history(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("users", "u1"), "city", {"text": "Lives in Lyon"})
    created = store.get(("users", "u1"), "city").created_at
    store.put(("users", "u1"), "city", {"text": "Lives in Porto"})
    item = store.get(("users", "u1"), "city")
    assert item.value == {"text": "Lives in Porto"} and item.created_at == created and item.updated_at > created
    (m,) = mem.list(workspace="langgraph")
    assert [v.metadata["langgraph"]["value"]["text"] for v in mem.history(m.id)] == ["Lives in Lyon", "Lives in Porto"]
    assert [i.key for i in store.search(("users",), query="Porto")] == ["city"]


def test_same_value_under_two_keys_is_two_items(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("users", "u1"), "a", {"text": "likes tea"})
    store.put(("users", "u1"), "b", {"text": "likes tea"})
    store.put(("users", "u2"), "a", {"text": "likes tea"})
    assert count(mem) == 3
    assert sorted((i.namespace, i.key) for i in store.search(("users",), query="tea")) == [
        (("users", "u1"), "a"), (("users", "u1"), "b"), (("users", "u2"), "a")]


def test_delete_by_none_and_by_delete(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("users", "u1"), "a", {"text": "one"})
    store.put(("users", "u1"), "b", {"text": "two"})
    store.batch([PutOp(("users", "u1"), "a", None)])
    store.delete(("users", "u1"), "b")
    store.delete(("users", "u1"), "never-there")
    assert store.get(("users", "u1"), "a") is None and store.get(("users", "u1"), "b") is None and count(mem) == 0


def test_a_search_under_a_namespace_never_returns_another_and_is_not_cut_short(store: KnotworkStore) -> None:
    # Forty items of another namespace match the query better than the three of ours: the namespace is part of
    # the store's query, so ours still fill the page. Ours are about the query too (a search whose best hit
    # answers nothing returns nothing: search/answerable.py).
    store.batch([PutOp(("users", "u2"), f"k{i}", {"text": f"deploy the billing service to production, step {i}"})
                 for i in range(40)])
    store.batch([PutOp(("users", "u1"), f"k{i}", {"text": f"a note about the billing service in production: {w}"})
                 for i, w in enumerate(["alerts", "rollbacks", "dashboards"])])
    hits = store.search(("users", "u1"), query="deploy the billing service to production", limit=3)
    assert len(hits) == 3 and {h.namespace for h in hits} == {("users", "u1")}
    assert all(h.score is not None and 0 < h.score <= 1 for h in hits)
    assert {h.namespace for h in store.search(("users",), query="production", limit=50)} == {("users", "u1"), ("users", "u2")}
    assert store.search(("users", "u3"), query="billing") == [] and store.search(("users", "u"), query="billing") == []
    assert store.search(("users", "*"), query="billing") == [] and store.search(("users", "*")) == []  # a label, not a wildcard


def test_filter_limit_and_offset(store: KnotworkStore) -> None:
    for i in range(12):
        store.put(("docs", "d" if i % 2 else "e"), f"k{i}", {"text": f"release note number {i}", "n": i, "kind": "odd" if i % 2 else "even"})
    odd = store.search(("docs",), filter={"kind": "odd"}, limit=100)
    assert sorted(i.value["n"] for i in odd) == [1, 3, 5, 7, 9, 11] and {i.namespace for i in odd} == {("docs", "d")}
    assert sorted(i.value["n"] for i in store.search(("docs",), filter={"n": {"$gte": 4, "$lt": 7}})) == [4, 5, 6]
    assert [i.value["n"] for i in store.search(("docs",), filter={"n": {"$ne": 0}, "kind": {"$eq": "even"}}, limit=100)] == [10, 8, 6, 4, 2]
    assert [i.key for i in store.search(("docs",), query="", limit=100)] == [i.key for i in store.search(("docs",), limit=100)]
    pages = [store.search(("docs",), limit=5, offset=o) for o in (0, 5, 10)]
    assert [len(p) for p in pages] == [5, 5, 2]
    assert len({(i.namespace, i.key) for p in pages for i in p}) == 12
    ranked = store.search(("docs",), query="release note", filter={"kind": "even"}, limit=2, offset=1)
    assert len(ranked) == 2 and all(i.value["kind"] == "even" for i in ranked)
    assert [i.key for i in ranked] == [i.key for i in store.search(("docs",), query="release note", filter={"kind": "even"}, limit=3)[1:]]


def test_index_fields_and_index_false(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("n",), "shown", {"text": "the kayak is blue", "secret": "zeppelin"})
    store.put(("n",), "hidden", {"text": "the kayak is red"}, index=False)
    store.put(("n",), "other", {"text": "nothing", "title": "kayak trip"}, index=["title"])
    assert {i.key for i in store.search(("n",), query="kayak")} == {"shown", "other"}
    assert store.search(("n",), query="zeppelin") == [] or all(i.key != "hidden" for i in store.search(("n",), query="zeppelin"))
    assert "zeppelin" not in next(m for m in mem.list(workspace="langgraph") if m.tags["lg.key"] == "shown").content
    assert store.get(("n",), "hidden").value == {"text": "the kayak is red"}
    assert [i.key for i in store.search(("n",), filter={"text": "the kayak is red"})] == ["hidden"]
    whole = KnotworkStore(mem, workspace="whole")  # no index fields: the whole value is indexed
    whole.put(("n",), "k", {"text": "x", "secret": "zeppelin"})
    assert [i.key for i in whole.search(("n",), query="zeppelin")] == ["k"]


def test_list_namespaces_prefix_suffix_depth(store: KnotworkStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z", "b", "c")]:
        store.put(ns, "k", {"text": "t"})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z", "b", "c")]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("z", "b", "c")]
    assert store.list_namespaces(prefix=("*", "b")) == [("a", "b", "c"), ("a", "b", "d"), ("z", "b", "c")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "x"), ("z", "b")]
    assert store.list_namespaces(prefix=("a",), suffix=("d",)) == [("a", "b", "d")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "x")]


def test_stores_of_two_workspaces_do_not_see_each_other(mem: knotwork.Knotwork) -> None:
    one, two = KnotworkStore(mem, workspace="one"), KnotworkStore(mem, workspace="two")
    one.put(("u",), "k", {"text": "a red bicycle"})
    assert two.get(("u",), "k") is None and two.search(("u",), query="bicycle") == [] and two.list_namespaces() == []


def test_ttl_is_knotwork_expiry(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("t",), "long", {"text": "kept a day"}, ttl=24 * 60)
    (m,) = mem.list(workspace="langgraph")
    assert m.expires_at is not None and 23.9 * 3600 < (m.expires_at - m.created_at).total_seconds() <= 24 * 3600 + 1
    store.put(("t",), "long", {"text": "kept for good"})  # a put without ttl: no expiry
    assert mem.get(m.id).expires_at is None
    store.put(("t",), "short", {"text": "gone soon"}, ttl=0.002)  # 120 ms
    assert store.get(("t",), "short", refresh_ttl=False) is not None
    with pytest.raises(NotImplementedError, match="refresh_ttl"):
        store.batch([GetOp(("t",), "short", refresh_ttl=True)])
    time.sleep(0.3)
    assert store.get(("t",), "short") is None and "short" not in [i.key for i in store.search(("t",), query="gone soon")]
    with pytest.raises(ValueError, match="refresh_on_read"):
        KnotworkStore(mem, ttl={"refresh_on_read": True})
    days = KnotworkStore(mem, workspace="ttl", ttl={"default_ttl": 60})
    days.put(("t",), "k", {"text": "an hour"})
    assert mem.list(workspace="ttl")[0].expires_at is not None


@pytest.mark.parametrize(
    ("op", "error", "message"),
    [
        (PutOp(("users", ""), "k", {"text": "x"}), InvalidNamespaceError, r"namespace\[1\]: is empty"),
        (PutOp((), "k", {"text": "x"}), InvalidNamespaceError, "namespace: is empty"),
        (PutOp(("users",), "k" * 10_000, {"text": "x"}), ValueError, r"key: 'kkk.*\(10,000 characters\).*at most 256"),
        (PutOp(("users",), "k", {"text": "x" * 70_000}), ValueError, "value: .*65536 bytes"),
        (PutOp(("users",), "k", {"when": (1, 2)}), ValueError, "value: would not come back"),
        (SearchOp(("users",), query="x", limit=990, offset=20), ValueError, "offset \\+ limit"),
    ],
)
def test_bad_input_is_refused_in_langgraph_shape_and_writes_nothing(
    mem: knotwork.Knotwork, store: KnotworkStore, op: object, error: type, message: str
) -> None:
    good = PutOp(("users",), "fine", {"text": "fine"})
    with pytest.raises(error, match=message) as caught:
        store.batch([good, op])
    assert isinstance(caught.value, ValueError)
    assert count(mem) == 0


def test_inside_a_compiled_graph_sync_and_async(store: KnotworkStore) -> None:
    class State(TypedDict):
        user: str
        said: str
        recalled: Annotated[list[str], operator.add]

    def remember(state: State) -> dict:
        get_store().put(("users", state["user"]), f"m{len(state['said'])}", {"text": state["said"]})
        return {}

    def recall(state: State) -> dict:
        return {"recalled": [i.value["text"] for i in get_store().search(("users", state["user"]), query=state["said"])]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    out = graph.invoke({"user": "u1", "said": "my dog is called Pixel", "recalled": []})
    assert out["recalled"] == ["my dog is called Pixel"]
    graph.invoke({"user": "u2", "said": "my cat is called Nova", "recalled": []})

    async def arecall(state: State) -> dict:
        hits = await get_store().asearch(("users", state["user"]), query=state["said"])
        await get_store().aput(("users", state["user"]), "seen", {"text": "asked again"})
        return {"recalled": [i.value["text"] for i in hits]}

    abuilder = StateGraph(State)
    abuilder.add_node("recall", arecall)
    abuilder.add_edge(START, "recall")
    agraph = abuilder.compile(store=store)
    out = asyncio.run(agraph.ainvoke({"user": "u2", "said": "what is my pet called?", "recalled": []}))
    assert out["recalled"] == ["my cat is called Nova"]
    assert asyncio.run(store.aget(("users", "u2"), "seen")).value == {"text": "asked again"}
    assert asyncio.run(store.alist_namespaces(prefix=("users",))) == [("users", "u1"), ("users", "u2")]


def test_a_path_opens_and_closes_its_own_store(tmp_path) -> None:
    with KnotworkStore(str(tmp_path / "lg.db")) as store:
        store.put(("u",), "k", {"text": "persisted"})
    with KnotworkStore(str(tmp_path / "lg.db")) as store:
        assert store.get(("u",), "k").value == {"text": "persisted"}


def test_agrees_with_langgraphs_own_in_memory_store(mem: knotwork.Knotwork) -> None:
    """The same random puts and deletes through KnotworkStore and LangGraph's reference InMemoryStore: every get,
    every filtered search and every list of namespaces answers the same (query ranking aside: the reference
    without an embedder ignores the query)."""
    import random

    from langgraph.store.memory import InMemoryStore

    ours, ref = KnotworkStore(mem), InMemoryStore()
    rng = random.Random(39)
    spaces = [("users", "u1"), ("users", "u2"), ("users", "u1", "notes"), ("teams", "t1")]
    keys = [f"k{i}" for i in range(5)]
    for store in (ours, ref):  # an item per namespace that stays: a namespace without items is listed by neither
        for ns in spaces:
            store.put(ns, "anchor", {"n": -1, "kind": "anchor", "text": "kept"})
    for step in range(60):
        ns, key = rng.choice(spaces), rng.choice(keys)
        if rng.random() < 0.25:
            ops = [PutOp(ns, key, None)]
        else:
            ops = [PutOp(ns, key, {"n": rng.randint(0, 9), "kind": rng.choice(["a", "b"]), "nested": {"x": step % 3},
                                   "text": f"step {step}"})]
        ours.batch(ops)
        ref.batch(ops)
    for ns in spaces:
        for key in [*keys, "anchor"]:
            a, b = ours.get(ns, key), ref.get(ns, key)
            assert (a and a.value) == (b and b.value), (ns, key)
    for prefix in [(), ("users",), ("users", "u1"), ("teams",), ("nobody",)]:
        for flt in [None, {"kind": "a"}, {"n": {"$gte": 5}}, {"nested": {"x": 1}}, {"n": {"$ne": 3}, "kind": "b"}]:
            got = {(i.namespace, i.key): i.value for i in ours.search(prefix, filter=flt, limit=1000)}
            want = {(i.namespace, i.key): i.value for i in ref.search(prefix, filter=flt, limit=1000)}
            assert got == want, (prefix, flt)
    for kwargs in [{}, {"prefix": ("users",)}, {"suffix": ("u1",)}, {"prefix": ("*", "u1")}, {"max_depth": 1},
                   {"max_depth": 2, "prefix": ("users",)}, {"limit": 2, "offset": 1}]:
        assert ours.list_namespaces(**kwargs) == ref.list_namespaces(**kwargs), kwargs


def test_the_cli_lists_and_searches_the_items(tmp_path, capsys) -> None:
    from tests._cli import run

    db = str(tmp_path / "lg.db")
    with KnotworkStore(db) as store:
        store.put(("users", "u1"), "trip", {"text": "Flies to Lisbon on Friday"})
        store.put(("users", "u2"), "trip", {"text": "Takes the night train to Vienna"}, index=False)
    code, out, _ = run(capsys, "list", "--db", db, "-w", "langgraph", "--tag", "lg.ns1=u1", "--json")
    (listed,) = json.loads(out)["memories"]
    assert code == 0 and listed["metadata"]["langgraph"]["value"] == {"text": "Flies to Lisbon on Friday"}
    code, out, _ = run(capsys, "search", "Lisbon", "--db", db, "-w", "langgraph")
    assert code == 0 and "Flies to Lisbon on Friday" in out


def test_puts_of_new_keys_in_a_batch_are_stored_together_and_in_order(mem: knotwork.Knotwork, store: KnotworkStore) -> None:
    store.put(("bulk",), "old", {"text": "was here first"})
    runs = mem.write_stats()["embed"]["runs"]
    results = store.batch([
        *[PutOp(("bulk",), f"k{i}", {"text": f"bulk item number {i}", "i": i}) for i in range(30)],
        PutOp(("bulk",), "k3", {"text": "k3 put again in the same batch", "i": 3}),
        GetOp(("bulk",), "k3"),
        PutOp(("bulk",), "old", {"text": "replaced"}),
        PutOp(("bulk",), "k31", {"text": "after the get", "i": 31}),
    ])
    assert mem.write_stats()["embed"]["runs"] - runs <= 4  # 30 new keys embedded in one run, then k3, old, k31
    assert results[31].value == {"text": "k3 put again in the same batch", "i": 3} and results[:31] == [None] * 31
    assert sorted(i.value["i"] for i in store.search(("bulk",), limit=100) if "i" in i.value) == [*range(30), 31]
    assert store.get(("bulk",), "old").value == {"text": "replaced"} and count(mem) == 32
