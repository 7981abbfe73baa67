"""The REST API through real HTTP: a uvicorn server on a loopback port over a real SQLite file.

Every endpoint is called, its answer checked, and the store checked through
the Python API where the call wrote something. Error paths check the status
code and the JSON error body.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Knotwork, NotFound, Settings, tokens

from ._http import serving
from ._rest import ABSENT, error_of, http, mem  # noqa: F401 - the REST tests' store and server fixtures

# -- memories ----------------------------------------------------------------------
def test_add_get_update_history_delete(http: httpx2.Client, mem: Knotwork) -> None:
    r = http.post("/memories", json={"content": "We deploy blue-green", "category": "decision", "tags": {"area": "ops"}})
    assert r.status_code == 201
    m = r.json()
    assert m["workspace"] == "shop" and m["duplicate"] is False  # the server's default workspace
    assert mem.get(m["id"]).content == "We deploy blue-green"

    again = http.post("/memories", json={"content": "We deploy blue-green"})
    assert again.status_code == 200 and again.json()["duplicate"] is True and again.json()["id"] == m["id"]

    assert http.get(f"/memories/{m['id'][-8:]}").json()["id"] == m["id"]
    compact = http.get(f"/memories/{m['id']}", params={"format": "compact"})
    assert compact.headers["content-type"].startswith("text/plain") and "We deploy blue-green" in compact.text

    u = http.patch(f"/memories/{m['id']}", json={"content": "We deploy blue-green, canary first", "importance": 0.9})
    assert u.status_code == 200 and u.json()["version"] == 2
    assert mem.get(m["id"]).importance == 0.9

    retired = http.patch(f"/memories/{m['id']}", json={"valid_at": "2019-06-01", "invalid_at": "2020-01-01"}).json()
    assert retired["invalid_at"].startswith("2020-01-01")
    cleared = http.patch(f"/memories/{m['id']}", json={"invalid_at": None}).json()
    assert cleared["invalid_at"] is None

    versions = http.get(f"/memories/{m['id']}/history").json()["versions"]
    assert [v["version"] for v in versions] == [1, 2, 3, 4]

    d = http.delete(f"/memories/{m['id']}")
    assert d.status_code == 200 and d.json()["id"] == m["id"]
    with pytest.raises(NotFound):
        mem.get(m["id"])


def test_batch_list_and_pages(http: httpx2.Client, mem: Knotwork) -> None:
    items = [{"content": f"note {i}", "category": "fact"} for i in range(5)] + [{"content": "elsewhere", "workspace": "other"}]
    r = http.post("/memories/batch", json={"items": items})
    assert r.status_code == 201 and len(r.json()["memories"]) == 6
    first = http.get("/memories", params={"limit": 3, "category": "fact"}).json()
    assert [m["content"] for m in first["memories"]] == ["note 4", "note 3", "note 2"]
    rest = http.get("/memories", params={"limit": 3, "category": "fact", "cursor": first["next_cursor"]}).json()
    assert [m["content"] for m in rest["memories"]] == ["note 1", "note 0"] and rest["next_cursor"] is None
    assert [m["content"] for m in http.get("/memories", params={"workspace": "other"}).json()["memories"]] == ["elsewhere"]
    assert mem.store.count_memories() == 6


def test_batch_is_all_or_nothing(http: httpx2.Client, mem: Knotwork) -> None:
    body = error_of(http.post("/memories/batch", json={"items": [{"content": "fine"}, {"content": ""}]}), 400)
    assert body["type"] == "invalid_input" and body["field"] == "items[1].content"
    assert mem.store.count_memories() == 0


def test_batch_answers_each_items_decision(http: httpx2.Client, mem: Knotwork) -> None:
    items = [{"content": "The deploy window is Tuesday at 14:00 UTC"}, {"content": "Maybe the cache is stale"},
             {"content": "the deploy window is tuesday at 14:00 utc"}]
    got = http.post("/memories/batch", json={"items": items}).json()["memories"]
    assert [(m["decision"], m["touched"]) for m in got] == [("ADD", None), ("IGNORE", None), ("NOOP", got[0]["id"])]
    assert "speculation" in got[1]["reason"] and mem.store.count_memories() == 1
    text = http.post("/memories/batch", params={"format": "compact"}, json={"items": items}).text
    assert text.splitlines()[0] == "✓ 3 item(s): 2 NOOP, 1 IGNORE"
    raw = http.post("/memories/batch", json={"items": items, "consolidate": False, "force": True}).json()["memories"]
    assert [m["decision"] for m in raw] == ["NOOP", "ADD", "ADD"] and mem.store.count_memories() == 3
    assert error_of(http.post("/memories/batch", json={"items": items, "force": "yes"}), 422)


def test_list_filters_by_tag(http: httpx2.Client) -> None:
    http.post("/memories", json={"content": "tagged", "tags": {"team": "core"}})
    http.post("/memories", json={"content": "untagged"})
    got = http.get("/memories", params=[("tag", "team=core")]).json()["memories"]
    assert [m["content"] for m in got] == ["tagged"]


def test_search(http: httpx2.Client) -> None:
    http.post("/memories", json={"content": "Postgres is the primary database"})
    http.post("/memories", json={"content": "Lunch is at noon"})
    hits = http.post("/search", json={"query": "primary database", "explain": True}).json()["hits"]
    assert [h["memory"]["content"] for h in hits] == ["Postgres is the primary database"]
    assert "fused" in hits[0]["explain"]
    text = http.post("/search", params={"format": "compact"}, json={"query": "database"}).text
    assert not text.startswith("{") and "Postgres is the primary database" in text and "Lunch" not in text
    # `now`: the time the question is asked; a named time ("a week ago") counts from it.
    http.post("/memories", json={"content": "I finished a novel about the war", "valid_at": "2023-04-01T10:00:00Z"})
    http.post("/memories", json={"content": "I finished a novel about the sea", "valid_at": "2023-05-13T10:00:00Z"})
    ask = {"query": "Which novel did I finish a week ago?"}
    first = lambda now: http.post("/search", json={**ask, "now": now}).json()["hits"][0]["memory"]["content"]  # noqa: E731
    assert first("2023-05-20T12:00:00Z").endswith("sea") and first("2023-04-08T12:00:00Z").endswith("war")
    assert http.post("/search", json={**ask, "now": "soon"}).status_code == 400


# -- relationships -------------------------------------------------------------------
def test_links_relationships_related_graph_relations(http: httpx2.Client, mem: Knotwork) -> None:
    a = http.post("/memories", json={"content": "ADR: use Postgres", "artifacts": ["docs/adr/1.md"]}).json()["id"]
    b = http.post("/memories", json={"content": "Migrated the orders table"}).json()["id"]
    c = http.post("/memories", json={"content": "Tuned autovacuum"}).json()["id"]
    link = http.post("/links", json={"from_id": b, "to_id": a, "type": "implements"})
    assert link.status_code == 201 and link.json()["existing"] is False
    assert http.post("/links", json={"from_id": b, "to_id": a, "type": "implements"}).status_code == 200
    http.post("/links", json={"from_id": c, "to_id": b, "type": "relates_to"})

    rels = http.get(f"/memories/{a}/relationships").json()["relationships"]
    assert [(r["from"], r["to"], r["type"]) for r in rels] == [(b, a, "implements")]
    assert http.get(f"/memories/{a}/relationships", params={"direction": "outgoing"}).json()["relationships"] == []
    related = http.get(f"/memories/{a}/related", params={"depth": 2}).json()["related"]
    assert {r["memory"]["id"]: r["depth"] for r in related} == {b: 1, c: 2}
    g = http.get(f"/memories/{a}/graph").json()
    assert g["center"] == a and {n["id"] for n in g["nodes"]} == {a, b, c} and len(g["edges"]) == 2
    dot = http.get(f"/memories/{a}/graph", params={"format": "dot"})
    assert dot.text.startswith("digraph knotwork") and dot.headers["content-type"].startswith("text/plain")
    assert len(http.get("/relationships").json()["relationships"]) == 2
    relations = http.get("/relations", params=[("id", a)]).json()
    assert any(r["target_value"] == "docs/adr/1.md" for r in relations[a])

    unlinked = http.delete(f"/links/{link.json()['id']}")
    assert unlinked.status_code == 200
    assert mem.relationships(a) == []


# -- import and export -----------------------------------------------------------------
def test_export_then_import_into_another_store(http: httpx2.Client, tmp_path: Path) -> None:
    a = http.post("/memories", json={"content": "first"}).json()["id"]
    b = http.post("/memories", json={"content": "second"}).json()["id"]
    http.patch(f"/memories/{a}", json={"content": "first, revised"})
    http.post("/links", json={"from_id": a, "to_id": b, "type": "references"})
    exported = http.get("/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert [json.loads(line)["id"] for line in lines if "record" not in json.loads(line)] == [a, b]
    assert json.loads(lines[-1]) == {"record": "graph"}  # the knowledge graph follows the memories

    with knotwork.open(tmp_path / "copy.db", settings=Settings(embedder="none")) as other, serving(other) as http2:
        report = http2.post("/import", content=exported.text, headers={"content-type": "application/x-ndjson"})
        assert report.json() == {"added": 2, "skipped": 0}
        assert [v.content for v in other.history(a)] == ["first", "first, revised"]
        assert [r.to_id for r in other.relationships(a, "outgoing")] == [b]
        as_array = http2.post("/import", content="[" + ",".join(lines) + "]")
        assert as_array.json() == {"added": 0, "skipped": 2}


def test_import_refuses_bad_lines_and_writes_nothing(http: httpx2.Client, mem: Knotwork) -> None:
    good = json.dumps({"id": "01JAAAAAAAAAAAAAAAAAAAAAAA", "content": "x", "created_at": "2026-01-01",
                       "updated_at": "2026-01-01", "valid_at": "2026-01-01"})
    body = error_of(http.post("/import", content=good + "\n{not json\n"), 400)
    assert body["field"] == "line 2"
    missing = error_of(http.post("/import", content='{"content": "no id"}\n'), 400)
    assert "record 1" in missing["field"] and "missing" in missing["message"]
    assert mem.store.count_memories() == 0


def test_reembed(http: httpx2.Client, tmp_path: Path) -> None:
    body = error_of(http.post("/reembed"), 400)  # this server's store has no embedder
    assert body["field"] == "embedder"
    with knotwork.open(tmp_path / "vectors.db") as mem, serving(mem) as with_vectors:
        with_vectors.post("/memories", json={"content": "one"})
        with_vectors.post("/memories", json={"content": "two"})
        assert with_vectors.post("/reembed").json() == {"embedded": 2}
        assert mem.store.count_vectors()[0] == 2


# -- recall, status, stats ------------------------------------------------------------
def test_ambient_recall_for_hooks(http: httpx2.Client) -> None:
    http.post("/memories", json={"content": "Always run make test before pushing", "category": "directive"})
    old = http.post("/memories", json={"content": "Retired rule: push on Fridays", "category": "directive"}).json()["id"]
    http.patch(f"/memories/{old}", json={"valid_at": "2019-06-01", "invalid_at": "2020-01-01"})
    r = http.post("/tools/ambient_recall", json={"context": "startup", "budget_tokens": 200})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"text", "sections", "tokens", "latency_ms"}
    assert tokens.count(body["text"]) == body["tokens"] <= 200
    assert "Always run make test" in body["text"] and body["workspace"] == "shop"
    assert "Fridays" not in body["text"]
    directives = next(s for s in body["sections"] if s["name"] == "directives")
    assert any("make test" in e for e in directives["entries"])
    text = http.post("/tools/ambient_recall", params={"format": "compact"}, json={"budget_tokens": 200})
    assert text.text.startswith("## now ")


def test_ambient_recall_errors(http: httpx2.Client) -> None:
    assert error_of(http.post("/tools/ambient_recall", json={"budget_tokens": 0}), 400)["field"] == "budget_tokens"
    assert error_of(http.post("/tools/ambient_recall", json={"sections": ["weather"]}), 422)["field"] == "sections.0"
    assert error_of(http.post("/tools/ambient_recall", json={"budget": 10}), 422)["type"] == "invalid_request"
    assert error_of(http.post("/tools/ambient_recall", content="not json",
                              headers={"content-type": "application/json"}), 422)["type"] == "invalid_request"


def test_status_and_stats(http: httpx2.Client) -> None:
    http.post("/memories", json={"content": "a", "category": "fact", "agent_id": "bot"})
    http.post("/tools/ambient_recall", json={})
    s = http.get("/status").json()
    assert s["memories"] == 1 and s["embedder"] == "none" and s["schema_version"] >= 11
    assert s["recall"]["count"] >= 1 and s["recall"]["p50_ms"] > 0
    assert "recall p50" in http.get("/status", params={"format": "compact"}).text
    st = http.get("/stats").json()
    assert st["by_workspace"] == {"shop": 1} and st["by_category"] == {"fact": 1} and st["by_agent"] == {"bot": 1}
    assert st["size_bytes"] > 0


# -- errors ---------------------------------------------------------------------------
def test_error_paths_map_to_4xx_json(http: httpx2.Client) -> None:
    assert error_of(http.get(f"/memories/{ABSENT}"), 404)["type"] == "not_found"
    assert error_of(http.delete(f"/memories/{ABSENT}"), 404)["type"] == "not_found"
    assert error_of(http.get("/memories/short"), 400)["type"] == "invalid_input"
    assert error_of(http.post("/memories", json={"content": "   "}), 400)["field"] == "content"
    assert error_of(http.post("/memories", json={"content": "x", "importance": 7}), 400)["field"] == "importance"
    assert error_of(http.post("/memories", json={"content": "x", "colour": "red"}), 422)["field"] == "colour"
    assert error_of(http.post("/memories", json={}), 422)["field"] == "content"
    assert error_of(http.patch(f"/memories/{ABSENT}", json={"content": "x"}), 404)
    assert error_of(http.get("/memories", params={"limit": 0}), 400)["field"] == "limit"
    assert error_of(http.get("/memories", params={"limit": "many"}), 422)["field"] == "limit"
    assert error_of(http.post("/search", json={"query": "x", "recipe": "nope"}), 400)["field"] == "recipe"
    assert error_of(http.post("/links", json={"from_id": ABSENT, "to_id": ABSENT, "type": "relates_to"}), 404)
    assert error_of(http.delete(f"/links/{ABSENT}"), 404)
    assert error_of(http.get("/no/such/path"), 404)["type"] == "not_found"
    assert error_of(http.put("/memories"), 405)["type"] == "method_not_allowed"


def test_ambiguous_short_id_is_a_400_listing_candidates(http: httpx2.Client, mem: Knotwork) -> None:
    ids = [m["id"] for m in http.post("/memories/batch", json={"items": [{"content": f"n{i}"} for i in range(40)]}).json()["memories"]]
    prefix = ids[0][:8]  # ids made in one batch share their leading time characters
    body = error_of(http.get(f"/memories/{prefix}"), 400)
    assert body["type"] == "ambiguous_id" and len(body["candidates"]) >= 2


def test_updating_into_a_duplicate_is_a_conflict(http: httpx2.Client) -> None:
    http.post("/memories", json={"content": "alpha"})
    b = http.post("/memories", json={"content": "beta"}).json()["id"]
    assert error_of(http.patch(f"/memories/{b}", json={"content": "alpha"}), 409)["type"] == "conflict"


# -- the API contract ------------------------------------------------------------------
def test_openapi_spec_lists_every_operation(http: httpx2.Client) -> None:
    spec = http.get("/openapi.json").json()
    ops = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert ops >= {
        ("POST", "/memories"), ("POST", "/memories/batch"), ("GET", "/memories"), ("GET", "/memories/{id}"),
        ("PATCH", "/memories/{id}"), ("DELETE", "/memories/{id}"), ("GET", "/memories/{id}/history"),
        ("POST", "/search"), ("POST", "/links"), ("DELETE", "/links/{relationship_id}"), ("GET", "/relationships"),
        ("GET", "/memories/{id}/relationships"), ("GET", "/memories/{id}/related"), ("GET", "/memories/{id}/graph"),
        ("GET", "/relations"), ("GET", "/export"), ("POST", "/import"), ("POST", "/tools/ambient_recall"),
        ("GET", "/status"), ("GET", "/stats"), ("POST", "/reembed"),
    }
    assert http.get("/docs").status_code == 200


def test_a_token_is_required_when_configured(mem: Knotwork) -> None:
    with serving(mem, api_token="s3cret") as http:
        refused = http.get("/status")
        assert error_of(refused, 401)["type"] == "unauthorized" and refused.headers["www-authenticate"] == "Bearer"
        assert error_of(http.get("/status", headers={"authorization": "Bearer wrong"}), 401)
        assert http.get("/status", headers={"authorization": "Bearer s3cret"}).status_code == 200
        assert error_of(http.post("/memories", json={"content": "x"}), 401)
    assert mem.store.count_memories() == 0
