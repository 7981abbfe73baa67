"""Facts and entity search answer nothing for a name that was never stored (with the real model)."""

from __future__ import annotations

import pytest

from knotwork import Knotwork

NOTES = [
    "We use Valkey for the session cache.",
    "Maria lives in Berlin.",
    "Tom works at Acme Corp.",
    "I run in Nike Pegasus shoes.",
]


@pytest.fixture
def graph(mem: Knotwork) -> Knotwork:
    for text in NOTES:
        mem.add(text, workspace="w")
    return mem


@pytest.mark.parametrize("query", ["Hoka", "Caroline", "Kubernetes"])
def test_a_name_never_stored_finds_no_facts_and_no_entities(graph: Knotwork, query: str) -> None:
    assert graph.search_facts(query, workspace="w") == []
    assert graph.search_nodes(query, workspace="w") == []


@pytest.mark.parametrize(
    ("query", "fact"),
    [("Valkey", "Team uses Valkey"), ("where does Maria live", "Maria lives in Berlin"), ("Acme", "Tom works at Acme Corp")],
)
def test_stored_names_still_find_their_facts(graph: Knotwork, query: str, fact: str) -> None:
    assert graph.search_facts(query, workspace="w")[0].fact.fact == fact


def test_a_related_description_still_finds_an_entity_by_its_name_vector(graph: Knotwork) -> None:
    assert [h.entity.name for h in graph.search_nodes("running shoes", workspace="w")][:1] == ["Nike Pegasus"]
