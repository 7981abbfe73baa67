"""Attributes that hold one value at a time (knowledge/attributes.py): "Harbor's primary database is MySQL 5.7",
"the rate limit of the Harbor API is 100", "Alice Chen is the tech lead of Harbor", "Harbor deploys happen every
Tuesday": what they propose, what they leave alone, and that a newer value retires the older in the graph, in
either arrival order, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import knotwork
from knotwork import Settings

from tests.knowledge._proposed import needs_parser, proposed_now as _proposed


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("Harbor's primary database is MySQL 5.7.", ("Harbor", "has_primary_database", "MySQL 5.7")),
    ("The rate limit of the Harbor API is 300 requests per minute.", ("Harbor API", "has_rate_limit", "300 requests per minute")),
    ("Harbor's API rate limit is 100.", ("Harbor", "has_api_rate_limit", "100")),
    ("Alice Chen is the tech lead of Harbor.", ("Harbor", "has_tech_lead", "Alice Chen")),
    ("The tech lead for Harbor is Bob Martinez.", ("Harbor", "has_tech_lead", "Bob Martinez")),
    ("James Snell is the champion of the Node.js Error Messages initiative.",
     ("Node.js Error Messages initiative", "has_champion", "James Snell")),
    ("Harbor deploys happen every Tuesday.", ("Harbor", "has_deploy_schedule", "every Tuesday")),
    ("Our primary database is PostgreSQL 16.", ("Team", "has_primary_database", "PostgreSQL 16")),  # our: Team
    ("Kate Stone is the release manager for swift-lldb.", ("swift-lldb", "has_release_manager", "Kate Stone")),
    # a list of holders: each has that one holder
    ("Frédéric Riss is the release manager for swift-llvm, swift-clang, and swift-compiler-rt.",
     ("swift-compiler-rt", "has_release_manager", "Frédéric Riss")),
    ("Bob Martinez is the maintainer of Flask and Django.", ("Django", "has_maintainer", "Bob Martinez")),
])
def test_an_attribute_frame_proposes_its_fact(text: str, fact: tuple) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "Is Harbor's primary database MySQL?",  # a question
    "Harbor's primary database might be MySQL.",  # a hedge
    "Harbor's primary database will be MySQL.",  # a plan
    "If we scale, Harbor's primary database is MySQL.",  # a condition
    "Harbor's primary database is not MySQL.",  # negated
    "Harbor's primary database is MySQL or Postgres.",  # not one value
    "The Hero8 Black's battery capacity is approximately 1,220mAh.",  # an estimate
    "Harbor's biggest problem is latency.",  # no attribute with one value
    "Alice Chen is a maintainer of Harbor.",  # one of several
    "Alice Chen and Bob Martinez are the tech leads of Harbor.",  # two holders
    "Harbor deploys might happen every Friday.",
    "Our CTO is great.",  # not a value
    "Emma's husband is Tom.",  # a relative (husband_of), not an attribute
    "The primary database is MySQL.",  # no holder
    "Kate Stone is the release manager for the lldb.",  # one lower-case word is no name
    "Harbor and Quay's primary database is MySQL.",  # two holders of a value
])
def test_hedged_questions_and_loose_shapes_give_no_attribute(text: str) -> None:
    assert not [f for f in _proposed(text) if f[1].startswith("has_")]


CHANGES = [
    ("Harbor's primary database is MySQL 5.7.", "Harbor's primary database is PostgreSQL 16.",
     "Harbor", "has_primary_database", "MySQL 5.7", "PostgreSQL 16"),
    ("The rate limit of the Harbor API is 100 requests per minute.",
     "The rate limit of the Harbor API is 300 requests per minute.",
     "Harbor API", "has_rate_limit", "100 requests per minute", "300 requests per minute"),
    ("Harbor deploys happen every Tuesday.", "Harbor deploys happen every weekday.",
     "Harbor", "has_deploy_schedule", "every Tuesday", "every weekday"),
    ("Alice Chen is the tech lead of Harbor.", "Bob Martinez is the tech lead of Harbor.",
     "Harbor", "has_tech_lead", "Alice Chen", "Bob Martinez"),
]
JAN, JUN = datetime(2025, 1, 10, tzinfo=timezone.utc), datetime(2025, 6, 1, tzinfo=timezone.utc)


@needs_parser
@pytest.mark.parametrize("late", [False, True], ids=["in-order", "old-arrives-late"])
def test_a_newer_value_retires_the_older_in_the_graph(target: str, late: bool) -> None:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        for i, (old, new, *_rest) in enumerate(CHANGES):
            steps = [(new, JUN), (old, JAN)] if late else [(old, JAN), (new, JUN)]
            for text, at in steps:
                mem.add(text, workspace=f"w{i}", valid_at=at, consolidate=False)
        mem.wait_for_extraction()
        for i, (_old, _new, subject, predicate, was, now) in enumerate(CHANGES):
            facts = [f for f in mem.entity_facts(subject, workspace=f"w{i}", include_invalid=True, min_confidence=0)
                     if f.predicate == predicate]
            by_value = {f.object: f for f in facts}
            assert set(by_value) == {was, now}, (predicate, facts)
            assert by_value[now].invalid_at is None
            assert by_value[was].invalid_at == JUN and by_value[was].superseded_by == by_value[now].id
            current = {f.object for f in mem.entity_facts(subject, workspace=f"w{i}", min_confidence=0)
                       if f.predicate == predicate}
            assert current == {now}


@needs_parser
def test_compatible_statements_retire_nothing(target: str) -> None:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        for text, at in [("Harbor's primary database is PostgreSQL.", JAN), ("Harbor's cache is Redis.", JUN),
                         ("Alice Chen is the tech lead of Harbor.", JAN), ("Marcus Lee is the tech lead of Quay.", JUN),
                         ("Alice leads platform.", JAN), ("Marcus leads data.", JUN)]:
            mem.add(text, workspace="w", valid_at=at, consolidate=False)
        mem.wait_for_extraction()
        harbor = {(f.predicate, f.object) for f in mem.entity_facts("Harbor", workspace="w", min_confidence=0)}
        quay = {(f.predicate, f.object) for f in mem.entity_facts("Quay", workspace="w", min_confidence=0)}
        retired = [f for f in mem.search_facts("Harbor Quay Alice Marcus", workspace="w", include_invalid=True,
                                               limit=50, min_confidence=0) if f.fact.invalid_at is not None]
        alice = {(f.predicate, f.object) for f in mem.entity_facts("Alice", workspace="w", min_confidence=0)}
        marcus = {(f.predicate, f.object) for f in mem.entity_facts("Marcus", workspace="w", min_confidence=0)}
    assert {("has_primary_database", "PostgreSQL"), ("has_cache", "Redis"), ("has_tech_lead", "Alice Chen")} <= harbor
    assert ("has_tech_lead", "Marcus Lee") in quay
    assert alice and marcus  # "leads platform" and "leads data" are both stored, and both current
    assert not retired
