"""The graph pages tell time and links right: the knowledge graph's time slider draws exactly the facts that held
at that instant (what ``/search/facts`` with ``as_of`` finds), retired ones dashed; the memory graph draws every
edge the graph API has, labels near-identical memories apart, and no two labels overlap. A real browser against a
real ``knotwork serve``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .conftest import Seeded, open_view

WS = "harbor-time"
FACTS = [  # (subject, predicate, object, valid_at, invalid_at)
    ("Background jobs", "run_on", "Celery", "2025-02-10", "2025-06-05"),
    ("Background jobs", "run_on", "Dramatiq", "2025-06-05", None),
    ("Harbor", "primary_database", "MySQL 5.7", "2025-01-15", "2025-05-20"),
    ("Harbor", "primary_database", "PostgreSQL 16", "2025-05-20", None),
    ("rate limiter", "allows", "100 requests per minute", "2025-03-01", "2025-08-01"),
    ("Harbor", "caches_with", "Redis", "2025-01-20", None),
]
DRAWN_FACTS = "window.knotworkGraph.edges().map(e => e.id().slice(1))"


def stamp(day: str | None) -> str | None:
    return f"{day}T00:00:00Z" if day else None


def seed_facts(served: Seeded) -> dict[str, dict[str, Any]]:
    """The facts of FACTS, stored through the API (each from a memory whose text the rules read nothing from)."""
    for i, (s, p, o, valid, invalid) in enumerate(FACTS):
        served.add(f"Harbor log entry {i}.", workspace=WS, valid_at=stamp(valid),
                   facts=[{"subject": s, "predicate": p, "object": o, "valid_at": stamp(valid), "invalid_at": stamp(invalid)}])
    every: dict[str, dict[str, Any]] = {}
    for name in ("Harbor", "Background jobs", "rate limiter"):
        r = served.http.get(f"/entities/{name}/facts", params={"workspace": WS, "include_invalid": "true"})
        assert r.status_code == 200, r.text
        body = r.json()
        for f in body if isinstance(body, list) else body["facts"]:
            every[f["id"]] = f
    assert len(every) == len(FACTS)
    return every


def held(f: dict[str, Any], at: datetime) -> bool:
    start = datetime.fromisoformat(f["valid_at"]) if f["valid_at"] else None
    end = datetime.fromisoformat(f["invalid_at"]) if f["invalid_at"] else None
    return (start is None or start <= at) and (end is None or end > at)


def found_then(served: Seeded, fact: dict[str, Any], at: str) -> bool:
    r = served.http.post("/search/facts", json={"query": fact["fact"], "as_of": at, "workspace": WS, "limit": 50})
    assert r.status_code == 200, r.text
    return fact["id"] in {h["fact"]["id"] for h in r.json()["facts"]}


def check_instant(page: Any, served: Seeded, every: dict[str, dict[str, Any]]) -> tuple[str, set[str]]:
    """The instant drawn and the facts drawn, checked against the facts held then and /search/facts then."""
    at = page.locator("#as-of-text").get_attribute("data-as-of")
    drawn = set(page.evaluate(DRAWN_FACTS))
    assert drawn == {fid for fid, f in every.items() if held(f, datetime.fromisoformat(at))}, at
    for fid, f in every.items():
        assert found_then(served, f, at) == (fid in drawn), (at, f["fact"])
    return at, drawn


def test_the_time_slider_draws_exactly_the_facts_search_facts_finds_then(page: Any, served: Seeded) -> None:
    every = seed_facts(served)
    by_text = {f["fact"]: fid for fid, f in every.items()}
    celery, dramatiq = by_text["Background jobs run on Celery"], by_text["Background jobs run on Dramatiq"]
    open_view(page, served.base_url, f"/knowledge?workspace={WS}&as_of=2025-04-01T00:00:00Z")
    page.wait_for_selector("#graph canvas")
    page.wait_for_function("document.querySelector('#as-of-text').dataset.asOf")
    at, drawn = check_instant(page, served, every)
    assert at.startswith("2025-04-01T00:00:00") and celery in drawn and dramatiq not in drawn
    # Celery held then and was retired since: drawn, dashed; the page says so.
    assert page.evaluate(f"window.knotworkGraph.$id('f{celery}').hasClass('retired')")
    assert page.evaluate(f"window.knotworkGraph.$id('f{celery}').style('line-style')") == "dashed"
    assert "retired since" in page.locator("#graph-info").inner_text()
    # Moved by hand, the slider draws, at each instant it stops on, the facts that held then.
    seen = {at}
    for value in ("0", "120", "250", "400", "990"):
        page.locator("#as-of").evaluate(f"el => {{ el.value = '{value}'; el.dispatchEvent(new Event('input')); }}")
        page.wait_for_function(f"!{sorted(seen)!r}.includes(document.querySelector('#as-of-text').dataset.asOf)")
        at, drawn = check_instant(page, served, every)
        seen.add(at)
        if at >= "2025-06-05":  # today's value is drawn solid
            assert dramatiq in drawn and not page.evaluate(f"window.knotworkGraph.$id('f{dramatiq}').hasClass('retired')")


def link(served: Seeded, a: str, b: str, kind: str = "relates_to") -> None:
    r = served.http.post("/links", json={"from_id": a, "to_id": b, "type": kind})
    assert r.status_code == 201, r.text


ON_A_LINK = """() => {
  const hidden = [];
  window.knotworkGraph.edges().forEach(e => {
    const a = e.source().position(), b = e.target().position();
    window.knotworkGraph.nodes().forEach(n => {
      if (n.same(e.source()) || n.same(e.target())) return;
      const p = n.position(), vx = b.x - a.x, vy = b.y - a.y;
      const t = Math.max(0, Math.min(1, ((p.x - a.x) * vx + (p.y - a.y) * vy) / (vx * vx + vy * vy || 1)));
      if (Math.hypot(p.x - a.x - t * vx, p.y - a.y - t * vy) < n.width() / 2) hidden.push([e.id(), n.id()]);
    });
  });
  return hidden;
}"""


def test_the_memory_graph_draws_every_edge_the_graph_api_has(page: Any, served: Seeded) -> None:
    a = served.add("The harbor ingest job reads the orders topic.", workspace="harbor-links")
    b = served.add("The orders topic is partitioned by customer id.", workspace="harbor-links")
    c = served.add("Customer ids are hashed before partitioning.", workspace="harbor-links")
    link(served, a, b)
    link(served, b, c, "references")
    link(served, a, c)
    api = served.http.get(f"/memories/{a}/graph", params={"max_depth": 1}).json()
    assert len(api["edges"]) == 3  # b-c joins two memories one link from a
    open_view(page, served.base_url, f"/graph/{a}?depth=1")
    page.wait_for_selector("#graph canvas")
    drawn = page.evaluate("window.knotworkGraph.edges().map(e => e.id().slice(1))")
    assert sorted(drawn) == sorted(e["id"] for e in api["edges"])
    assert page.locator("#graph-info").inner_text().startswith("3 memories, 3 links")
    # each link can be seen: no memory sits on a link it is not an end of (a between b and c hid b-c)
    assert page.evaluate(ON_A_LINK) == []
    # A type filter keeps only the links of that type among the memories drawn.
    open_view(page, served.base_url, f"/graph/{b}?depth=1&type=references")
    page.wait_for_selector("#graph canvas")
    assert page.evaluate("window.knotworkGraph.edges().map(e => e.data('label'))") == ["references"]


def test_near_identical_memories_get_labels_that_tell_them_apart(page: Any, served: Seeded) -> None:
    opening = "Harbor's primary database, chosen after the 2024 platform review by the core team, is"
    old = served.add(f"{opening} MySQL 5.7 on the shared cluster.", workspace="harbor-labels", valid_at="2025-01-15T00:00:00Z")
    new = served.add(f"{opening} PostgreSQL 16 on the shared cluster.", workspace="harbor-labels", valid_at="2025-05-20T00:00:00Z")
    hub = served.add("Harbor's storage decisions are listed in ADR-9.", workspace="harbor-labels")
    link(served, hub, old, "references")
    link(served, hub, new, "references")
    open_view(page, served.base_url, f"/graph/{hub}?depth=1")
    page.wait_for_selector("#graph canvas")
    label = {n: page.evaluate(f"window.knotworkGraph.$id('{n}').data('label')") for n in (old, new, hub)}
    assert len(set(label.values())) == 3
    assert "MySQL" in label[old] and "2025-01-15" in label[old]
    assert "PostgreSQL" in label[new] and "2025-05-20" in label[new]
    assert label[hub].startswith("Harbor's storage decisions")  # a memory like no other keeps its plain preview


def label_boxes(page: Any) -> list[dict[str, Any]]:
    """Each label drawn (memories' and links' alike) as a box on the page: the canvas's place
    (getBoundingClientRect) plus the label's drawn box in it."""
    return page.evaluate(
        """() => {
          const at = document.querySelector('#graph').getBoundingClientRect();
          const only = { includeLabels: true, includeNodes: false, includeEdges: false, includeOverlays: false };
          return window.knotworkGraph.elements().filter(el => el.style('label')).map(el => {
            const b = el.renderedBoundingBox(only);
            return { id: el.id(), text: el.style('label'), x1: at.left + b.x1, x2: at.left + b.x2, y1: at.top + b.y1, y2: at.top + b.y2 };
          });
        }"""
    )


def overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(p["text"], q["text"]) for i, p in enumerate(boxes) for q in boxes[i + 1:]
            if min(p["x2"], q["x2"]) > max(p["x1"], q["x1"]) and min(p["y2"], q["y2"]) > max(p["y1"], q["y1"])]


def test_the_memory_graph_draws_no_two_labels_over_each_other(page: Any, served: Seeded) -> None:
    ws = "harbor-crowd"
    opening = "Harbor's primary database, picked at the 2024 platform review by the core team, is"
    hub = served.add(f"{opening} MySQL 5.7 on the shared cluster.", workspace=ws)
    near = [served.add(f"{opening} PostgreSQL {v} on the shared cluster.", workspace=ws) for v in (14, 15, 16)]
    for n in near:
        link(served, hub, n)
    link(served, near[0], near[1], "references")
    link(served, near[1], near[2], "references")
    for i in range(8):
        leaf = served.add(f"Release checklist step {i}: confirm the {['build', 'tests', 'notes', 'tags'][i % 4]} "
                          f"of harbor service {i}.", workspace=ws)
        link(served, near[i % 3], leaf, "references")
    open_view(page, served.base_url, f"/graph/{hub}?depth=2")
    page.wait_for_selector("#graph canvas")
    boxes = label_boxes(page)
    assert sum(1 for b in boxes if b["id"].startswith("e")) >= 5  # links keep their labels where they fit
    assert len([b for b in boxes if not b["id"].startswith("e")]) == 12
    assert all(b["x2"] > b["x1"] and b["y2"] > b["y1"] for b in boxes)
    assert overlapping(boxes) == []
