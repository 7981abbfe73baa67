"""Precision first and values that change: predicate kinds, change cues, and the memory a change supersedes.

The examples of issue 24 run end to end through the real service on both backends: extraction by
the dependency parse, the graph's time order, and the supersedes link between memories.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.extract import PARSER_CONFIDENCE, extract, extract_rules
from knotwork.knowledge.nlp import pipeline


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def triples(text: str) -> set[tuple[str, str, str, bool, str | None]]:
    return {(f.subject, f.predicate, f.object, f.past, f.replaces) for f in extract(text).facts}


needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")


# -- kinds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "type_", "kind"),
    [
        ("User", None, V.PERSON), ("User's mother", "person", V.PERSON), ("Team", None, V.GROUP),
        ("Redis", None, V.TECH), ("VS Code", None, V.TECH), ("src/app.py", "file", V.CODE),
        ("3.12", None, V.VALUE), ("2019", None, V.VALUE), ("session store", None, V.THING),
        ("coffee", None, V.THING), ("platform team", None, V.GROUP), ("Leipzig", None, V.NAME),
        ("father", None, V.PERSON), ("-", None, None),
    ],
)
def test_kind_of_a_name(name: str, type_: str | None, kind: str | None) -> None:
    assert V.kind(name, type_) == kind


@pytest.mark.parametrize(
    ("fact", "fits"),
    [
        (("Team", "lives_in", "Valkey", "Redis"), False),   # the replaced value is a technology
        (("User", "lives_in", "coffee", None), False),      # a common noun is no place
        (("User", "lives_in", "2019", None), False),        # nor is a year
        (("User's mother", "lives_in", "father", None), False),
        (("ingestion service", "reading", "events", None), False),  # things do not read books
        (("black", "uses", "User", None), False),           # a person is not a tool
        (("User", "lives_in", "Leipzig", None), True),
        (("Team", "uses", "Valkey", "Redis"), True),
        (("User", "works_at", "Spotify", None), True),
        (("Django", "uses_version", "5.0", None), True),
        (("User", "made_up_predicate", "Redis", None), False),  # extraction writes only the vocabulary
    ],
)
def test_a_candidate_fits_its_predicate_or_is_refused(fact: tuple[str, str, str, str | None], fits: bool) -> None:
    s, p, o, replaces = fact
    assert (V.fit(p, s, None, o, None, replaces) > 0) is fits


def test_confidence_is_lower_for_each_end_the_spelling_cannot_tell() -> None:
    known = V.fit("uses", "Team", None, "Redis", None)
    one_unknown = V.fit("uses", "Team", None, "Valkey", None)
    two_unknown = V.fit("lives_in", "Jeff", None, "Denver", None)
    assert known == 1.0 and 0 < two_unknown < one_unknown < known


def test_every_predicate_of_the_vocabulary_declares_its_kinds() -> None:
    for predicate in V.PREDICATES:
        name = predicate.replace("<relative>", "sister").replace("<thing>", "colour")
        assert V.signature(name) is not None, predicate


# -- change cues and refusals in extraction ------------------------------------------------------


@needs_parser
def test_moved_from_a_technology_to_another_is_a_change_of_tool_not_of_home() -> None:
    got = triples("We moved from Redis to Valkey for caching session tokens after the license change.")
    assert got == {("Team", "uses", "Valkey", False, "Redis")}


@needs_parser
def test_an_instruction_is_nobody_s_fact_and_no_longer_used_retires_the_team_s_use() -> None:
    got = triples("Use ruff for linting and formatting; black is no longer used.")
    assert got == {("Team", "uses", "black", True, None)}


@needs_parser
def test_instead_of_with_now_retires_the_old_value_and_without_it_says_nothing_of_it() -> None:
    assert triples("I use Obsidian for notes instead of Notion now.") == {("User", "uses", "Obsidian", False, "Notion")}
    assert triples("Instead of Webpack we now bundle with esbuild.") == {("Team", "uses", "esbuild", False, "webpack")}
    assert triples("The frontend uses Tailwind rather than CSS modules.") == {("frontend", "uses", "Tailwind", False, None)}


@needs_parser
def test_a_candidate_of_the_wrong_kind_is_dropped_and_its_names_stay_entities() -> None:
    ex = extract("I gave up coffee in January. My mother lives in Kraków and my father in Gdańsk.")
    assert not [f for f in ex.facts if f.object in ("coffee", "father")]
    assert "Kraków" in {e.name for e in ex.entities}


@needs_parser
def test_a_past_state_with_a_year_is_true_in_that_year() -> None:
    (fact,) = extract("Back in 2023 Jeff lived in Denver.").facts
    assert (fact.subject, fact.predicate, fact.object, fact.past) == ("Jeff", "lives_in", "Denver", True)
    assert fact.valid_at is not None and fact.valid_at.year == 2023


@needs_parser
def test_parse_facts_carry_the_scorers_probability() -> None:
    from knotwork.knowledge import scorer
    from knotwork.knowledge.extract import candidates

    for text in ("The checkout service uses Stripe for payments.", "I live in Lisbon."):
        ((drafts, doc),) = candidates([text])
        (draft,) = drafts.facts
        (fact,) = extract(text).facts
        assert draft.confidence <= PARSER_CONFIDENCE  # the rules' constant, before the scorer
        want = scorer.load().probability(scorer.features(draft, text, doc, 1))
        assert 0 <= fact.confidence <= 1 and fact.confidence == round(want, 3)


def test_the_patterns_give_no_fact_in_a_question_or_a_hedge() -> None:
    assert extract_rules("Should we use Zod or Yup for form validation?").facts == []
    assert extract_rules("We might use Meilisearch for search.").facts == []
    assert [(f.subject, f.object) for f in extract_rules("We use Meilisearch for search.").facts] == [("Team", "Meilisearch")]


# -- the memory layer sees the change ------------------------------------------------------------


def superseded_by(mem: Knotwork, old_id: str) -> list[str]:
    return [r.memory.id for r in mem.related(old_id, types=["supersedes"], direction="incoming")]


@needs_parser
def test_moved_from_redis_to_valkey_supersedes_the_memory_that_said_redis(kg: Knotwork) -> None:
    old = kg.add("The session store uses Redis.", valid_at="2024-01-10T12:00:00Z")
    new = kg.add("We moved from Redis to Valkey for caching session tokens after the license change.",
                 valid_at="2024-09-02T12:00:00Z")
    assert superseded_by(kg, old.id) == [new.id]
    assert kg.get(old.id).invalid_at == new.valid_at
    now = {(f.subject, f.object) for f in kg.entity_facts("session store") if f.predicate == "uses"}
    assert now == {("session store", "Valkey")}  # the system that held Redis, not only "we"
    before = {f.object for f in kg.entity_facts("session store", as_of="2024-05-01T00:00:00Z")}
    assert before == {"Redis"}
    assert not [f for f in kg.entity_facts("Team", include_invalid=True) if f.predicate == "lives_in"]


@needs_parser
def test_black_is_no_longer_used_supersedes_the_memory_that_said_black(kg: Knotwork) -> None:
    old = kg.add("The team uses black for formatting.", valid_at="2023-06-01T12:00:00Z")
    new = kg.add("Use ruff for linting and formatting; black is no longer used.", valid_at="2024-03-15T12:00:00Z")
    assert superseded_by(kg, old.id) == [new.id]
    (black,) = [f for f in kg.entity_facts("Team", include_invalid=True) if f.object == "black"]
    assert black.invalid_at == new.valid_at
    assert not [f for f in kg.entity_facts("black", include_invalid=True) if f.subject == "black"]


@needs_parser
def test_a_memory_that_still_states_another_open_fact_is_not_superseded(kg: Knotwork) -> None:
    old = kg.add("The worker uses Celery and Redis.", valid_at="2024-01-10T12:00:00Z")
    kg.add("The worker moved from Redis to Valkey.", valid_at="2024-09-02T12:00:00Z")
    assert superseded_by(kg, old.id) == []
    assert kg.get(old.id).invalid_at is None  # it still says the worker uses Celery
    assert {f.object for f in kg.entity_facts("worker") if f.predicate == "uses"} == {"Celery", "Valkey"}


@needs_parser
def test_a_memory_whose_other_open_fact_the_newer_one_restates_is_superseded(kg: Knotwork) -> None:
    old = kg.add("The worker uses Celery and Redis.", valid_at="2024-01-10T12:00:00Z")
    new = kg.add("The worker moved from Redis to Valkey; the worker still uses Celery.", valid_at="2024-09-02T12:00:00Z")
    assert superseded_by(kg, old.id) == [new.id]
    assert kg.get(old.id).invalid_at == new.valid_at
    (celery,) = [f for f in kg.entity_facts("worker") if f.object == "Celery"]
    assert set(celery.sources) == {old.id, new.id} and celery.invalid_at is None  # restated, still open


@needs_parser
def test_denver_arriving_late_is_retired_and_as_of_gives_each_year_its_city(kg: Knotwork) -> None:
    kg.add("Jeff lives in Seattle.", valid_at="2024-02-01T12:00:00Z")
    kg.add("Jeff moved to Portland.", valid_at="2025-03-01T12:00:00Z")
    kg.add("Back in 2023 Jeff lived in Denver.", valid_at="2025-06-01T12:00:00Z")

    def city(at: str) -> set[str]:
        return {f.object for f in kg.entity_facts("Jeff", as_of=at) if f.predicate == "lives_in"}

    assert city("2099-01-01T00:00:00Z") == {"Portland"}
    assert city("2023-06-01T00:00:00Z") == {"Denver"}
    assert city("2024-06-01T00:00:00Z") == {"Seattle"}
    assert city("2025-04-01T00:00:00Z") == {"Portland"}


@needs_parser
def test_a_raw_load_retires_no_memory_but_its_graph_still_changes(kg: Knotwork) -> None:
    old, new = kg.add_many(
        [{"content": "The session store uses Redis.", "valid_at": "2024-01-10T12:00:00Z"},
         {"content": "We moved the session store from Redis to Valkey.", "valid_at": "2024-09-02T12:00:00Z"}],
        consolidate=False,
    )
    assert superseded_by(kg, old.id) == [] and kg.get(old.id).invalid_at is None
    assert {f.object for f in kg.entity_facts("session store") if f.predicate == "uses"} == {"Valkey"}


@needs_parser
@pytest.mark.parametrize("consolidate", [True, False])
def test_a_background_worker_keeps_whether_a_load_may_supersede(target: str, tmp_path, consolidate: bool) -> None:
    # The flag travels through the enrichment queue: the worker that reads the change in, after the add has
    # answered, supersedes the Redis memory for an ordinary add and leaves it current for a raw load.
    settings = Settings(home=tmp_path / "home", embedder="none", enrich="background")
    with knotwork.open(target, settings=settings) as mem:
        old, new = mem.add_many(
            [{"content": "The session store uses Redis.", "valid_at": "2024-01-10T12:00:00Z"},
             {"content": "We moved the session store from Redis to Valkey.", "valid_at": "2024-09-02T12:00:00Z"}],
            consolidate=consolidate,
        )
        assert mem.wait_for_extraction(60)
        assert {f.object for f in mem.entity_facts("session store") if f.predicate == "uses"} == {"Valkey"}
        if consolidate:
            assert superseded_by(mem, old.id) == [new.id] and mem.get(old.id).invalid_at is not None
        else:
            assert superseded_by(mem, old.id) == [] and mem.get(old.id).invalid_at is None
