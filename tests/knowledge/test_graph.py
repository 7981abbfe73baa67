"""The knowledge graph through the Python API: caller input, time, resolution, merge, search, deletion."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput, Knotwork, NotFound, Settings


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    """A store without embeddings (fast); resolution by name and spelling only."""
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def facts(mem: Knotwork, entity: str, **kw: object) -> list[tuple[str, str | None, str | None]]:
    out = mem.entity_facts(entity, include_invalid=True, **kw)
    return sorted((f.fact, f.valid_at and f.valid_at.date().isoformat(), f.invalid_at and f.invalid_at.date().isoformat()) for f in out)


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# -- caller input ------------------------------------------------------------------


def test_caller_entities_and_facts_are_stored_with_their_source(kg: Knotwork) -> None:
    m = kg.add(
        "Notes from the architecture review",
        workspace="shop",
        valid_at="2026-01-03",
        entities=[{"name": "Redis", "type": "library", "summary": "In-memory cache"}],
        facts=[{"subject": "ReportsModule", "predicate": "Depends on", "object": "Redis"}],
    )
    redis = kg.entity("redis", workspace="shop")
    assert (redis.name, redis.type) == ("Redis", "library")
    assert redis.summary.startswith("In-memory cache")
    (f,) = kg.entity_facts("ReportsModule", workspace="shop")
    assert (f.subject, f.predicate, f.object, f.extractor) == ("ReportsModule", "depends_on", "Redis", "caller")
    assert f.valid_at == d("2026-01-03") and f.invalid_at is None and f.sources == (m.id,)
    assert f.fact == "ReportsModule depends on Redis"


def test_add_many_carries_graph_input(kg: Knotwork) -> None:
    kg.add_many([
        {"content": "one", "facts": [{"subject": "A1 service", "predicate": "calls", "object": "B2 service"}]},
        {"content": "two", "entities": ["Kafka"]},
    ])
    assert kg.entity("Kafka").name == "Kafka"
    assert [f.fact for f in kg.entity_facts("A1 service")] == ["A1 service calls B2 service"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"entities": [{"type": "x"}]}, "entities[0].name"),
        ({"entities": [{"name": "  "}]}, "entities[0].name"),
        ({"entities": [{"name": "a", "colour": "red"}]}, "entities[0]"),
        ({"entities": "Redis"}, "entities"),
        ({"facts": [{"subject": "a", "predicate": "uses"}]}, "facts[0].object"),
        ({"facts": [{"subject": "a", "predicate": "uses!", "object": "b"}]}, "facts[0].predicate"),
        ({"facts": [{"subject": "a", "predicate": "uses", "object": "A"}]}, "facts[0].object"),
        ({"facts": [{"subject": "a", "predicate": "p", "object": "b", "valid_at": "soon"}]}, "facts[0].valid_at"),
        (
            {"facts": [{"subject": "a", "predicate": "p", "object": "b", "valid_at": "2026-02-01", "invalid_at": "2026-01-01"}]},
            "facts[0].invalid_at",
        ),
    ],
)
def test_bad_graph_input_is_rejected_and_writes_nothing(kg: Knotwork, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        kg.add("some content", **kwargs)
    assert info.value.field == field
    assert kg.store.count_memories() == 0


def test_add_many_names_the_item_of_a_bad_fact(kg: Knotwork) -> None:
    with pytest.raises(InvalidInput) as info:
        kg.add_many([{"content": "fine"}, {"content": "bad", "facts": [{"subject": "a"}]}])
    assert info.value.field == "items[1].facts[0].predicate"
    assert kg.store.count_memories() == 0


def test_duplicate_memory_still_takes_caller_facts(kg: Knotwork) -> None:
    kg.add("same words")
    again = kg.add("same words", facts=[{"subject": "Svc", "predicate": "uses", "object": "Kafka"}])
    assert again.duplicate
    (f,) = kg.entity_facts("Svc")
    assert f.sources == (again.id,)


# -- facts in time -------------------------------------------------------------------


def test_contradiction_retires_the_older_value(kg: Knotwork) -> None:
    kg.add("a", valid_at="2025-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Boston"}])
    kg.add("b", valid_at="2026-03-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Berlin"}])
    assert facts(kg, "Ana") == [
        ("Ana lives in Berlin", "2026-03-01", None),
        ("Ana lives in Boston", "2025-01-01", "2026-03-01"),
    ]
    current = kg.entity_facts("Ana")
    assert [f.object for f in current] == ["Berlin"]
    old = next(f for f in kg.entity_facts("Ana", include_invalid=True) if f.object == "Boston")
    assert old.superseded_by == current[0].id and old.expired_at is not None
    assert current[0].expired_at is None


def test_multi_valued_predicates_keep_every_value(kg: Knotwork) -> None:
    kg.add("a", valid_at="2025-01-01", facts=[{"subject": "Api", "predicate": "uses", "object": "Redis"}])
    kg.add("b", valid_at="2025-02-01", facts=[{"subject": "Api", "predicate": "uses", "object": "Postgres"}])
    assert sorted(f.object for f in kg.entity_facts("Api")) == ["Postgres", "Redis"]


def test_out_of_order_arrival_is_stored_already_retired(kg: Knotwork) -> None:
    kg.add("now", valid_at="2026-03-01", facts=[{"subject": "Ana", "predicate": "works at", "object": "Globex"}])
    kg.add("then", valid_at="2024-06-01", facts=[{"subject": "Ana", "predicate": "works at", "object": "Initech"}])
    assert facts(kg, "Ana") == [
        ("Ana works at Globex", "2026-03-01", None),
        ("Ana works at Initech", "2024-06-01", "2026-03-01"),
    ]
    late = next(f for f in kg.entity_facts("Ana", include_invalid=True) if f.object == "Initech")
    newer = next(f for f in kg.entity_facts("Ana") if f.object == "Globex")
    assert late.superseded_by == newer.id
    assert newer.invalid_at is None


def test_late_fact_between_two_values_slots_into_the_chain(kg: Knotwork) -> None:
    kg.add("a", valid_at="2024-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Rome"}])
    kg.add("c", valid_at="2026-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Oslo"}])
    kg.add("b", valid_at="2025-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Lima"}])
    assert facts(kg, "Ana") == [
        ("Ana lives in Lima", "2025-01-01", "2026-01-01"),
        ("Ana lives in Oslo", "2026-01-01", None),
        ("Ana lives in Rome", "2024-01-01", "2025-01-01"),
    ]


def test_as_of_gives_the_graph_as_it_was(kg: Knotwork) -> None:
    kg.add("a", valid_at="2025-01-01", facts=[{"subject": "Ana", "predicate": "prefers", "object": "tea"}])
    kg.add("b", valid_at="2026-01-01", facts=[{"subject": "Ana", "predicate": "prefers", "object": "coffee"}])
    assert [h.fact.object for h in kg.search_facts("Ana prefers", as_of="2025-06-01")] == ["tea"]
    assert [h.fact.object for h in kg.search_facts("Ana prefers")] == ["coffee"]
    assert [h.fact.object for h in kg.search_facts("Ana prefers", as_of="2024-01-01")] == []
    both = kg.search_facts("Ana prefers", include_invalid=True)
    assert [h.fact.object for h in both] == ["coffee", "tea"]  # current first
    assert [f.object for f in kg.entity_facts("Ana", as_of="2025-06-01")] == ["tea"]


def test_repeated_fact_gains_a_source_not_a_row(kg: Knotwork) -> None:
    a = kg.add("a", valid_at="2025-01-01", facts=[{"subject": "Svc", "predicate": "uses", "object": "Kafka"}])
    b = kg.add("b", valid_at="2025-02-01", facts=[{"subject": "svc", "predicate": "uses", "object": "kafka"}])
    (f,) = kg.entity_facts("Svc", include_invalid=True)
    assert set(f.sources) == {a.id, b.id}


def test_explicit_invalid_at_and_replacement_phrases(kg: Knotwork) -> None:
    kg.add("We moved from MySQL to Postgres.", valid_at="2026-02-01")
    got = facts(kg, "Team")
    assert got == [("Team uses MySQL", None, "2026-02-01"), ("Team uses Postgres", "2026-02-01", None)]
    kg.add("x", facts=[{"subject": "Ana", "predicate": "owns", "object": "Car9", "valid_at": "2020-01-01", "invalid_at": "2021-01-01"}])
    (f,) = kg.entity_facts("Ana", include_invalid=True)
    assert f.invalid_at == d("2021-01-01") and f.expired_at is not None
    assert kg.entity_facts("Ana") == []


def test_replacing_a_stored_value_retires_it(kg: Knotwork) -> None:
    kg.add("We use Jest for tests.", valid_at="2025-01-01")
    kg.add("We replaced Jest with Vitest.", valid_at="2026-01-01")
    current = {f.object for f in kg.entity_facts("Team")}
    assert current == {"Vitest"}
    jest = next(f for f in kg.entity_facts("Team", include_invalid=True) if f.object == "Jest")
    assert jest.invalid_at == d("2026-01-01") and jest.superseded_by


def test_delete_fact_brings_back_what_it_retired(kg: Knotwork) -> None:
    kg.add("a", valid_at="2025-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Boston"}])
    kg.add("b", valid_at="2026-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Berlin"}])
    berlin = kg.entity_facts("Ana")[0]
    deleted = kg.delete_fact(berlin.id[-8:])
    assert deleted.id == berlin.id
    (boston,) = kg.entity_facts("Ana", include_invalid=True)
    assert boston.object == "Boston" and boston.invalid_at is None and boston.superseded_by is None
    assert "Boston" in kg.entity("Ana").summary
    with pytest.raises(NotFound):
        kg.delete_fact(berlin.id)


# -- resolution and merging ----------------------------------------------------------


def test_normalised_names_resolve_to_one_entity(kg: Knotwork) -> None:
    kg.add("x", entities=["ReportsModule"])
    kg.add("y", entities=["reports_module", "Reports Module", "the reports-module"])
    hits = kg.search_nodes("reports module")
    assert [h.entity.name for h in hits] == ["ReportsModule"]


def test_fuzzy_spelling_resolves_and_records_the_alias(kg: Knotwork) -> None:
    kg.add("x", entities=[{"name": "Kubernetes cluster", "type": "system"}])
    kg.add("y", entities=[{"name": "Kubernetes clusters"}])
    e = kg.entity("Kubernetes clusters")
    assert e.name == "Kubernetes cluster" and "Kubernetes clusters" in e.aliases
    assert len(kg.search_nodes("kubernetes")) == 1


def test_names_whose_numbers_differ_stay_apart(kg: Knotwork) -> None:
    kg.add("x", entities=["Python 3.11", "Python 3.12", "release-2024", "release-2025"])
    assert kg.entity("Python 3.11").id != kg.entity("Python 3.12").id
    assert kg.entity("release-2024").id != kg.entity("release-2025").id


def test_merge_keeps_the_most_connected_and_rewires_facts(kg: Knotwork) -> None:
    kg.add("a", facts=[
        {"subject": "Mongo", "predicate": "runs on", "object": "EC2"},
        {"subject": "Billing", "predicate": "uses", "object": "Mongo"},
    ])
    kg.add("b", facts=[{"subject": "Reports", "predicate": "uses", "object": "MongoDB"}])
    kept = kg.merge_entities("MongoDB", "Mongo")
    assert kept.name == "Mongo" and "MongoDB" in kept.aliases
    assert kg.entity("mongodb").id == kept.id  # the alias resolves
    assert sorted(f.fact for f in kg.entity_facts("Mongo")) == [
        "Billing uses Mongo", "Mongo runs on EC2", "Reports uses Mongo",
    ]
    names = [h.entity.name for h in kg.search_nodes("mongo mongodb")]
    assert names.count("Mongo") == 1 and "MongoDB" not in names
    # later mentions of the alias land on the canonical entity
    kg.add("c", facts=[{"subject": "Search", "predicate": "uses", "object": "mongodb"}])
    assert "Search uses Mongo" in {f.fact for f in kg.entity_facts("Mongo")}


def test_merge_folds_repeated_facts(kg: Knotwork) -> None:
    kg.add("a", facts=[{"subject": "Web", "predicate": "uses", "object": "JS lib"}])
    kg.add("b", facts=[{"subject": "Web", "predicate": "uses", "object": "JSLib v"}])
    kg.merge_entities("JS lib", "JSLib v")
    assert len(kg.entity_facts("Web")) == 1


def test_merge_refuses_bad_pairs(kg: Knotwork) -> None:
    kg.add("a", entities=["Alpha"], workspace="w1")
    kg.add("b", entities=["Alpha"], workspace="w2")
    kg.add("c", entities=["Beta"], workspace="w1")
    with pytest.raises(InvalidInput):
        kg.merge_entities("Alpha", "alpha", workspace="w1")
    with pytest.raises(NotFound):
        kg.merge_entities("Alpha", "Gamma", workspace="w1")


# -- scope, search, episodes, clearing --------------------------------------------------


def test_workspace_scoping_and_no_duplicate_nodes(kg: Knotwork) -> None:
    kg.add("Global note about Redis.", entities=["Redis"])
    kg.add("Shop uses Redis too.", workspace="shop", entities=["Redis"], facts=[{"subject": "Shop", "predicate": "uses", "object": "Redis"}])
    kg.add("Blog uses Memcached.", workspace="blog", facts=[{"subject": "Blog", "predicate": "uses", "object": "Memcached"}])
    shop = kg.search_nodes("redis", workspace="shop")
    named = [(h.entity.name, h.entity.workspace) for h in shop if h.entity.name == "Redis"]
    assert named == [("Redis", "shop")] and shop[0].entity.name == "Redis"
    assert kg.search_nodes("memcached", workspace="shop") == []
    assert kg.search_nodes("memcached", workspace="blog")[0].entity.name == "Memcached"
    assert kg.search_facts("memcached", workspace="shop") == []
    assert [h.fact.fact for h in kg.search_facts("redis", workspace="shop")] == ["Shop uses Redis"]


def test_center_ranks_near_entities_first(kg: Knotwork) -> None:
    kg.add("a", facts=[
        {"subject": "Checkout", "predicate": "uses", "object": "Payments cache"},
        {"subject": "Payments cache", "predicate": "runs on", "object": "Redis"},
        {"subject": "Analytics", "predicate": "uses", "object": "Analytics cache"},
    ])
    hits = kg.search_nodes("cache", center="Checkout")
    assert hits[0].entity.name == "Payments cache" and hits[0].distance == 1
    fh = kg.search_facts("cache", center="Analytics")
    assert fh[0].fact.fact == "Analytics uses Analytics cache" and fh[0].distance == 0


def test_episodes_show_mentions_and_facts(kg: Knotwork) -> None:
    kg.add("The ReportsModule uses Redis.", workspace="shop")
    kg.add("Unrelated words here.", workspace="shop")
    eps = kg.episodes(workspace="shop", limit=5)
    assert [e.entities for e in eps] == [(), ("Redis", "ReportsModule")]
    assert eps[1].facts == 1
    found = kg.episodes(workspace="shop", query="redis")
    assert found[0].content == "The ReportsModule uses Redis."


def test_relations_include_about(kg: Knotwork) -> None:
    m = kg.add("The ReportsModule uses Redis.")
    about = [r.target_value for r in kg.relations([m.id])[m.id] if r.type == "about"]
    assert sorted(about) == ["Redis", "ReportsModule"]


def test_clear_graph_needs_confirmation_and_keeps_memories(kg: Knotwork) -> None:
    kg.add("The ReportsModule uses Redis.", workspace="shop")
    kg.add("The Blog uses Hugo.", workspace="blog", entities=["Hugo"])
    with pytest.raises(InvalidInput):
        kg.clear_graph("shop", confirm=False)
    report = kg.clear_graph("shop")
    assert (report.entities, report.facts) == (2, 1)
    assert kg.search_nodes("redis", workspace="shop") == []
    assert kg.search_nodes("hugo", workspace="blog")
    assert kg.store.count_memories() == 2


# -- deleting memories ------------------------------------------------------------------


def test_deleting_the_only_source_deletes_the_fact_and_restores_what_it_retired(kg: Knotwork) -> None:
    kg.add("Sarah lives in Berlin.", valid_at="2025-01-01", facts=[{"subject": "Sarah", "predicate": "lives in", "object": "Berlin"}])
    moved = kg.add("Sarah moved.", valid_at="2026-01-01", facts=[{"subject": "Sarah", "predicate": "lives in", "object": "Lisbon"}])
    assert [f.object for f in kg.entity_facts("Sarah")] == ["Lisbon"]
    kg.delete(moved.id)
    (f,) = kg.entity_facts("Sarah", include_invalid=True)
    assert (f.object, f.invalid_at, f.superseded_by) == ("Berlin", None, None)
    assert "Lisbon" not in kg.entity("Sarah").summary
    with pytest.raises(NotFound):
        kg.entity("Lisbon")  # nothing mentions it or joins it any more
    assert kg.entity("Berlin").name == "Berlin"


def test_deleting_a_memory_whose_facts_retired_each_other_restores_the_fact_before_them(kg: Knotwork) -> None:
    # Lisbon is retired by Berlin, Berlin by Boston; Berlin and Boston rest on one memory. Deleting it drops
    # Boston first, which makes Berlin current for a moment; Lisbon must not then point at the deleted Boston.
    kg.add("Ana lives in Lisbon.", valid_at="2024-01-01", facts=[{"subject": "Ana", "predicate": "lives in", "object": "Lisbon"}])
    moves = kg.add("Ana moved twice.", valid_at="2026-01-01", facts=[
        {"subject": "Ana", "predicate": "lives in", "object": "Berlin", "valid_at": "2025-01-01"},
        {"subject": "Ana", "predicate": "lives in", "object": "Boston", "valid_at": "2026-01-01"},
    ])
    assert [f.object for f in kg.entity_facts("Ana")] == ["Boston"]
    kg.delete(moves.id)
    (lisbon,) = kg.entity_facts("Ana", include_invalid=True)
    assert (lisbon.object, lisbon.invalid_at, lisbon.superseded_by) == ("Lisbon", None, None)


def test_a_fact_with_another_source_survives(kg: Knotwork) -> None:
    fact = [{"subject": "BillingService", "predicate": "uses", "object": "Stripe"}]
    first = kg.add("one", facts=fact)
    second = kg.add("two", facts=fact)
    kg.delete(first.id)
    (f,) = kg.entity_facts("BillingService")
    assert f.sources == (second.id,)
    kg.delete(second.id)
    assert not _exists(kg, "BillingService") and not _exists(kg, "Stripe")
    assert kg.search_facts("BillingService Stripe", include_invalid=True) == []


def _exists(kg: Knotwork, name: str) -> bool:
    try:
        kg.entity(name)
    except NotFound:
        return False
    return True
