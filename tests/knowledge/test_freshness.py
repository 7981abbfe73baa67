"""The freshness tie-break: of memories about the same things, the later one first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


FILLER = [
    "The charity bake sale raised money for the shelter.", "I run three times a week before work.",
    "My best friend ran a marathon in Boston.", "The run club meets on Sundays.",
    "Personal finance: save more each month.", "Charity shops near me sell good books.", "The 10K race is in October.",
]


def test_the_later_of_two_related_memories_leads(kg: Knotwork) -> None:
    for i, text in enumerate(FILLER):  # enough other hits for scores to spread as they do in a real store
        kg.add(text, valid_at=f"2023-04-{10 + i:02d}")
    kg.add("My personal best in the charity 5K run is 27:12, set in May.", valid_at="2023-05-25")
    kg.add("Beat it: my personal best in the charity 5K run is now 25:50.", valid_at="2023-05-27")
    hits = kg.search("What is my personal best in the charity 5K run?", limit=10)
    assert "27:12" in hits[0].memory.content and "25:50" in hits[1].memory.content  # plain search: older first
    fresh = kg.prefer_current(list(hits))
    assert "25:50" in fresh[0].memory.content and "27:12" in fresh[1].memory.content
    assert [h.memory.id for h in fresh[2:]] == [h.memory.id for h in hits[2:]]  # the others keep their places
    assert [h.score for h in fresh] == sorted((h.score for h in fresh), reverse=True)


def test_a_clearly_better_match_keeps_its_place(kg: Knotwork) -> None:
    kg.add("Sarah lives in Berlin; Sarah moved there for the job at Acme in Berlin.", valid_at="2024-01-01")
    kg.add("Sarah mentioned the weather.", valid_at="2025-01-01")
    hits = kg.search("where does Sarah live in Berlin", limit=5)
    assert "Berlin" in hits[0].memory.content
    assert kg.prefer_current(list(hits))[0].memory.id == hits[0].memory.id


def test_unrelated_memories_are_not_reordered(kg: Knotwork) -> None:
    kg.add("The deploy script lives in ops/deploy.sh and needs Docker.", valid_at="2024-01-01")
    kg.add("Grandma's lasagne needs ricotta and a slow oven.", valid_at="2025-01-01")
    hits = kg.search("deploy script needs lasagne", limit=5)
    assert [h.memory.id for h in kg.prefer_current(list(hits))] == [h.memory.id for h in hits]
