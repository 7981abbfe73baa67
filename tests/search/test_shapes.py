"""Questions that ask for a count, a total or an order: ``search.shapes`` and the default's ``source_leaders``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from knotwork import Knotwork
from knotwork.search.recipes import RECIPES, step
from knotwork.search.shapes import tallies


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How many plants did I acquire in the last month?", True),
        ("How much did I spend on bike repairs in total?", True),
        ("Which device did I set up first, the thermostat or the router?", True),
        ("What is the order of the three trips I took?", True),
        ("Where did I attend my cousin's wedding?", False),
        ("Why does the console renderer set up colours lazily?", False),
        ("What did Flask release in April 2023?", False),
    ],
)
def test_tallies(text: str, expected: bool) -> None:
    assert tallies(text) is expected


BALCONY = [
    "We talked about which plants grow well on a sunny balcony and how often to water them.",
    "Watering plants on a balcony: morning is better than evening, and how many times a week depends on the pot.",
    "Tips for balcony plants: terracotta pots dry out faster than plastic ones.",
    "How many hours of sun do balcony plants need? Most herbs want six.",
    "I purchased four new houseplants for my terrace garden last weekend.",
    "The weather this week was rainy, so the balcony stayed wet.",
    "I repotted the monstera into a bigger pot.",
    "How many screws did I buy for the balcony railing? Twelve.",
    "Did I buy the paint for my balcony floor? Not yet, how many litres?",
    "How many chairs fit on my balcony if I buy the folding ones?",
]
WITHOUT = replace(RECIPES["memory_hybrid"], rerankers=tuple(s for s in RECIPES["memory_hybrid"].rerankers if s.name != "source_leaders"))


def test_default_moves_the_vectors_best_up_for_a_count_question_only(mem: Knotwork) -> None:
    for day, text in enumerate(BALCONY, start=1):  # a day apart: no neighbourhood in time joins them
        mem.add(text, valid_at=f"2023-05-{day:02d}T10:00:00Z")

    def order(query: str, **kw: object) -> list[str]:
        return [h.memory.content for h in mem.search(query, limit=len(BALCONY), explain=True, **kw)]

    counted = "How many plants did I buy for my balcony?"
    hits = mem.search(counted, limit=len(BALCONY), explain=True)
    leader = max(hits, key=lambda h: h.explain.get("vector", 0.0)).memory.content
    before = order(counted, recipe=WITHOUT)
    assert before.index(leader) >= 3  # the scenario: the fused score buries the closest meaning
    after = order(counted)
    assert after.index(leader) == 2
    assert [t for t in after if t != leader] == [t for t in before if t != leader]  # nothing else reordered
    assert "rerank:source_leaders" in mem.last_trace.names()
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    plain = "What plants did I buy for my balcony?"
    for_every_question = replace(
        RECIPES["memory_hybrid"],
        rerankers=tuple(step("source_leaders", place=3) if s.name == "source_leaders" else s for s in RECIPES["memory_hybrid"].rerankers),
    )
    assert order(plain, recipe=for_every_question) != order(plain, recipe=WITHOUT)  # the step would move something here
    assert order(plain) == order(plain, recipe=WITHOUT)  # but this is not a count, a total or an order: untouched
