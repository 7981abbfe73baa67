"""Snapshots of every compact renderer: the exact text an agent reads."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

import pytest

from knotwork.domain.models import Graph, Hit, Page, Related
from knotwork.errors import InvalidInput
from knotwork.render import render
from knotwork.render.compact import ago, failed, preview
from knotwork.render.core import View
from knotwork.service import ImportReport

from ._data import ABOUT_REDIS, ABOUT_REPORTS, CACHE, LINK, NOW, OLD, SHORT, SIMILAR_TO_CACHE, TTL, A, B, relations_of

RELS = {A: relations_of(CACHE, SIMILAR_TO_CACHE, ABOUT_REDIS, ABOUT_REPORTS), B: relations_of(TTL)}
HITS = [Hit(CACHE, 0.8349), Hit(TTL, 0.5)]


def view(detail: str = "standard") -> View:
    return View(short=SHORT, relations=RELS, detail=detail, now=NOW)


@pytest.mark.parametrize(
    ("age", "expected"),
    [(timedelta(seconds=59), "now"), (timedelta(minutes=5), "5m ago"), (timedelta(hours=2, minutes=59), "2h ago"),
     (timedelta(days=3), "3d ago"), (timedelta(days=125), "4mo ago"), (timedelta(days=800), "2y ago"),
     (-timedelta(days=3), "in 3d")],
)
def test_relative_times(age: timedelta, expected: str) -> None:
    assert ago(NOW - age, NOW) == expected


def test_preview_cuts_at_a_word_boundary() -> None:
    assert preview("one two  three\nfour", 100) == "one two three four"
    assert preview("alpha beta gamma delta", 13) == "alpha beta…"
    assert preview("x" * 20, 8) == "x" * 8 + "…"


def test_search_standard() -> None:
    # the similar memory is not among the hits: its score and preview say what it is
    assert render("search", HITS[:1], view=view()).splitlines()[2] == '  similar: 00BBBBBB 0.91 "Redis TTL for report keys is…"'
    # it is a hit of the same answer: its own line is there, so it is named by id alone
    assert render("search", HITS, view=view()) == "\n".join([
        "00AAAAAA 0.83 2h ago [decision] We cache report queries in Redis for ten minutes because the reports page took "
        "eight seconds to load under month-end traffic, and the finance team asked for it…",
        "  artifact: src/reports/cache.py",
        "  similar: 00BBBBBB",
        "  entities: Redis, ReportsModule",
        "  tags: team=platform, urgent",
        "  evidence: ADR-014, PR-123",
        "00BBBBBB 0.50 3d ago Redis TTL for report keys is 600 s",
        "  artifacts: ops/redis.conf, ops/ttl.md",
    ])


def test_similar_previews_are_kept_to_the_nearest_two_not_yet_shown() -> None:
    from knotwork.services.links import MetaRelation

    others = [f"0{c}CCCCCCCCCCCCCCCCCCCCCCCC" for c in "CDEF"]
    sims = [MetaRelation("similar", "memory", o, 0.9 - i / 10, f"note {i}") for i, o in enumerate(others)]
    rels = {A: relations_of(CACHE, *sims), B: relations_of(TTL, sims[0], sims[3])}
    lines = render("search", HITS, view=View(short=SHORT, relations=rels, now=NOW)).splitlines()
    similar = [line for line in lines if line.startswith("  similar: ")]
    # the nearest three
    assert similar[0] == ('  similar: 0CCCCCCCCCCCCCCCCCCCCCCCCC 0.90 "note 0"; 0DCCCCCCCCCCCCCCCCCCCCCCCC 0.80 "note 1"; '
                          "0ECCCCCCCCCCCCCCCCCCCCCCCC 0.70")
    # the second hit: note 0 was previewed above (id and score only), note 3 not yet
    assert similar[1] == '  similar: 0CCCCCCCCCCCCCCCCCCCCCCCCC 0.90; 0FCCCCCCCCCCCCCCCCCCCCCCCC 0.60 "note 3"'


def test_a_hit_names_its_first_eight_entities_and_counts_the_rest() -> None:
    from knotwork.services.links import MetaRelation

    names = [f"Entity{i}" for i in range(11)]
    rels = {A: relations_of(CACHE, *(MetaRelation("about", "entity", n, None, None) for n in names))}
    lines = render("search", HITS[:1], view=View(short=SHORT, relations=rels, now=NOW)).splitlines()
    assert [line for line in lines if line.startswith("  entities: ")] == [
        "  entities: " + ", ".join(names[:8]) + " (+3 more)"
    ]
    full = render("search", HITS[:1], view=View(short=SHORT, relations=rels, now=NOW, detail="full"))
    assert all(f"about entity={n}" in full for n in names)  # the full detail keeps every one


def test_search_minimal_none_and_full() -> None:
    minimal = render("search", HITS, view=view("minimal")).splitlines()
    assert minimal[1:3] == ["  artifact: src/reports/cache.py", "  similar: 00BBBBBB"]
    assert len(minimal) == 5 and minimal[4] == "  artifacts: ops/redis.conf, ops/ttl.md"
    assert render("search", HITS, view=view("none")).splitlines()[1].startswith("00BBBBBB 0.50 3d ago")
    full = render("search", HITS, view=view("full")).splitlines()
    assert "  written_via app=claude-code" in full and "  in_scope workspace=shop" in full
    assert '  similar memory=00BBBBBB score=0.91 "Redis TTL for report keys is 600 s"' in full


@pytest.mark.parametrize("detail", ["minimal", "standard"])
def test_noise_never_reaches_compact_output(detail: str) -> None:
    text = render("search", HITS, view=view(detail))
    for noise in ("claude-code", "written_via", "in_category", "in_scope", "shop", "global", "references_artifact"):
        assert noise not in text


def test_no_hits() -> None:
    assert render("search", [], view=view()) == "No matching memories."


def test_list_history_and_get() -> None:
    assert render("list", Page([CACHE, OLD], next_cursor=OLD.id), view=view()).splitlines()[1:] == [
        "00CCCCCC 4mo ago [fact] Reports used to be computed on every request",
        f"next cursor: {OLD.id}",
    ]
    assert render("list", Page([OLD], None), view=View(now=NOW)).split()[0] == OLD.id  # no short id known: the full one
    assert render("list", Page([], None), view=view()) == "No memories."
    retired = replace(OLD, version=2, updated_at=NOW - timedelta(days=3), invalid_at=NOW - timedelta(days=3))
    tagged = replace(retired, version=3, updated_at=NOW - timedelta(hours=2), tags={"team": "core"}, importance=0.8)
    reworded = replace(tagged, version=4, updated_at=NOW, content="Reports are cached for ten minutes")
    assert render("history", [OLD, retired, tagged, reworded], view=view()).splitlines() == [
        "v1 4mo ago - Reports used to be computed on every request",
        f"v2 3d ago - invalid_at: none → {(NOW - timedelta(days=3)).strftime('%Y-%m-%d %H:%M')} (retired)",
        "v3 2h ago - tags: +team=core; importance: 0.5 → 0.8",
        "v4 now - content: Reports are cached for ten minutes",
    ]
    got = render("get", CACHE, view=view()).splitlines()
    assert got[0] == f"{A} [decision] @shop v1 importance 0.5"
    assert got[1:4] == ["tags: team=platform, urgent", "artifacts: src/reports/cache.py", "evidence: ADR-014, PR-123"]
    assert got[4:6] == ["created 2026-03-10 10:00", 'metadata: {"written_via":"claude-code"}']  # valid_at = created_at
    assert got[-1] == CACHE.content
    retired = replace(OLD, valid_at=NOW - timedelta(days=100), invalid_at=NOW)
    assert render("get", retired, view=view()).splitlines()[1] == (
        "created 2025-11-05 12:00, valid from 2025-11-30 12:00 until 2026-03-10 12:00"
    )


def test_write_confirmations() -> None:
    assert render("add", TTL, view=view()) == f"✓ Stored Redis TTL for report keys is 600 s (id {B})"
    assert render("add", TTL.with_duplicate(), view=view()) == f"✓ NOOP: already stored (id {B})"
    assert render("add", replace(TTL, version=2).decided("UPDATE", B, "says more"), view=view()) == (
        f"✓ UPDATE: Redis TTL for report keys is 600 s (id {B}) now v2, earlier text in its history"
    )
    assert render("delete", TTL, view=view()) == f"✓ Deleted {B} - Redis TTL for report keys is 600 s"
    assert render("update", TTL, view=view()) == f"✓ Updated {B} (now v1)"
    assert render("import", ImportReport(3, 1), view=view()) == "✓ Imported 3, skipped 1 already present"
    assert render("link", LINK, view=view()) == f"✓ Linked 00AAAAAA --relates_to--> 00BBBBBB (id {LINK.id})"
    assert render("unlink", LINK, view=view()) == "✓ Unlinked 00AAAAAA --relates_to--> 00BBBBBB"
    assert failed("delete", "no memory matches id 'X'") == "✗ Delete failed: no memory matches id 'X'"


def test_related_and_graph_use_short_ids() -> None:
    assert render("related", [Related(TTL.brief(), LINK, 1)], view=view()) == (
        "d1 00BBBBBB <-relates_to- 00AAAAAA: Redis TTL for report keys is 600 s"
    )
    assert render("related", [Related(CACHE.brief(), LINK, 1)], view=view()) == (
        "d1 00AAAAAA -relates_to-> 00BBBBBB: " + preview(CACHE.content, 100)
    )
    g = Graph(A, [CACHE.brief(), TTL.brief()], {A: 0, B: 1}, [LINK], False)
    assert render("graph", g, view=view()).splitlines() == [
        "graph of 00AAAAAA: 2 nodes, 1 edges",
        "node 00AAAAAA d0 - " + preview(CACHE.content, 80),
        "node 00BBBBBB d1 - Redis TTL for report keys is 600 s",
        "edge 00AAAAAA --relates_to--> 00BBBBBB",
    ]
    assert render("graph", g, "dot").splitlines() == [
        "digraph knotwork {",
        "  node [shape=box];",
        f'  "{A}" [label="We cache report queries in Redis for…", style=bold];',
        f'  "{B}" [label="Redis TTL for report keys is 600 s"];',
        f'  "{A}" -> "{B}" [label="relates_to"];',
        "}",
    ]
    assert render("graph", g, "mermaid").splitlines() == [
        "graph LR",
        f'  {A}["We cache report queries in Redis for…"]',
        f'  {B}["Redis TTL for report keys is 600 s"]',
        f"  {A} -->|relates_to| {B}",
    ]


def test_json_search_relations_follow_the_detail() -> None:
    def hits(detail: str) -> list[dict]:
        return json.loads(render("search", HITS, "json", view(detail)))["hits"]

    standard = hits("standard")
    assert standard[0]["memory"]["id"] == A  # JSON keeps full ids
    assert standard[0]["relations"] == {
        "artifact": "src/reports/cache.py",
        "similar": [{"id": B, "score": 0.91, "preview": "Redis TTL for report keys is 600 s"}],
        "entities": ["Redis", "ReportsModule"],
        "tags": {"team": "platform", "urgent": ""},
        "evidence": ["ADR-014", "PR-123"],
    }
    assert standard[1]["relations"] == {"artifacts": ["ops/redis.conf", "ops/ttl.md"]}
    assert hits("minimal")[0]["relations"] == {"artifact": "src/reports/cache.py", "similar": [B]}
    assert "relations" not in hits("none")[0]
    assert {r["type"] for r in hits("full")[0]["relations"]} >= {"similar", "about", "written_via", "in_scope"}


def test_relation_detail_is_a_keyword_of_render() -> None:
    assert render("search", HITS, view=view(), relation_detail="none") == render("search", HITS, view=view("none"))
    with pytest.raises(InvalidInput, match="relation_detail"):
        render("search", HITS, relation_detail="most")


def test_an_empty_block_is_an_empty_object() -> None:
    bare = Hit(OLD, 0.1)
    out = json.loads(render("search", [bare], "json", View(relations={}, now=NOW)))
    assert out["hits"][0]["relations"] == {}


def test_relations_relationships_and_bulk_adds() -> None:
    assert render("relations", {A: [SIMILAR_TO_CACHE, ABOUT_REDIS]}, view=view()).splitlines() == [
        "00AAAAAA",
        '  similar memory=00BBBBBB score=0.91 "Redis TTL for report keys is 600 s"',
        "  about entity=Redis",
    ]
    assert render("relations", {}, view=view()) == "No relations."
    assert render("relationships", [LINK], view=view()) == f"{LINK.id} 00AAAAAA --relates_to--> 00BBBBBB"
    assert render("relationships", [], view=view()) == "No relationships."
    ignored = TTL.decided("IGNORE", None, "speculation (maybe)")
    retiring = TTL.decided("SUPERSEDE", A, "value changed: 300 -> 600")
    assert render("add_many", [TTL, CACHE.with_duplicate(), retiring, ignored], view=view()).splitlines() == [
        "✓ 4 item(s): 1 ADD, 1 SUPERSEDE, 1 NOOP, 1 IGNORE", f"+ {B}", f"= {A}", f"» {B} (retires {A})",
        "✗ not stored: speculation (maybe)",
    ]


@pytest.mark.parametrize(
    ("decision", "touched", "keep"),
    [("ADD", None, B), ("UPDATE", B, B), ("SUPERSEDE", A, B), ("NOOP", A, A)],
)
def test_every_stored_decision_names_the_id_to_keep_in_one_form(decision: str, touched: str | None, keep: str) -> None:
    """One pattern, ``(id <26 characters>)``, finds the id a caller keeps, whatever was decided."""
    import re

    answer = render("add", TTL.decided(decision, touched, "a reason"), view=view())
    assert re.findall(r"\(id ([0-9A-Z]{26})\)", answer) == [keep], answer


def test_an_ignored_add_names_no_id() -> None:
    import re

    answer = render("add", TTL.decided("IGNORE", None, "a question, not a fact"), view=view())
    assert answer.startswith("✗ IGNORE: not stored") and not re.search(r"\(id ", answer) and B not in answer
