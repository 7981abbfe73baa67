"""The knowledge-graph REST endpoints through real HTTP: a uvicorn server on loopback over a real SQLite file.

The graph is seeded through the Python API (facts and entities as a caller
passes them); every endpoint is then called over HTTP, its answer checked,
and the store checked through the Python API where the call changed it.
The LLM extraction queue is drained against a real OpenAI-compatible server
on loopback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Knotwork, NotFound, Settings
from tests.knowledge._llm_server import ChatServer, Reply

from ._http import serving
from ._rest import ABSENT, error_of, http, mem  # noqa: F401 - the REST tests' store and server fixtures

ANA = {"subject": "Ana", "predicate": "lives in"}


@pytest.fixture
def graph(mem: Knotwork) -> dict[str, str]:  # noqa: F811 - mem is the fixture imported above
    """Ana lived in Boston (2025), then Berlin (from 2026-02-01); ReportsModule uses Redis. All in workspace shop."""
    boston = mem.add("Ana lives in Boston.", workspace="shop", valid_at="2025-01-01", facts=[{**ANA, "object": "Boston"}])
    berlin = mem.add("Ana moved.", workspace="shop", valid_at="2026-02-01", facts=[{**ANA, "object": "Berlin"}])
    mem.add(
        "The ReportsModule uses Redis for caching.",
        workspace="shop",
        valid_at="2026-01-03",
        entities=[{"name": "Redis", "type": "library", "summary": "in-memory cache"}],
    )
    facts = {f.object: f.id for f in mem.entity_facts("Ana", workspace="shop", include_invalid=True)}
    return {"boston_memory": boston.id, "berlin_memory": berlin.id, "boston": facts["Boston"], "berlin": facts["Berlin"],
            "ana": mem.entity("Ana", workspace="shop").id}


def objects(facts: list[dict]) -> list[str]:
    return [f["object"]["name"] for f in facts]


# -- search ----------------------------------------------------------------------------
def test_search_entities(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    r = http.post("/search/entities", json={"query": "redis"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["query"] == "redis"
    top = body["entities"][0]
    assert top["entity"]["name"] == "Redis" and top["entity"]["type"] == "library" and top["entity"]["workspace"] == "shop"
    assert top["community"]["name"] == "Redis, ReportsModule"
    near = http.post("/search/entities", json={"query": "Berlin Boston", "center": "Ana"}).json()["entities"]
    assert {h["entity"]["name"]: h["distance"] for h in near} == {"Berlin": 1, "Ana": 0, "Boston": None}  # Boston: retired
    assert len(http.post("/search/entities", json={"query": "Ana Berlin Boston Redis", "limit": 2}).json()["entities"]) == 2
    # the server's default workspace applies; another workspace sees none of shop's graph
    assert http.post("/search/entities", json={"query": "redis", "workspace": "other"}).json()["entities"] == []
    text = http.post("/search/entities", params={"format": "compact"}, json={"query": "redis"})
    assert text.headers["content-type"].startswith("text/plain")
    assert text.text.startswith('Found ') and "Redis [library] @shop" in text.text


def test_search_facts_now_as_of_and_including_retired(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    now = http.post("/search/facts", json={"query": "Ana lives"}).json()
    assert now["query"] == "Ana lives" and objects([h["fact"] for h in now["facts"]]) == ["Berlin"]
    every = http.post("/search/facts", json={"query": "Ana lives", "include_invalid": True}).json()["facts"]
    assert objects([h["fact"] for h in every]) == ["Berlin", "Boston"]  # the current one ranks first
    retired = every[1]["fact"]
    assert retired["id"] == graph["boston"] and retired["invalid_at"].startswith("2026-02-01")
    assert retired["superseded_by"] == graph["berlin"]
    then = http.post("/search/facts", json={"query": "Ana lives", "as_of": "2025-06-01"}).json()["facts"]
    assert [h["fact"]["id"] for h in then] == [graph["boston"]]
    assert http.post("/search/facts", json={"query": "Ana lives", "as_of": "2024-06-01"}).json()["facts"] == []
    assert http.post("/search/facts", json={"query": "Ana lives", "workspace": "other"}).json()["facts"] == []
    text = http.post("/search/facts", params={"format": "compact"}, json={"query": "Ana lives"}).text
    assert "Ana --lives_in--> Berlin (since 2026-02-01; caller 1)" in text and "Boston" not in text


# -- entities and facts --------------------------------------------------------------------
def test_entity_by_name_alias_or_id(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    e = http.get("/entities/Ana").json()
    assert e["id"] == graph["ana"] and e["name"] == "Ana" and e["mentions"] == 2 and e["summary"] == "lives in Berlin"
    assert http.get(f"/entities/{graph['ana'][-8:]}").json()["id"] == graph["ana"]
    assert http.get("/entities/ana").json()["id"] == graph["ana"]  # names are matched normalised
    compact = http.get("/entities/Ana", params={"format": "compact"}).text
    assert compact.startswith(f"Ana id {graph['ana']} @shop") and "mentioned in 2 memories" in compact
    assert error_of(http.get("/entities/Ana", params={"workspace": "other"}), 404)["type"] == "not_found"


def test_entity_names_with_slashes(http: httpx2.Client, mem: Knotwork) -> None:  # noqa: F811
    adr, url = "docs/adr/1.md", "https://example.com/guide"
    mem.add("The ADR picks Postgres.", workspace="shop", facts=[{"subject": adr, "predicate": "decides", "object": "Postgres"},
                                                               {"subject": url, "predicate": "explains", "object": "Postgres"}])
    assert http.get(f"/entities/{adr}").json()["name"] == adr
    assert objects(http.get(f"/entities/{adr}/facts").json()["facts"]) == ["Postgres"]
    assert http.get(f"/entities/{url}").json()["name"] == url
    assert [f["predicate"] for f in http.get(f"/entities/{url}/facts").json()["facts"]] == ["explains"]
    assert "'docs/adr/2.md'" in error_of(http.get("/entities/docs/adr/2.md"), 404)["message"]


def test_entity_facts_now_as_of_and_including_retired(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    assert objects(http.get("/entities/Ana/facts").json()["facts"]) == ["Berlin"]
    every = http.get("/entities/Ana/facts", params={"include_invalid": "true"}).json()["facts"]
    assert [f["id"] for f in every] == [graph["berlin"], graph["boston"]]  # newest first
    assert objects(http.get("/entities/Ana/facts", params={"as_of": "2025-06-01"}).json()["facts"]) == ["Boston"]
    assert objects(http.get("/entities/Boston/facts", params={"include_invalid": "true"}).json()["facts"]) == ["Boston"]
    assert http.get("/entities/Boston/facts").json()["facts"] == []  # Ana lives there no more
    text = http.get("/entities/Ana/facts", params={"format": "compact", "include_invalid": "true"}).text
    assert text.splitlines() == [
        f"1. Ana --lives_in--> Berlin (since 2026-02-01; caller 1) id {graph['berlin'][-8:]}",
        f"2. Ana --lives_in--> Boston (2025-01-01 → 2026-02-01, retired; caller 1) id {graph['boston'][-8:]}",
    ]


def test_fact_then_delete_fact_brings_back_the_one_it_retired(
    http: httpx2.Client, mem: Knotwork, graph: dict[str, str]  # noqa: F811
) -> None:
    f = http.get(f"/facts/{graph['berlin']}").json()
    assert f["subject"] == {"id": graph["ana"], "name": "Ana"} and f["object"]["name"] == "Berlin"
    assert f["predicate"] == "lives_in" and f["sources"] == [graph["berlin_memory"]] and f["invalid_at"] is None
    assert http.get(f"/facts/{graph['berlin'][-8:].lower()}").json()["id"] == graph["berlin"]  # short, any case

    d = http.delete(f"/facts/{graph['berlin']}")
    assert d.status_code == 200 and d.json()["id"] == graph["berlin"]
    with pytest.raises(NotFound):
        mem.fact(graph["berlin"])
    assert error_of(http.get(f"/facts/{graph['berlin']}"), 404)["type"] == "not_found"
    assert error_of(http.delete(f"/facts/{graph['berlin']}"), 404)["type"] == "not_found"
    back = mem.fact(graph["boston"])
    assert back.invalid_at is None and back.superseded_by is None  # Boston is current again
    assert objects(http.get("/entities/Ana/facts").json()["facts"]) == ["Boston"]
    assert mem.get(graph["berlin_memory"]).content == "Ana moved."  # the memory is kept

    again = mem.fact(graph["boston"]).id
    text = http.delete(f"/facts/{again}", params={"format": "compact"}).text
    assert text == f"✓ Deleted fact Ana --lives_in--> Boston (id {again})"


# -- episodes ------------------------------------------------------------------------------
def test_episodes(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    eps = http.get("/episodes").json()["episodes"]
    assert [e["content"] for e in eps] == ["The ReportsModule uses Redis for caching.", "Ana moved.", "Ana lives in Boston."]
    moved = eps[1]
    assert moved["memory_id"] == graph["berlin_memory"] and moved["entities"] == ["Ana", "Berlin"] and moved["facts"] == 1
    assert moved["workspace"] == "shop" and moved["extraction"] is None
    assert len(http.get("/episodes", params={"limit": 1}).json()["episodes"]) == 1
    found = http.get("/episodes", params={"query": "caching"}).json()["episodes"]
    assert [e["content"] for e in found] == ["The ReportsModule uses Redis for caching."]
    assert http.get("/episodes", params={"workspace": "other"}).json()["episodes"] == []
    text = http.get("/episodes", params={"format": "compact", "limit": 1}).text
    assert text.startswith("1. ") and "{Redis, ReportsModule} 1 fact" in text


# -- merging -------------------------------------------------------------------------------
def test_merge_entities(http: httpx2.Client, mem: Knotwork) -> None:  # noqa: F811
    mem.add("Bob joined.", workspace="shop", facts=[{"subject": "Bob", "predicate": "works at", "object": "Acme"},
                                                     {"subject": "Bob", "predicate": "likes", "object": "tea"}])
    mem.add("Robert likes chess.", workspace="shop", facts=[{"subject": "Robert", "predicate": "likes", "object": "chess"}])
    bob, robert = mem.entity("Bob", workspace="shop").id, mem.entity("Robert", workspace="shop").id
    assert bob != robert

    r = http.post("/entities/merge", json={"a": "Robert", "b": "Bob"})
    assert r.status_code == 200
    merged = r.json()
    assert merged["id"] == bob and merged["name"] == "Bob" and merged["aliases"] == ["Robert"]  # the more connected stays
    assert http.get("/entities/Robert").json()["id"] == bob  # the other's name is now an alias
    with pytest.raises(NotFound):
        mem.entity(robert, workspace="shop")
    assert sorted(objects(http.get("/entities/Bob/facts").json()["facts"])) == ["Acme", "chess", "tea"]

    same = error_of(http.post("/entities/merge", json={"a": "Bob", "b": "Robert"}), 400)
    assert same["type"] == "invalid_input" and same["field"] == "b"
    assert error_of(http.post("/entities/merge", json={"a": "Bob", "b": "Nobody"}), 404)["type"] == "not_found"
    assert error_of(http.post("/entities/merge", json={"a": "Bob"}), 422)["field"] == "b"
    assert error_of(http.post("/entities/merge", json={"a": "Bob", "b": "Acme", "into": "x"}), 422)["field"] == "into"
    assert error_of(http.post("/entities/merge", json={"a": "Bob", "b": "Acme", "workspace": "other"}), 404)
    assert mem.entity("Acme", workspace="shop").aliases == ()  # none of the refused merges wrote anything

    text = http.post("/entities/merge", params={"format": "compact"}, json={"a": "Bob", "b": "tea"}).text
    assert text.startswith("✓ Merged into Bob id ") and "tea" in text


# -- communities ---------------------------------------------------------------------------
def test_communities(http: httpx2.Client, mem: Knotwork, graph: dict[str, str]) -> None:  # noqa: F811
    groups = http.get("/communities").json()["communities"]
    assert {g["name"]: g["members"] for g in groups} == {"Ana, Berlin": ["Ana", "Berlin"], "Redis, ReportsModule": ["Redis", "ReportsModule"]}
    assert all(g["workspace"] == "shop" and g["size"] == 2 for g in groups)
    (of_redis,) = http.get("/communities", params={"entity": "Redis"}).json()["communities"]
    assert of_redis["name"] == "Redis, ReportsModule"
    assert len(http.get("/communities", params={"limit": 1}).json()["communities"]) == 1
    assert http.get("/communities", params={"workspace": "other"}).json()["communities"] == []
    assert error_of(http.get("/communities", params={"entity": "Nobody"}), 404)["type"] == "not_found"
    assert error_of(http.get("/communities", params={"limit": 0}), 400)["field"] == "limit"
    text = http.get("/communities", params={"format": "compact"}).text
    assert "Ana, Berlin (2 entities)" in text and "Redis, ReportsModule (2 entities)" in text

    mem.add("Elsewhere, Zed uses Vim.", workspace="other", facts=[{"subject": "Zed", "predicate": "uses", "object": "Vim"}])
    rebuilt = http.post("/communities/rebuild")
    assert rebuilt.status_code == 200
    assert sorted(g["name"] for g in rebuilt.json()["communities"]) == ["Ana, Berlin", "Redis, ReportsModule"]
    other = http.post("/communities/rebuild", params={"workspace": "other"}).json()["communities"]
    assert [(g["workspace"], sorted(g["members"])) for g in other] == [("other", ["Vim", "Zed"])]
    everywhere = http.post("/communities/rebuild", params={"workspace": "*"}).json()["communities"]
    assert {g["workspace"] for g in everywhere} == {"shop", "other"}


# -- clearing ------------------------------------------------------------------------------
def test_clear_graph_needs_confirmation_and_keeps_memories(
    http: httpx2.Client, mem: Knotwork, graph: dict[str, str]  # noqa: F811
) -> None:
    mem.add("Zed uses Vim.", workspace="other", facts=[{"subject": "Zed", "predicate": "uses", "object": "Vim"}])
    for params in ({}, {"confirm": "false"}):
        refused = error_of(http.delete("/graph", params=params), 400)
        assert refused["type"] == "invalid_input" and refused["field"] == "confirm"
    assert error_of(http.delete("/graph", params={"confirm": "perhaps"}), 422)["field"] == "confirm"
    assert mem.entity("Ana", workspace="shop").id == graph["ana"]  # nothing was deleted

    r = http.delete("/graph", params={"confirm": "true"})
    assert r.status_code == 200
    report = r.json()
    assert report["workspace"] == "shop" and report["entities"] >= 5 and report["facts"] == 3
    assert error_of(http.get("/entities/Ana"), 404)["type"] == "not_found"
    assert http.post("/search/facts", json={"query": "Ana lives", "include_invalid": True}).json()["facts"] == []
    assert mem.store.count_memories() == 4  # memories are kept
    assert mem.entity("Zed", workspace="other").name == "Zed"  # another workspace's graph is untouched

    text = http.delete("/graph", params={"confirm": "true", "workspace": "other", "format": "compact"}).text
    assert text == "✓ Cleared the graph of workspace other: 2 entities, 1 facts (memories kept)"
    with pytest.raises(NotFound):
        mem.entity("Zed", workspace="other")


# -- LLM extraction --------------------------------------------------------------------------
@pytest.fixture
def llm() -> Iterator[ChatServer]:
    server = ChatServer().start()
    yield server
    server.stop()


@pytest.fixture
def with_llm(tmp_path: Path, llm: ChatServer) -> Iterator[tuple[httpx2.Client, Knotwork]]:
    settings = Settings(embedder="none", kg_extract="none", kg_llm_url=llm.base_url, kg_llm_model="toy", kg_llm_backoff=0)
    with knotwork.open(tmp_path / "llm.db", settings=settings) as m, serving(m, default_workspace="shop") as client:
        yield client, m


def test_extraction_status_and_run(with_llm: tuple[httpx2.Client, Knotwork], llm: ChatServer) -> None:
    http, m = with_llm
    memory_id = http.post("/memories", json={"content": "BillingService uses Stripe."}).json()["id"]
    queued = http.get("/extraction").json()
    assert queued["enabled"] is True and queued["counts"]["pending"] == 1
    assert [(q["memory_id"], q["status"], q["attempts"]) for q in queued["items"]] == [(memory_id, "pending", 0)]
    assert http.post("/search/entities", json={"query": "Stripe"}).json()["entities"] == []  # not extracted yet

    run = http.post("/extraction/run")
    assert run.status_code == 200
    assert run.json() == {"done": 1, "retrying": 0, "failed": 0, "remaining": {"pending": 0, "running": 0, "failed": 0}}
    assert len(llm.chat_requests) == 1
    (hit,) = http.post("/search/facts", json={"query": "BillingService Stripe"}).json()["facts"]
    f = hit["fact"]
    assert (f["subject"]["name"], f["predicate"], f["extractor"]) == ("BillingService", "uses", "llm")
    done = http.get("/extraction", params={"status": "done"}).json()
    assert done["counts"]["done"] == 1 and [q["memory_id"] for q in done["items"]] == [memory_id]
    assert http.get("/extraction").json()["items"] == []  # done items are listed only when asked for
    text = http.get("/extraction", params={"format": "compact"}).text
    assert text.startswith("LLM extraction: on · pending 0 · running 0 · done 1 · failed 0")


def test_extraction_failures_and_retry(with_llm: tuple[httpx2.Client, Knotwork], llm: ChatServer) -> None:
    http, m = with_llm
    first = http.post("/memories", json={"content": "BillingService uses Stripe."}).json()["id"]
    http.post("/memories", json={"content": "CheckoutPage uses BillingService."})
    llm.replies = [Reply(status=404)]  # a client error fails the item at once

    one = http.post("/extraction/run", json={"limit": 1}).json()
    assert (one["done"], one["failed"], one["remaining"]["pending"]) == (0, 1, 1)  # the limit left one queued
    (failed,) = http.get("/extraction", params={"status": "failed"}).json()["items"]
    assert failed["memory_id"] == first and "HTTP 404" in failed["last_error"]
    rest = http.post("/extraction/run", json={}).json()
    assert (rest["done"], rest["remaining"]["failed"]) == (1, 1)  # failed items wait to be asked for again
    again = http.post("/extraction/run", json={"retry_failed": True}).json()
    assert (again["done"], again["failed"]) == (1, 0)
    assert m.extraction_status().counts == {"pending": 0, "running": 0, "done": 2, "failed": 0}
    compact = http.post("/extraction/run", params={"format": "compact"}).text
    assert compact == "✓ Extracted 0 memories; 0 to retry, 0 failed; left: nothing"


def test_extraction_bad_parameters(with_llm: tuple[httpx2.Client, Knotwork], llm: ChatServer) -> None:
    http, m = with_llm
    http.post("/memories", json={"content": "BillingService uses Stripe."})
    assert error_of(http.get("/extraction", params={"status": "stuck"}), 400)["field"] == "status"
    assert error_of(http.get("/extraction", params={"limit": 0}), 400)["field"] == "limit"
    assert error_of(http.get("/extraction", params={"limit": "all"}), 422)["field"] == "limit"
    assert error_of(http.post("/extraction/run", json={"limit": 0}), 400)["field"] == "limit"
    assert error_of(http.post("/extraction/run", json={"limit": "all"}), 422)["field"] == "limit"
    assert error_of(http.post("/extraction/run", json={"retry": True}), 422)["field"] == "retry"
    assert llm.chat_requests == [] and m.extraction_status().counts["pending"] == 1  # nothing ran


def test_extraction_without_an_llm(http: httpx2.Client) -> None:  # noqa: F811
    http.post("/memories", json={"content": "BillingService uses Stripe."})
    assert http.get("/extraction").json() == {
        "enabled": False, "counts": {"pending": 0, "running": 0, "done": 0, "failed": 0}, "items": []
    }
    assert http.post("/extraction/run").json()["done"] == 0


# -- bad input -------------------------------------------------------------------------------
def test_unknown_ids_are_404(http: httpx2.Client, graph: dict[str, str]) -> None:  # noqa: F811
    for response in (
        http.get("/entities/Nobody"),
        http.get(f"/entities/{ABSENT}"),
        http.get("/entities/Nobody/facts"),
        http.get(f"/facts/{ABSENT}"),
        http.delete(f"/facts/{ABSENT}"),
        http.post("/search/entities", json={"query": "redis", "center": "Nobody"}),
        http.post("/search/facts", json={"query": "Ana", "center": "Nobody"}),
    ):
        body = error_of(response, 404)
        assert body["type"] == "not_found"


def test_ambiguous_short_ids_are_400_listing_candidates(http: httpx2.Client, mem: Knotwork, graph: dict[str, str]) -> None:  # noqa: F811
    boston = mem.entity("Boston", workspace="shop").id  # made in the same transaction as Ana: same leading time characters
    prefix = graph["ana"][:8]
    assert boston.startswith(prefix)
    body = error_of(http.get(f"/entities/{prefix}"), 400)
    assert body["type"] == "ambiguous_id" and {graph["ana"], boston} <= set(body["candidates"])


def test_bad_parameters_are_400_or_422(http: httpx2.Client, mem: Knotwork, graph: dict[str, str]) -> None:  # noqa: F811
    # well-formed requests the service refuses: 400, naming the field
    assert error_of(http.get("/facts/short"), 400)["field"] == "fact_id"
    assert error_of(http.delete("/facts/short"), 400)["field"] == "fact_id"
    assert error_of(http.post("/search/entities", json={"query": "  "}), 400)["field"] == "query"
    assert error_of(http.post("/search/facts", json={"query": "Ana", "limit": 0}), 400)["field"] == "limit"
    assert error_of(http.post("/search/entities", json={"query": "Ana", "limit": 101}), 400)["field"] == "limit"
    assert error_of(http.post("/search/facts", json={"query": "Ana", "as_of": "last year"}), 400)["field"] == "as_of"
    assert error_of(http.get("/entities/Ana/facts", params={"as_of": "soon"}), 400)["field"] == "as_of"
    assert error_of(http.get("/episodes", params={"limit": 0}), 400)["field"] == "limit"
    # malformed requests: 422, naming the field
    assert error_of(http.post("/search/facts", json={"limit": 3}), 422)["field"] == "query"
    assert error_of(http.post("/search/facts", json={"query": "Ana", "include_invalid": "maybe"}), 422)["field"] == "include_invalid"
    assert error_of(http.post("/search/entities", json={"query": "Ana", "as_of": "2025-01-01"}), 422)["field"] == "as_of"
    assert error_of(http.get("/entities/Ana/facts", params={"include_invalid": "maybe"}), 422)["field"] == "include_invalid"
    assert error_of(http.get("/episodes", params={"limit": "few"}), 422)["field"] == "limit"
    assert error_of(http.post("/search/entities", content="not json", headers={"content-type": "application/json"}), 422)
    assert error_of(http.put("/facts/" + graph["berlin"]), 405)["type"] == "method_not_allowed"
    assert mem.fact(graph["berlin"]).invalid_at is None  # nothing was changed by any of them


# -- the API contract ------------------------------------------------------------------------
def test_openapi_spec_lists_every_knowledge_operation(http: httpx2.Client) -> None:  # noqa: F811
    spec = http.get("/openapi.json").json()
    ops = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert ops >= {
        ("POST", "/search/entities"), ("POST", "/search/facts"), ("GET", "/episodes"), ("GET", "/entities/{ref}"),
        ("GET", "/entities/{ref}/facts"), ("POST", "/entities/merge"), ("GET", "/facts/{id}"), ("DELETE", "/facts/{id}"),
        ("DELETE", "/graph"), ("GET", "/communities"), ("POST", "/communities/rebuild"), ("GET", "/extraction"),
        ("POST", "/extraction/run"),
    }


def test_a_memory_posted_with_entities_and_facts_feeds_the_graph(http: httpx2.Client) -> None:  # noqa: F811
    body = {
        "content": "The billing service settled on a queue",
        "entities": [{"name": "BillingService", "type": "service"}],
        "facts": [{"subject": "BillingService", "predicate": "uses", "object": "RabbitMQ", "valid_at": "2026-01-03"}],
    }
    assert http.post("/memories", json=body).status_code == 201
    facts = http.post("/search/facts", json={"query": "BillingService"}).json()
    assert "RabbitMQ" in str(facts) and "uses" in str(facts)
    bad = http.post("/memories", json={"content": "zebrafish tank notes", "facts": [{"subject": "A", "object": "B"}]})
    assert bad.status_code == 400 and "predicate" in bad.text
    assert http.post("/search", json={"query": "zebrafish"}).json()["hits"] == []  # nothing half-written


def test_min_confidence_on_search_and_entity_facts(http: httpx2.Client, mem: Knotwork) -> None:  # noqa: F811
    mem.add("Ana's tools", workspace="shop", facts=[{"subject": "Ana", "predicate": "uses", "object": "Vim"},
                                                    {"subject": "Ana", "predicate": "uses", "object": "Nano", "confidence": 0.3}])
    every = http.post("/search/facts", json={"query": "Ana uses"}).json()["facts"]
    assert {(h["fact"]["object"]["name"], h["fact"]["extractor"], h["fact"]["confidence"]) for h in every} == {
        ("Vim", "caller", 1.0), ("Nano", "caller", 0.3)}
    sure = http.post("/search/facts", json={"query": "Ana uses", "min_confidence": 0.5}).json()["facts"]
    assert objects([h["fact"] for h in sure]) == ["Vim"]
    assert objects(http.get("/entities/Ana/facts", params={"min_confidence": 0.5}).json()["facts"]) == ["Vim"]
    assert sorted(objects(http.get("/entities/Ana/facts", params={"min_confidence": 0.3}).json()["facts"])) == ["Nano", "Vim"]
    text = http.get("/entities/Ana/facts", params={"format": "compact"}).text
    assert "Ana --uses--> Nano (" in text and "; caller 0.3) id " in text
    assert "min_confidence" in error_of(http.post("/search/facts", json={"query": "Ana", "min_confidence": 2}), 400)["message"]
    assert "min_confidence" in error_of(http.get("/entities/Ana/facts", params={"min_confidence": -1}), 400)["message"]
