"""The values a change retires are as sure as it (services/trust.preceding and late_arrival): a retired value
the fact scorer put under the reading default is raised to the confidence of the value that retired it, down the
chain of older values, in either arrival order, so that ``as_of`` a date before the change gives the value then;
a current value is never lifted this way, and a caller's fact keeps its word. A plan or a condition ("next week we
move …", "once the review passes we switch …") retires nothing (knowledge/cues.ahead). Both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import knotwork
from knotwork import Settings
from knotwork.knowledge.extract import candidates
from knotwork.knowledge.models import Extraction, Fact, FactDraft
from knotwork.knowledge.nlp import pipeline
from knotwork.services.trust import late_arrival, preceding

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")
JAN = datetime(2023, 1, 15, tzinfo=timezone.utc)


def _fact(id: str, confidence: float, extractor: str = "rules", by: str | None = None) -> Fact:
    return Fact(id, None, "s", "S", "uses_version", "o" + id, "O", "S uses version O", JAN, JAN if by else None, JAN,
                None, by, extractor, (), confidence)


def test_a_retired_value_and_the_chain_before_it_are_raised_to_the_new_value() -> None:
    a, b = _fact("a", 0.62, by="b"), _fact("b", 0.66)
    callers, surer = _fact("c", 0.3, "caller"), _fact("d", 0.95)
    assert preceding(0.86, "rules", [b], [a, b], 0.7) == (0.86, ["a", "b"])  # b, and a that b retired
    assert preceding(0.86, "rules", [surer, callers], [surer, callers], 0.7) == (0.86, [])  # never lowered, never a caller's
    assert preceding(0.4, "caller", [b], [a, b], 0.7) == (0.7, ["a", "b"])  # a caller's new value: the reading default
    assert preceding(0.86, "rules", [], [a, b], 0.7) == (0.86, [])  # retires nothing: raises nothing
    # late arrival: the older value, retired in favour of a stored one, is stored as sure as that one
    assert late_arrival(0.62, "rules", surer, 0.7)[0] == 0.95
    assert late_arrival(0.62, "rules", callers, 0.7)[0] == 0.7
    assert late_arrival(0.62, "rules", None, 0.7)[0] == 0.62
    assert late_arrival(0.4, "caller", surer, 0.7)[0] == 0.4  # a caller's own word


def _read(mem, text: str, at: str, facts: list[FactDraft]) -> None:
    memory = mem.add(text, workspace="w", valid_at=at, consolidate=False)
    mem.knowledge.ingest_memory(mem.get(memory.id), Extraction(facts=facts), "parser")


def _pip(mem: knotwork.Knotwork, at: str) -> set[str]:
    return {f.object for f in mem.entity_facts("pip", workspace="w", as_of=at) if f.predicate == "uses_version"}


@pytest.mark.parametrize("late", [False, True], ids=["in-order", "oldest-arrives-last"])
def test_as_of_before_a_change_gives_the_value_then_when_the_scorer_was_less_sure_of_it(target: str, late: bool) -> None:
    steps = [("pip 20.1", "2020-05-03", 0.62), ("pip 20.2", "2020-07-31", 0.66), ("pip 20.3", "2020-11-30", 0.86)]
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        for text, at, sure in (steps[1:] + steps[:1] if late else steps):
            _read(mem, text, at, [FactDraft("pip", "uses_version", text.split()[1], confidence=sure)])
        every = {f.object: f for f in mem.entity_facts("pip", workspace="w", include_invalid=True, min_confidence=0)}
        assert {v: round(f.confidence, 2) for v, f in every.items()} == {"20.1": 0.86, "20.2": 0.86, "20.3": 0.86}
        # shown by default as of each date, one value at a time
        assert [_pip(mem, at) for at in ("2020-06-01", "2020-08-01", "2021-01-01")] == [{"20.1"}, {"20.2"}, {"20.3"}]
        assert every["20.1"].invalid_at == datetime(2020, 7, 31, tzinfo=timezone.utc)


def test_a_current_value_and_a_callers_fact_are_not_raised(target: str) -> None:
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        _read(mem, "Ana's tools", "2024-01-01", [FactDraft("Ana", "uses", "Vim", confidence=0.62)])
        _read(mem, "Ana's home", "2024-01-01", [FactDraft("Ana", "lives_in", "Lyon", confidence=0.65)])
        mem.add("Ana moved", workspace="w", valid_at="2025-01-01",
                facts=[{"subject": "Ana", "predicate": "lives_in", "object": "Geneva", "confidence": 0.5}])
        _read(mem, "Ana's other tools", "2025-01-01", [FactDraft("Ana", "uses", "Zed", confidence=0.9)])
        every = {f.object: round(f.confidence, 2)
                 for f in mem.entity_facts("Ana", workspace="w", include_invalid=True, min_confidence=0)}
    # uses holds several values: Zed retires nothing and lifts nothing; the caller's Geneva keeps its 0.5, and
    # the Lyon it retired is raised to the reading default (the caller's fact is shown whatever its scale)
    assert every == {"Vim": 0.62, "Zed": 0.9, "Geneva": 0.5, "Lyon": 0.7}


@needs_parser
@pytest.mark.parametrize("text", [
    "Next week we move the CI from Jenkins to GitHub Actions.",
    "We switch the CI from Jenkins to GitHub Actions next month.",
    "We switch the CI from Jenkins to GitHub Actions in two weeks.",
    "Once the review passes we switch the CI from Jenkins to GitHub Actions.",
    "If the trial goes well, we move the CI from Jenkins to GitHub Actions.",
])
def test_a_change_set_ahead_or_under_a_condition_is_a_plan(text: str) -> None:
    ((ex, _doc),) = candidates([text])
    assert not [f for f in ex.facts if f.object == "GitHub Actions" and not f.past]


@needs_parser
@pytest.mark.parametrize("text", [
    "Last week we moved the CI from Jenkins to GitHub Actions.",
    "We moved the CI from Jenkins to GitHub Actions two weeks ago.",
    "When the audit ended, we moved the CI from Jenkins to GitHub Actions.",
])
def test_a_change_that_happened_is_still_read(text: str) -> None:
    ((ex, _doc),) = candidates([text])
    assert [f for f in ex.facts if f.object == "GitHub Actions" and f.replaces == "Jenkins"]


@needs_parser
def test_a_planned_change_leaves_the_value_current(target: str) -> None:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        mem.add("The CI runs on Jenkins.", valid_at="2024-01-10", consolidate=False)
        mem.add("Next week we move the CI from Jenkins to GitHub Actions.", valid_at="2024-03-01", consolidate=False)
        mem.wait_for_extraction()
        now = {(f.predicate, f.object) for f in mem.entity_facts("CI", min_confidence=0)}
    assert ("runs_on", "Jenkins") in now and not {o for _, o in now if o == "GitHub Actions"}
