"""A technology's short name ("Postgres", "JS", "k8s") is the entity its full name is, not a new value.

Restating a fact with the short name must not retire the fact (issue 35: a wrong supersession hid a true fact);
the short name becomes an alias of the stored entity, either way round, and a real change still retires.
End to end through the real service with inline enrichment, on both backends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.hygiene import wording
from knotwork.knowledge.lexicon import SHORT_NAMES
from knotwork.knowledge.resolve import normalize, same_names
from tests.knowledge._proposed import needs_parser


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none", enrich="inline")) as mem:
        yield mem


def values(kg: Knotwork, subject: str, predicate: str, include_invalid: bool = False) -> set[tuple[str, bool]]:
    """(object, still current) of the subject's facts of ``predicate``."""
    return {(f.object, f.invalid_at is None) for f in kg.entity_facts(subject, include_invalid=include_invalid)
            if f.subject == subject and f.predicate == predicate}


@needs_parser
@pytest.mark.parametrize(
    ("first", "then", "subject", "predicate", "full", "short"),
    [
        pytest.param("Harbor's primary database is PostgreSQL.", "Harbor's primary database is Postgres.",
                     "Harbor", "has_primary_database", "PostgreSQL", "Postgres", id="postgres"),
        pytest.param("The dashboard is written in JavaScript.", "The dashboard is written in JS.",
                     "dashboard", "written_in", "JavaScript", "JS", id="js"),
        pytest.param("The API is deployed on Kubernetes.", "The API is now deployed on k8s.",
                     "API", "runs_on", "Kubernetes", "k8s", id="k8s"),
    ],
)
def test_a_short_name_restates_the_fact_and_is_an_alias(kg: Knotwork, first: str, then: str, subject: str,
                                                        predicate: str, full: str, short: str) -> None:
    old = kg.add(first, valid_at="2024-01-10T12:00:00Z")
    new = kg.add(then, valid_at="2024-06-10T12:00:00Z")
    assert values(kg, subject, predicate, include_invalid=True) == {(full, True)}  # nothing retired
    (fact,) = [f for f in kg.entity_facts(subject) if f.predicate == predicate]
    assert set(fact.sources) == {old.id, new.id}  # one fact, said twice
    entity = kg.entity(short)
    assert entity.id == kg.entity(full).id and entity.name == full and short in entity.aliases


@needs_parser
def test_the_full_name_after_the_short_one_is_the_same_entity(kg: Knotwork) -> None:
    kg.add("The API is deployed on k8s.", valid_at="2024-01-10T12:00:00Z")
    kg.add("The API is now deployed on Kubernetes.", valid_at="2024-06-10T12:00:00Z")
    assert values(kg, "API", "runs_on", include_invalid=True) == {("k8s", True)}  # the stored key stays
    assert kg.entity("Kubernetes").id == kg.entity("k8s").id and "Kubernetes" in kg.entity("k8s").aliases


@needs_parser
def test_a_real_change_of_database_still_retires(kg: Knotwork) -> None:
    kg.add("Harbor's primary database is Postgres.", valid_at="2024-01-10T12:00:00Z")
    kg.add("Harbor's primary database is MySQL.", valid_at="2024-06-10T12:00:00Z")
    assert values(kg, "Harbor", "has_primary_database", include_invalid=True) == {("Postgres", False), ("MySQL", True)}


def test_the_graph_and_consolidation_read_the_same_short_names_as_one() -> None:
    for short, full in SHORT_NAMES.items():
        assert wording.canonical(short) == wording.canonical(full)
        assert normalize(short) == normalize(full) or normalize(full) in same_names(normalize(short))
    assert same_names(normalize("MySQL")) == ()


@needs_parser
def test_looking_up_the_short_name_finds_the_entity_no_memory_called_so(kg: Knotwork) -> None:
    kg.add("Harbor's primary database is PostgreSQL.", valid_at="2024-01-10T12:00:00Z")
    entity = kg.entity("Postgres")  # a store from before the short names: no alias recorded, still found
    assert entity.name == "PostgreSQL" and "Postgres" not in entity.aliases
    with pytest.raises(knotwork.NotFound):
        kg.entity("k8s")
