"""Communities: Louvain over current facts, named and summarised, refreshed only where facts changed."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.knowledge import communities as algo


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        yield mem


def clique(names: list[str], predicate: str = "works with") -> list[dict[str, str]]:
    return [{"subject": a, "predicate": predicate, "object": b} for a, b in combinations(names, 2)]


BACKEND = ["BillingService", "Redis", "Kafka", "Postgres"]
FAMILY = ["Sarah", "Tom", "Lena", "Omar"]


def member_sets(mem: Knotwork, workspace: str | None = None) -> set[frozenset[str]]:
    return {frozenset(c.members) for c in mem.communities(workspace=workspace, limit=1000)}


def test_detect_splits_two_cliques_joined_by_one_edge() -> None:
    a, b = [f"a{i}" for i in range(5)], [f"b{i}" for i in range(5)]
    g = algo.graph([*combinations(a, 2), *combinations(b, 2), ("a0", "b0")])
    (component,) = algo.components(g)
    groups = algo.detect(g, component)
    assert {frozenset(grp.members) for grp in groups} == {frozenset(a), frozenset(b)}
    # the bridge ends are the best connected members, so they lead (and name) their communities
    assert {grp.members[0] for grp in groups} == {"a0", "b0"}


def test_communities_have_names_and_summaries_from_their_facts(kg: Knotwork) -> None:
    kg.add("backend notes", facts=[*clique(BACKEND), {"subject": "BillingService", "predicate": "uses", "object": "Stripe"}])
    kg.add("family notes", facts=clique(FAMILY, "knows"))
    found = kg.communities()
    assert {frozenset(c.members) for c in found} == {frozenset([*BACKEND, "Stripe"]), frozenset(FAMILY)}
    backend = next(c for c in found if "Stripe" in c.members)
    assert backend.members[0] == "BillingService"  # the most connected first
    assert backend.name.startswith("BillingService")
    assert backend.summary.startswith("5 entities around BillingService")
    assert "BillingService works with Redis" in backend.summary and len(backend.summary) <= 280
    assert [c.name for c in kg.communities(entity="Tom")] == [next(c.name for c in found if "Tom" in c.members)]


def test_retired_facts_leave_the_graph(kg: Knotwork) -> None:
    kg.add("old", valid_at="2025-01-01", facts=[{"subject": "Sarah", "predicate": "lives in", "object": "Berlin"},
                                                 {"subject": "Berlin", "predicate": "located in", "object": "Germany"}])
    kg.add("new", valid_at="2026-01-01", facts=[{"subject": "Sarah", "predicate": "lives in", "object": "Lisbon"}])
    assert member_sets(kg) == {frozenset({"Sarah", "Lisbon"}), frozenset({"Berlin", "Germany"})}


def test_refresh_recomputes_only_changed_components_and_matches_a_rebuild(kg: Knotwork) -> None:
    kg.add("backend", facts=clique(BACKEND))
    kg.add("family", facts=clique(FAMILY, "knows"))
    before = {c.name: c.id for c in kg.communities()}
    family_id = next(cid for name, cid in before.items() if "Sarah" in name or "Tom" in name)
    kg.add("more backend", facts=[{"subject": "Kafka", "predicate": "runs on", "object": "Docker"},
                                  {"subject": "Docker", "predicate": "runs on", "object": "Kubernetes"}])
    assert kg.store.kg_dirty("")  # the change is noted, not yet computed
    incremental = kg.communities()
    assert not kg.store.kg_dirty("")
    # the family component was not touched: its community is the very same row
    assert family_id in {c.id for c in incremental}
    assert any("Kubernetes" in c.members for c in incremental)
    assert {frozenset(c.members) for c in incremental} == {frozenset(c.members) for c in kg.rebuild_communities()}


def test_deleting_a_bridge_fact_splits_the_community(kg: Knotwork) -> None:
    kg.add("one", facts=[{"subject": "Alpha", "predicate": "calls", "object": "Beta"}])
    kg.add("two", facts=[{"subject": "Beta", "predicate": "calls", "object": "Gamma"}])
    assert member_sets(kg) == {frozenset({"Alpha", "Beta", "Gamma"})}
    (bridge,) = [f for f in kg.entity_facts("Gamma")]
    kg.delete_fact(bridge.id)
    assert member_sets(kg) == {frozenset({"Alpha", "Beta"})}
    assert kg.search_nodes("Gamma")[0].community is None


def test_merge_joins_communities(kg: Knotwork) -> None:
    kg.add("one", facts=[{"subject": "Postgres DB", "predicate": "stores", "object": "Orders"}])
    kg.add("two", facts=[{"subject": "PG", "predicate": "stores", "object": "Invoices"}])
    assert len(kg.communities()) == 2
    kg.merge_entities("Postgres DB", "PG")
    assert member_sets(kg) == {frozenset({"Postgres DB", "Orders", "Invoices"})}


def test_search_nodes_names_the_community(kg: Knotwork) -> None:
    kg.add("backend", facts=clique(BACKEND))
    hit = kg.search_nodes("Redis")[0]
    assert hit.entity.name == "Redis"
    assert hit.community is not None and set(hit.community.name.split(", ")) <= set(BACKEND)
    assert hit.to_dict()["community"]["id"] == hit.community.id


def test_workspaces_and_clear(kg: Knotwork) -> None:
    kg.add("shop", workspace="shop", facts=clique(BACKEND))
    kg.add("home", workspace="home", facts=clique(FAMILY, "knows"))
    assert member_sets(kg, "shop") == {frozenset(BACKEND)}
    assert member_sets(kg, "*") == {frozenset(BACKEND), frozenset(FAMILY)}
    kg.clear_graph("shop")
    assert member_sets(kg, "shop") == set()
    assert member_sets(kg, "home") == {frozenset(FAMILY)}
