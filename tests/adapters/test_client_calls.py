"""The remote client's batch add, one fact, the relationships of a workspace or of one memory, and reembed:
each the same answer through a running server as from the service in-process, on both backends.

The server is the REST app (``create_app``) under a real uvicorn on a loopback port, over the store the test
reads in-process too; the client is :class:`~knotwork.adapters.client.RemoteKnotwork`, as the CLI uses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from knotwork import Knotwork
from knotwork.adapters.client import RemoteKnotwork
from knotwork.adapters.remote import Server
from knotwork.config import Settings
from knotwork.errors import Forbidden, InvalidInput, NotFound
from tests.adapters._http import serving


@contextmanager
def remote(mem: Knotwork, **app_options: Any) -> Iterator[RemoteKnotwork]:
    with serving(mem, **app_options) as http:
        yield RemoteKnotwork(Server(str(http.base_url).rstrip("/"), None), Settings())


def test_add_many_stores_every_item_or_none(mem: Knotwork) -> None:
    with remote(mem) as client:
        added = client.add_many([
            {"content": "The billing service retries failed charges three times", "workspace": "shop"},
            {"content": "Refunds are approved by the finance team", "workspace": "shop", "category": "process"},
        ])
        assert [m.decision for m in added] == ["ADD", "ADD"]
        assert [mem.get(m.id).content for m in added] == [m.content for m in added]
        assert mem.get(added[1].id).category == "process" and {m.workspace for m in added} == {"shop"}
        again = client.add_many([{"content": "The billing service retries failed charges three times", "workspace": "shop"}])
        assert again[0].duplicate and again[0].id == added[0].id  # decided as the facade decides it
        before = mem.store.count_memories()
        with pytest.raises(InvalidInput) as bad:
            client.add_many([{"content": "A fine item", "workspace": "shop"}, {"content": "", "workspace": "shop"}])
        assert bad.value.field == "items[1].content"  # the server's field, read back typed
        assert mem.store.count_memories() == before  # the good item did not land either
        raw = client.add_many([{"content": "Refunds are approved by the finance team", "workspace": "shop"}],
                              consolidate=False, force=True)
        assert raw[0].duplicate and raw[0].id == added[1].id  # an exact duplicate is still stored once


def linked(mem: Knotwork) -> dict[str, str]:
    """Two memories of shop linked both ways (a -references-> b, b -relates_to-> a), two of lab linked once
    (c -relates_to-> d): the ids of the memories and of the links."""
    ids = {name: mem.add(text, workspace=ws).id for name, text, ws in (
        ("a", "The deploy pipeline runs the test suite", "shop"), ("b", "The test suite needs a database", "shop"),
        ("c", "The lab keeps its own pipeline", "lab"), ("d", "The lab's pipeline runs nightly", "lab"))}
    ids["ab"] = mem.link(ids["a"], ids["b"], "references").id
    ids["ba"] = mem.link(ids["b"], ids["a"], "relates_to").id
    ids["cd"] = mem.link(ids["c"], ids["d"], "relates_to").id
    return ids


def test_relationships_of_a_workspace_and_of_one_memory(mem: Knotwork) -> None:
    ids = linked(mem)
    a, ab, ba = ids["a"], ids["ab"], ids["ba"]
    with remote(mem) as client:
        assert [r.id for r in client.list_links()] == [r.id for r in mem.list_links()]  # every workspace
        shop = client.list_links("shop")
        assert {r.id for r in shop} == {ab, ba} and shop == mem.list_links("shop")
        assert client.relationships(a) == mem.relationships(a)
        assert [r.id for r in client.relationships(a, "outgoing")] == [ab]
        assert [r.id for r in client.relationships(a, "both", ["relates_to"])] == [ba]
        assert client.relationships(a[:10], "incoming") == mem.relationships(a, "incoming")  # a short id resolves
        with pytest.raises(NotFound):
            client.relationships("01ZZZZZZZZZZZZZZZZZZZZZZZZ")


def test_one_fact_by_its_id(mem: Knotwork) -> None:
    mem.add("Dana leads the platform team", workspace="shop",
            facts=[{"subject": "Dana", "predicate": "leads", "object": "platform team"}])
    fact = next(f for f in mem.entity_facts("Dana", workspace="shop") if f.predicate == "leads")  # the one given
    with remote(mem) as client:
        assert client.fact(fact.id).to_dict() == mem.fact(fact.id).to_dict()
        assert client.fact(fact.id[-10:]).id == fact.id  # a short id, as in-process
        with pytest.raises(NotFound):
            client.fact("01ZZZZZZZZZZZZZZZZZZZZZZZZ")


def test_reembed_through_the_server(mem: Knotwork) -> None:
    mem.add("First note to embed again")
    mem.add("Second note to embed again")
    heard: list[int] = []
    with remote(mem) as client:
        assert client.reembed(on_progress=heard.append) == 2
    assert heard == [2] and mem.store.count_vectors()[0] == 2


def test_a_server_limited_to_one_workspace_keeps_the_new_calls_within_it(mem: Knotwork) -> None:
    ids = linked(mem)
    with remote(mem, default_workspace="shop", limit_to_default=True) as client:
        assert {r.id for r in client.list_links(None)} == {ids["ab"], ids["ba"]}  # None: the server's own workspace
        with pytest.raises(Forbidden):
            client.list_links()  # every workspace: not this caller's
        with pytest.raises(NotFound):
            client.relationships(ids["c"])  # another workspace's memory does not exist for it
        with pytest.raises(Forbidden):
            client.add_many([{"content": "Into the lab", "workspace": "lab"}])
        with pytest.raises(Forbidden):
            client.reembed()
    assert mem.store.count_memories() == 4
