"""A change of a shown value is shown too (services/trust.retiring and late_arrival): a value the fact scorer put
under the reading default is raised when it retires a value the reader was shown (to that value's confidence, or
to the reading default for a caller's fact), in either arrival order; with no shown value before it, or when it
retires nothing, it stays as scored. Both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import knotwork
from knotwork import Settings
from knotwork.knowledge.models import Fact
from knotwork.knowledge.nlp import pipeline
from knotwork.services.trust import late_arrival, retiring

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")
JAN, JUN = datetime(2023, 1, 15, tzinfo=timezone.utc), datetime(2024, 9, 1, tzinfo=timezone.utc)
SHOWN = 0.99  # above every score the fact scorer gives: each rule fact is under the reading default
OLD = [{"subject": "User", "predicate": "lives_in", "object": "Walnut Creek"}]  # a caller's fact: always shown
NEW = "I moved to Alameda."


def _fact(id: str, confidence: float, extractor: str = "rules") -> Fact:
    return Fact(id, None, "s", "S", "lives_in", "o" + id, "O", "S lives in O", JAN, None, JAN, None, None,
                extractor, (), confidence)


def test_only_a_successor_of_a_shown_value_is_raised() -> None:
    shown_old, hidden_old, callers = _fact("a", 0.9), _fact("b", 0.65), _fact("c", 0.3, "caller")
    assert retiring(0.62, "rules", [shown_old], 0.7) == 0.9  # as sure as the value it retires
    assert retiring(0.62, "rules", [hidden_old], 0.7) == 0.65  # hidden before, hidden after: no higher than it
    assert retiring(0.62, "rules", [], 0.7) == 0.62  # retires nothing
    assert retiring(0.62, "rules", [callers], 0.7) == 0.7  # a caller's fact is shown whatever its scale
    assert retiring(0.5, "caller", [shown_old], 0.7) == 0.5  # a caller's own word is never lifted
    # late arrival: an older value retired in favour of a less sure stored one raises that one
    assert late_arrival(0.9, "rules", hidden_old, 0.7)[1] == 0.9
    assert late_arrival(0.62, "rules", hidden_old, 0.7)[1] is None
    assert late_arrival(0.3, "caller", hidden_old, 0.7)[1] == 0.7
    assert late_arrival(0.9, "rules", callers, 0.7)[1] is None and late_arrival(0.9, "rules", None, 0.7)[1] is None


@needs_parser
@pytest.mark.parametrize("late", [False, True], ids=["in-order", "old-arrives-late"])
def test_a_hidden_new_value_after_a_shown_one_is_shown(target: str, late: bool) -> None:
    with knotwork.open(target, settings=Settings(embedder="none", kg_min_confidence=SHOWN, kg_min_store=0)) as mem:
        steps = [(NEW, JUN, None), ("I live in Walnut Creek.", JAN, OLD)]
        for text, at, facts in (steps if late else steps[::-1]):
            mem.add(text, valid_at=at, facts=facts, consolidate=False)
        mem.wait_for_extraction()
        shown = {f.object: f for f in mem.entity_facts("User") if f.predicate == "lives_in"}
        every = {f.object: f for f in mem.entity_facts("User", include_invalid=True, min_confidence=0)
                 if f.predicate == "lives_in"}
    assert set(shown) == {"Alameda"}
    assert shown["Alameda"].confidence == SHOWN
    assert every["Walnut Creek"].invalid_at == JUN


@needs_parser
def test_a_hidden_value_with_nothing_shown_before_stays_hidden(target: str) -> None:
    with knotwork.open(target, settings=Settings(embedder="none", kg_min_confidence=SHOWN, kg_min_store=0)) as mem:
        mem.add("I live in Walnut Creek.", valid_at=JAN, consolidate=False)
        mem.add(NEW, valid_at=JUN, consolidate=False)
        mem.wait_for_extraction()
        shown = [f for f in mem.entity_facts("User") if f.predicate == "lives_in"]
        every = {f.object: f.confidence for f in mem.entity_facts("User", include_invalid=True, min_confidence=0)
                 if f.predicate == "lives_in"}
    assert not shown
    assert set(every) == {"Walnut Creek", "Alameda"} and max(every.values()) < SHOWN
