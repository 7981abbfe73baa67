"""The web UI's server side over real HTTP: its page and files, its read-only JSON, and the guards
that keep other sites' pages from writing."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork
from knotwork.adapters.http.routers import ui
from knotwork.config import Settings
from tests.adapters._http import serving

needs_bundle = pytest.mark.skipif(not ui.built(), reason="the web UI is not built (make, or: cd web && npm ci && npm run build)")


@pytest.fixture
def seeded(mem: Knotwork) -> dict[str, str]:
    a = mem.add("Deploys go through the staging cluster first.", workspace="ops", category="process", agent_id="bot",
                tags={"team": "infra"}, facts=[{"subject": "deploys", "predicate": "go through", "object": "staging",
                                                "valid_at": "2026-01-01T00:00:00Z"}])
    b = mem.add("The staging cluster runs in eu-west.", workspace="ops", category="fact", tags=["infra"])
    return {"a": a.id, "b": b.id}


@needs_bundle
def test_the_page_and_its_files_are_served(mem: Knotwork) -> None:
    with serving(mem) as http:
        page = http.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "/ui/static/app.js" in page.text
        js = http.get("/ui/static/app.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        assert http.get("/ui/static/nothing.js").status_code == 404


def test_choices_offer_what_the_store_holds(mem: Knotwork, seeded: dict[str, str]) -> None:
    with serving(mem) as http:
        c = http.get("/ui/api/choices").json()
        tags = http.get("/ui/api/tags").json()["tags"]
    assert c["workspaces"] == ["ops"] and c["agents"] == ["bot"]
    assert c["categories"] == ["fact", "process"]
    assert set(tags) == {"team", "infra"}
    assert c["default_recipe"] in c["recipes"] and "relates_to" in c["link_types"]


def test_activity_counts_every_memory_once_per_dimension(mem: Knotwork, seeded: dict[str, str]) -> None:
    with serving(mem) as http:
        act = http.get("/ui/api/activity", params={"bucket": "day"}).json()
        bad = http.get("/ui/api/activity", params={"bucket": "week"})
        bad_by = http.get("/ui/api/activity", params={"by": "updated"})
    assert act["by"] == "valid" and bad_by.status_code == 400 and bad_by.json()["error"]["field"] == "by"
    assert len(act["periods"]) == 1 and len(act["periods"][0]) == 10
    for dimension in ("workspace", "category", "agent"):
        assert sum(sum(v) for v in act["series"][dimension].values()) == 2
    assert act["series"]["agent"] == {"bot": [1], "": [1]}
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "bucket"


def test_a_memorys_knowledge_is_the_facts_it_is_a_source_of(mem: Knotwork, seeded: dict[str, str]) -> None:
    with serving(mem) as http:
        got = http.get(f"/ui/api/memories/{seeded['a']}/knowledge").json()
        missing = http.get("/ui/api/memories/01ZZZZZZZZZZZZZZZZZZZZZZZZ/knowledge")
    assert [f["fact"] for f in got["facts"]] == ["deploys go through staging"]
    assert all(seeded["a"] in f["sources"] for f in got["facts"])
    assert {"deploys", "staging"} <= {e["name"] for e in got["entities"]}
    assert missing.status_code == 404


def test_knowledge_graph_at_a_time_leaves_out_facts_not_yet_true(mem: Knotwork, seeded: dict[str, str]) -> None:
    with serving(mem) as http:
        now = http.get("/ui/api/knowledge", params={"workspace": "ops"}).json()
        then = http.get("/ui/api/knowledge", params={"workspace": "ops", "as_of": "2025-06-01T00:00:00Z"}).json()
        bad = http.get("/ui/api/knowledge", params={"workspace": "ops", "as_of": "last week"})
    assert "deploys go through staging" in [f["fact"] for f in now["facts"]]
    assert "deploys go through staging" not in [f["fact"] for f in then["facts"]]
    assert now["earliest"] <= "2026-01-01T00:00:00Z" and now["communities"]
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "as_of"


HARBOR = [  # (subject, predicate, object, valid_at, invalid_at)
    ("Background jobs", "run_on", "Celery", "2025-02-10", "2025-06-05"),
    ("Background jobs", "run_on", "Dramatiq", "2025-06-05", None),
    ("Harbor", "primary_database", "MySQL 5.7", "2025-01-15", "2025-05-20"),
    ("Harbor", "primary_database", "PostgreSQL 16", "2025-05-20", None),
    ("rate limiter", "allows", "100 requests per minute", "2025-03-01", "2025-08-01"),
    ("Harbor", "caches_with", "Redis", "2025-01-20", None),
]


def test_knowledge_graph_at_a_time_shows_exactly_the_facts_search_facts_finds_then(mem: Knotwork) -> None:
    for i, (subject, predicate, obj, valid, invalid) in enumerate(HARBOR):
        mem.add(f"Project log entry {i}.", workspace="proj", valid_at=f"{valid}T00:00:00Z",
                facts=[{"subject": subject, "predicate": predicate, "object": obj, "valid_at": f"{valid}T00:00:00Z",
                        "invalid_at": invalid and f"{invalid}T00:00:00Z"}])
    every = {f.id: f for s in ("Harbor", "Background jobs", "rate limiter")
             for f in mem.entity_facts(s, workspace="proj", include_invalid=True)}
    assert len(every) == len(HARBOR)
    bounds = sorted({d for row in HARBOR for d in row[3:] if d})
    instants = [f"{d}T00:00:00Z" for d in bounds] + [f"{d}T12:00:00Z" for d in bounds] + ["2025-04-01T00:00:00Z"]
    with serving(mem) as http:
        for at in instants:
            view = http.get("/ui/api/knowledge", params={"workspace": "proj", "as_of": at}).json()
            drawn = {f["id"] for f in view["facts"]}
            held = {fid for fid, f in every.items() if f.current(datetime.fromisoformat(at))}
            assert drawn == held, at
            for fid, f in every.items():  # and search_facts at that time agrees, fact by fact
                r = http.post("/search/facts", json={"query": f.fact, "as_of": at, "workspace": "proj", "limit": 50})
                assert (fid in {h["fact"]["id"] for h in r.json()["facts"]}) == (fid in drawn), (at, f.fact)
        april = http.get("/ui/api/knowledge", params={"workspace": "proj", "as_of": "2025-04-01"}).json()
    assert "Background jobs run on Celery" in {f["fact"] for f in april["facts"]}  # retired since, true then


def test_the_knowledge_view_shows_a_person_under_two_names_as_one_node(mem: Knotwork) -> None:
    mem.add("Bob fixed the login bug.", workspace="team", facts=[{"subject": "Bob", "predicate": "owns", "object": "login service"}])
    mem.add("Bob Martinez joined.", workspace="team", facts=[{"subject": "Bob Martinez", "predicate": "member_of", "object": "platform team"}])
    with serving(mem) as http:
        view = http.get("/ui/api/knowledge", params={"workspace": "team"}).json()
    names = [e["name"] for e in view["entities"]]
    assert "Bob Martinez" in names and "Bob" not in names
    (bob,) = [e for e in view["entities"] if e["name"] == "Bob Martinez"]
    assert bob["aliases"] == ["Bob"]
    assert {f["fact"] for f in view["facts"] if bob["id"] in (f["subject"]["id"], f["object"]["id"])} == {
        "Bob Martinez owns login service", "Bob Martinez member of platform team"}


def test_knowledge_graph_leaves_out_facts_below_min_confidence(mem: Knotwork, seeded: dict[str, str]) -> None:
    mem.add("The staging cluster may use spot nodes.", workspace="ops",
            facts=[{"subject": "staging", "predicate": "uses", "object": "spot nodes", "confidence": 0.4}])
    with serving(mem) as http:
        every = http.get("/ui/api/knowledge", params={"workspace": "ops"}).json()
        sure = http.get("/ui/api/knowledge", params={"workspace": "ops", "min_confidence": 0.5}).json()
        bad = http.get("/ui/api/knowledge", params={"workspace": "ops", "min_confidence": 1.5})
    shown = {f["fact"]: (f["extractor"], f["confidence"]) for f in every["facts"]}
    assert shown["staging uses spot nodes"] == ("caller", 0.4) and shown["deploys go through staging"] == ("caller", 1.0)
    assert [f["fact"] for f in sure["facts"]] == ["deploys go through staging"]
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "min_confidence"


def test_search_latency_counts_answered_searches_only(mem: Knotwork, seeded: dict[str, str]) -> None:
    with serving(mem) as http:
        assert http.get("/ui/api/latency").json()["search"]["count"] == 0
        assert http.post("/search", json={"query": "staging", "workspace": "ops"}).status_code == 200
        assert http.post("/search", json={"quer": "typo"}).status_code == 422
        lat = http.get("/ui/api/latency").json()
    assert lat["search"]["count"] == 1 and lat["search"]["p50_ms"] > 0
    assert set(lat["recall"]) == {"count", "p50_ms", "p95_ms"}


def test_token_savings_sum_the_metrics_file(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    with knotwork.open(tmp_path / "m.db", settings=Settings(metrics_file=metrics)) as m:
        m.add("Metrics are written one JSON line per call.", workspace="w")
        with serving(m) as http:
            off = http.get("/ui/api/token_savings").json()
            http.post("/search", json={"query": "metrics", "workspace": "w"}, params={"format": "compact"})
            on = http.get("/ui/api/token_savings").json()
    assert off["file"] == str(metrics) and off["calls"] == 0
    search = next(o for o in on["operations"] if o["operation"] == "search")
    assert search["calls"] == 1 and search["sent_tokens"] < search["raw_tokens"]
    assert on["savings_pct"] is not None


def test_writes_from_another_sites_page_are_refused(mem: Knotwork) -> None:
    with serving(mem) as http:
        host = http.base_url.netloc.decode()
        cross = http.post("/memories", json={"content": "planted", "workspace": "w"}, headers={"Origin": "http://evil.example"})
        form = http.post("/memories", content=b'{"content": "planted"}', headers={"Content-Type": "text/plain"})
        same = http.post("/memories", json={"content": "mine", "workspace": "w"}, headers={"Origin": f"http://{host}"})
        rebound = http.get("/stats", headers={"Host": "evil.example"})
        listed = http.get("/memories", params={"workspace": "w"}).json()["memories"]
    assert cross.status_code == 403 and "Origin" in cross.json()["error"]["message"]
    assert form.status_code == 415 and "JSON" in form.json()["error"]["message"]
    assert same.status_code == 201
    assert rebound.status_code == 403
    assert [m["content"] for m in listed] == ["mine"]


def test_with_a_token_the_page_loads_but_its_data_needs_the_token(mem: Knotwork) -> None:
    with serving(mem, api_token="s3cret", host="0.0.0.0") as http:
        page = http.get("/")
        data = http.get("/ui/api/choices")
        authed = http.get("/ui/api/choices", headers={"Authorization": "Bearer s3cret"})
        any_host = http.get("/ui/api/choices", headers={"Authorization": "Bearer s3cret", "Host": "knotwork.lan:8765"})
    assert page.status_code in (200, 503)  # the page (or the note that it is not built) holds no data
    assert data.status_code == 401
    assert authed.status_code == 200 and any_host.status_code == 200
