"""Ambient recall: budgets, retired memories, novelty, focus, the clock, status and stats."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import knotwork
from knotwork import InvalidInput, Knotwork, MemoryFilter, Settings, tokens
from knotwork.domain.temporal import now
from knotwork.render import render
from knotwork.services.recall import LATENCIES, focus_query

NO_VECTORS = Settings(embedder="none")
WORDS = "deploy payments ledger webhook retry cache schema migration billing invoice queue worker pytest docker".split()


@pytest.fixture
def plain(target: str) -> Iterator[Knotwork]:
    """A store (on each backend) without vectors (recall's budgeting and sections do not depend on them)."""
    with knotwork.open(target, settings=NO_VECTORS) as mem:
        yield mem


def retired_past(mem: Knotwork, content: str, **fields) -> str:
    m = mem.add(content, **{"valid_at": now() - timedelta(hours=1), **fields})
    mem.update(m.id, invalid_at=now() - timedelta(minutes=1))
    return m.id


def ids_in(r) -> set[str]:
    return {e.memory_id for s in r.sections for e in s.entries if e.memory_id}


# -- budgets -----------------------------------------------------------------------
memory_st = st.fixed_dictionaries(
    {
        "content": st.lists(st.sampled_from(WORDS) | st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1, max_size=12), min_size=1, max_size=60).map(" ".join),
        "category": st.sampled_from([None, "directive", "preference", "decision", "fact", "lesson"]),
        "importance": st.floats(0, 1),
        "retired": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    memories=st.lists(memory_st, max_size=25),
    budget=st.integers(1, 1200),
    query=st.none() | st.sampled_from(WORDS),
    entities=st.booleans(),
)
def test_recall_never_exceeds_the_budget_and_never_shows_a_retired_memory(memories, budget, query, entities) -> None:
    with knotwork.open(":memory:", settings=NO_VECTORS) as mem:
        retired = set()
        for spec in memories:
            if not spec["content"].strip():
                continue
            m = mem.add(spec["content"], workspace="w", category=spec["category"], importance=spec["importance"])
            if spec["retired"] and not m.duplicate:
                mem.update(m.id, valid_at=now() - timedelta(minutes=1), invalid_at=now() - timedelta(seconds=1))
                retired.add(m.id)
        sections = ["clock", "directives", "facts", "episodes", "health"] + (["entities"] if entities else [])
        r = mem.recall("startup", workspace="w", query=query, budget_tokens=budget, sections=sections)
        assert tokens.count(r.text) == r.tokens <= budget
        assert not ids_in(r) & retired
        assert all(mid[-8:] not in r.text for mid in retired)


def test_a_tiny_budget_gives_what_fits_and_zero_fit_gives_nothing(plain: Knotwork) -> None:
    plain.add("Always squash merge feature branches", category="directive", workspace="w")
    tiny = plain.recall(workspace="w", budget_tokens=3)
    assert tiny.text == "" and tiny.tokens == 0 and tiny.sections == ()
    small = plain.recall(workspace="w", budget_tokens=40)
    assert 0 < small.tokens <= 40
    assert small.sections[0].name == "clock"


def test_sections_fill_in_priority_order_and_every_section_reports_its_tokens(plain: Knotwork) -> None:
    for i in range(40):
        plain.add(f"Directive {i}: keep the payments ledger append-only", category="directive", workspace="w")
    r = plain.recall(workspace="w", budget_tokens=400)
    names = [s.name for s in r.sections]
    assert names[:2] == ["clock", "directives"]
    directives = next(s for s in r.sections if s.name == "directives")
    assert 0 < len(directives.entries) < 40  # capped at its share, not all forty
    assert directives.tokens <= int(0.35 * 400)
    assert sum(s.tokens for s in r.sections) >= r.tokens - len(r.sections)  # joins add at most a newline each


# -- content -----------------------------------------------------------------------
def test_retired_directives_and_facts_never_appear(plain: Knotwork) -> None:
    live = plain.add("Use uv to manage Python environments", category="preference", workspace="w")
    gone = retired_past(plain, "Use conda to manage Python environments", category="preference", workspace="w", importance=1.0)
    gone_fact = retired_past(plain, "The Python environments live in conda", workspace="w")
    r = plain.recall(workspace="w", query="python environments", sections=["directives", "facts", "episodes"])
    assert live.id in ids_in(r)
    assert gone not in ids_in(r) and gone_fact not in ids_in(r)
    assert "conda" not in r.text


def test_empty_store_answers_cleanly(plain: Knotwork) -> None:
    r = plain.recall()
    assert [s.name for s in r.sections] == ["clock", "health"]
    assert r.text.startswith("## now ")
    assert "0 memories" in r.text
    assert r.query is None and r.focus is False
    assert render("recall", r) == r.text
    assert plain.recall(query="anything at all", sections=["facts"]).text == ""


def test_without_a_query_relevant_items_follow_the_workspace_focus(plain: Knotwork) -> None:
    for i in range(12):
        plain.add(f"The billing invoice job {i} runs nightly", workspace="w", importance=0.7)
    plain.add("A lone note on gardening tomatoes", workspace="w", importance=0.1)
    r = plain.recall("startup", workspace="w", sections=["facts"])
    assert r.focus is True
    assert {"billing", "invoice"} <= set(r.query.split())
    assert "startup" not in r.query.split()
    assert "tomatoes" not in r.text and "billing invoice" in r.text


def test_novelty_rotates_items_across_consecutive_calls(plain: Knotwork) -> None:
    for i in range(24):
        plain.add(f"Webhook retry policy note number {i} for the payments queue", workspace="w")
    first = plain.recall("prompt", workspace="w", query="webhook retry payments", sections=["facts"], budget_tokens=120)
    second = plain.recall("prompt", workspace="w", query="webhook retry payments", sections=["facts"], budget_tokens=120)
    a, b = ids_in(first), ids_in(second)
    assert a and b
    assert a != b and len(a & b) < len(a)


def test_episodes_are_recent_and_not_repeated_from_earlier_sections(plain: Knotwork) -> None:
    d = plain.add("Never force-push to main", category="directive", workspace="w")
    e = plain.add("Refactored the cache warmer", workspace="w")
    r = plain.recall(workspace="w", sections=["directives", "episodes"])
    episodes = next(s for s in r.sections if s.name == "episodes")
    assert [x.memory_id for x in episodes.entries] == [e.id]
    assert d.id in ids_in(r)


def test_entities_are_off_by_default_and_available_on_request(plain: Knotwork) -> None:
    plain.add("Touched the schema", workspace="w", artifacts=["src/schema.sql"], tags={"area": "db"})
    assert "entities" not in [s.name for s in plain.recall(workspace="w").sections]
    r = plain.recall(workspace="w", sections=["entities"])
    assert "src/schema.sql (1)" in r.text and "area=db (1)" in r.text


def test_clock_persists_the_last_session_and_recall_per_workspace(target: str) -> None:
    with knotwork.open(target, settings=NO_VECTORS) as mem:
        first = mem.recall("startup", workspace="w")
        assert "last session" not in first.text
        mem.recall("prompt", workspace="w", query="x")
    with knotwork.open(target, settings=NO_VECTORS) as mem:
        again = mem.recall("prompt", workspace="w", sections=["clock"])
        other = mem.recall("prompt", workspace="elsewhere", sections=["clock"])
    assert re.search(r"last session (just now|\dm ago) · last recall (just now|\dm ago)", again.text)
    assert "last session" not in other.text and "last recall" not in other.text


def test_a_session_context_marks_a_session_and_a_prompt_does_not(plain: Knotwork) -> None:
    plain.recall("prompt", workspace="w", query="x")
    assert "last session" not in plain.recall("prompt", workspace="w", sections=["clock"]).text
    plain.recall("resume", workspace="w")
    assert "last session" in plain.recall("prompt", workspace="w", sections=["clock"]).text


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": 10**6}, "budget_tokens"),
        ({"budget_tokens": "100"}, "budget_tokens"),
        ({"sections": ["clock", "weather"]}, "sections"),
        ({"sections": "clock"}, "sections"),
        ({"workspace": "*"}, "workspace"),
        ({"workspace": "has space"}, "workspace"),
        ({"query": 42}, "query"),
    ],
)
def test_bad_arguments_name_the_problem(plain: Knotwork, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        plain.recall(**kwargs)
    assert info.value.field == field


def test_bad_context_word_is_refused(plain: Knotwork) -> None:
    with pytest.raises(InvalidInput, match="context"):
        plain.recall("   ")


def test_focus_query_weighs_recurring_terms_and_tags() -> None:
    with knotwork.open(":memory:", settings=NO_VECTORS) as mem:
        for i in range(5):
            mem.add(f"Ledger reconciliation step {i}", tags={"team": "finance"})
        mem.add("Gardening note")
        recent = mem.list(limit=10)
    words = focus_query(recent).split()
    assert set(words) == {"ledger", "reconciliation", "step", "finance"}  # "gardening" appears once: not a focus
    assert focus_query([]) is None


# -- vectors on: the real pipeline with embeddings ---------------------------------------
def test_recall_with_embeddings_finds_by_meaning(mem: Knotwork) -> None:
    mem.add("We ship to production with blue-green deployments", workspace="w")
    mem.add("The cafeteria serves soup on Mondays", workspace="w")
    r = mem.recall("prompt", workspace="w", query="how do releases reach prod?", sections=["facts"])
    assert "blue-green" in r.text
    assert r.latency_ms > 0


def test_recall_searches_vectors_alone_when_there_are_vectors(mem: Knotwork, plain: Knotwork) -> None:
    for i in range(6):
        mem.add(f"The invoice export job failed on run {i} with a currency rounding error", workspace="w")
    mem.add("Team lunch moved to Thursday", workspace="w", importance=0.1)
    r = mem.recall("startup", workspace="w", sections=["facts"])
    assert r.focus and set(r.query.split()) <= {"invoice", "export", "job", "failed", "run", "currency", "rounding", "error"}
    assert [n for n in mem.last_trace.names() if n.startswith("source:")] == ["source:vector"]
    assert "invoice export job" in r.text
    prompt = mem.recall("prompt", workspace="w", query="currency rounding", sections=["facts"])
    assert [n for n in mem.last_trace.names() if n.startswith("source:")] == ["source:vector"]
    assert "rounding error" in prompt.text
    plain.add("Currency rounding uses banker's rounding", workspace="w")
    assert "banker" in plain.recall("prompt", workspace="w", query="currency rounding", sections=["facts"]).text
    assert [n for n in plain.last_trace.names() if n.startswith("source:")] == ["source:bm25", "source:vector"]


# -- status and stats ------------------------------------------------------------------
def test_status_counts_and_tracks_recall_latency(plain: Knotwork) -> None:
    a = plain.add("one", workspace="w")
    b = plain.add("two", workspace="w")
    plain.link(a.id, b.id, "relates_to")
    before = LATENCIES.summary()["count"]
    plain.recall(workspace="w")
    s = plain.status()
    assert (s.memories, s.links, s.vectors, s.embedder) == (2, 1, 0, "none")
    assert s.schema_version == plain.store.schema_version() > 1 and s.store == plain.store.location
    assert s.recall["count"] == min(before + 1, 2000) and s.recall["p95_ms"] >= s.recall["p50_ms"] > 0
    text = render("status", s)
    assert len(text.splitlines()) == 2 and "recall p50" in text and "2 memories" in text


def test_stats_group_by_workspace_category_and_agent(plain: Knotwork) -> None:
    plain.add("a", workspace="w", category="fact", agent_id="bot")
    plain.add("b", workspace="w", category="fact")
    plain.add("c", category="decision")
    retired_past(plain, "d", workspace="x")
    s = plain.stats()
    assert s.memories == 4 and s.retired == 1
    assert s.by_workspace == {"w": 2, "": 1, "x": 1}
    assert s.by_category == {"fact": 2, "": 1, "decision": 1}
    assert s.by_agent == {"": 3, "bot": 1}
    assert s.size_bytes > 0
    assert render("stats", s, "json").startswith('{"memories":4')
    assert len(render("stats", s).splitlines()) == 3  # counts, groups, health


def test_directives_read_through_the_partial_index(tmp_path: Path) -> None:
    statements: list[tuple[str, tuple]] = []
    with knotwork.open(tmp_path / "t.db", settings=NO_VECTORS, tracer=lambda sql, p: statements.append((sql, tuple(p)))) as mem:
        mem.add("Prefer small pull requests", category="preference", workspace="w")
        mem.recall(workspace="w", sections=["directives"])
        sql, params = next((q, p) for q, p in statements if "memories_directives" in q)
        plan = mem.store._conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
    assert any("USING INDEX memories_directives" in row[-1] for row in plan), plan


def test_recent_memories_match_the_general_listing(plain: Knotwork) -> None:
    for i in range(30):
        plain.add(f"item {i}", workspace=["w", "v", None][i % 3])
    retired_past(plain, "gone", workspace="w")
    at = now()
    for ws in ("w", None):
        expected = plain.store.list_memories(MemoryFilter(workspace=ws), 12, None, at=at)
        assert [m.id for m in plain.store.recent_memories(ws, 12, at)] == [m.id for m in expected]


# -- knowledge-graph facts ------------------------------------------------------------
def test_graph_facts_are_current_ones_only_and_fit_their_share(plain: Knotwork) -> None:
    plain.add("Dara moved the billing service to Postgres", workspace="w", valid_at="2026-01-05",
              facts=[{"subject": "billing service", "predicate": "uses", "object": "Postgres"},
                     {"subject": "Dara", "predicate": "prefers", "object": "tabs"}])
    plain.add("Dara switched editors", workspace="w", valid_at="2026-03-01",
              facts=[{"subject": "Dara", "predicate": "prefers", "object": "spaces"}])  # retires "prefers tabs"
    plain.add("Somewhere else Dara prefers vim", workspace="other",
              facts=[{"subject": "Dara", "predicate": "prefers", "object": "vim"}])
    every = plain.search_facts("Dara prefers", workspace="w", include_invalid=True)
    assert {h.fact.object for h in every} >= {"tabs", "spaces"}  # the retired fact is still stored

    r = plain.recall("prompt", workspace="w", query="what does Dara prefer, tabs or spaces?", sections=["graph"], budget_tokens=300)
    graph = {s.name: s for s in r.sections}["graph"]
    assert graph.title == "Known facts"
    assert any(e.text.startswith("Dara prefers spaces (since 2026-03-01, ") for e in graph.entries)
    assert not any("tabs" in e.text or "vim" in e.text for e in graph.entries)
    assert "tabs" not in r.text and graph.tokens <= int(0.2 * 300)
    assert tokens.count(r.text) == r.tokens <= 300


def test_graph_section_follows_the_focus_and_is_left_out_without_facts(plain: Knotwork) -> None:
    for i in range(3):
        plain.add(f"ledger export {i} runs nightly", workspace="w",
                  facts=[{"subject": "ledger export", "predicate": "runs_on", "object": f"worker{i}"}])
    r = plain.recall("startup", workspace="w", budget_tokens=1500)
    assert r.focus and "graph" in [s.name for s in r.sections]
    assert "ledger export runs on" in r.text
    empty = plain.recall("startup", workspace="nothing-here")
    assert "graph" not in [s.name for s in empty.sections]
