"""Every fact carries its extractor and confidence; reads can ask for sure facts only (``min_confidence``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import InvalidInput, Knotwork, Settings
from knotwork.knowledge.models import Extraction, FactDraft


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        yield mem


def test_a_callers_fact_is_certain_unless_it_says_and_min_confidence_filters(kg: Knotwork) -> None:
    kg.add("Ana's notes", workspace="w", valid_at="2026-01-01",
           facts=[{"subject": "Ana", "predicate": "uses", "object": "Vim"},
                  {"subject": "Ana", "predicate": "likes", "object": "Tea", "confidence": 0.4}])
    by_object = {f.object: f for f in kg.entity_facts("Ana", workspace="w")}
    assert (by_object["Vim"].extractor, by_object["Vim"].confidence) == ("caller", 1.0)
    assert (by_object["Tea"].extractor, by_object["Tea"].confidence) == ("caller", 0.4)
    assert by_object["Tea"].to_dict()["confidence"] == 0.4 and by_object["Tea"].to_dict()["extractor"] == "caller"

    assert {f.object for f in kg.entity_facts("Ana", workspace="w", min_confidence=0.5)} == {"Vim"}
    assert {f.object for f in kg.entity_facts("Ana", workspace="w", min_confidence=0.4)} == {"Vim", "Tea"}
    assert {h.fact.object for h in kg.search_facts("Ana", workspace="w")} == {"Vim", "Tea"}
    assert {h.fact.object for h in kg.search_facts("Ana", workspace="w", min_confidence=0.9)} == {"Vim"}


@pytest.mark.parametrize("bad", [1.5, -0.1, "high", True, float("nan")])
def test_a_confidence_outside_0_1_is_refused_and_nothing_is_written(kg: Knotwork, bad: object) -> None:
    with pytest.raises(InvalidInput, match=r"facts\[0\]\.confidence"):
        kg.add("Ana uses Emacs", facts=[{"subject": "Ana", "predicate": "uses", "object": "Emacs", "confidence": bad}])
    assert kg.store.count_memories() == 0
    with pytest.raises(InvalidInput, match="min_confidence"):
        kg.search_facts("Ana", min_confidence=bad)


def test_a_second_source_raises_a_facts_confidence_never_lowers_it(kg: Knotwork) -> None:
    m = kg.add("Ana uses Vim", valid_at="2026-01-01", facts=[{"subject": "Ana", "predicate": "uses", "object": "Vim",
                                                              "confidence": 0.5}])
    extracted = Extraction(facts=[FactDraft("Ana", "uses", "Vim", confidence=0.7)])
    kg.knowledge.ingest_memory(kg.get(m.id), extracted, "llm")
    (f,) = kg.entity_facts("Ana")
    assert (f.confidence, f.extractor) == (0.7, "caller")  # the first extractor stays; the confidence rose
    kg.knowledge.ingest_memory(kg.get(m.id), Extraction(facts=[FactDraft("Ana", "uses", "Vim", confidence=0.2)]), "llm")
    assert kg.entity_facts("Ana")[0].confidence == 0.7


def test_an_extractors_confidence_is_stored_as_drafted(kg: Knotwork) -> None:
    m = kg.add("Ana lives in Lisbon")
    kg.knowledge.ingest_memory(kg.get(m.id), Extraction(facts=[FactDraft("Ana", "lives_in", "Lisbon", confidence=0.65)]),
                               "parser")
    (f,) = kg.entity_facts("Lisbon", min_confidence=0)  # 0: every stored fact
    assert (f.extractor, f.confidence) == ("parser", 0.65)
