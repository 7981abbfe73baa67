"""Extraction through the dependency parse: structure, names, time, hedges; and the fallback to the rules."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.knowledge import nlp
from knotwork.knowledge.extract import extract, extract_many, extract_rules



def facts(text: str) -> set[tuple[str, str, str, bool]]:
    return {(f.subject, f.predicate, f.object, f.past) for f in extract(text).facts}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # passives
        ("The quota client is used by the billing portal.", {("billing portal", "uses", "quota client", False)}),
        ("The report job is written in Kotlin.", {("report job", "written_in", "Kotlin", False)}),
        ("The admin console is maintained by Oona.", {("Oona", "owns", "admin console", False)}),
        # appositives and relatives
        ("Mateus, my old flatmate, now lives in Recife.",
         {("Mateus", "lives_in", "Recife", False), ("Mateus", "roommate_of", "User", True)}),
        ("My cousin Ilse works at Philips.", {("Ilse", "cousin_of", "User", False), ("Ilse", "works_at", "Philips", False)}),
        # coordination on both sides
        ("The cli and the web client both use libsodium.",
         {("cli", "uses", "libsodium", False), ("web client", "uses", "libsodium", False)}),
        ("The indexer is written in Zig and deployed to Fly.io.",
         {("indexer", "written_in", "Zig", False), ("indexer", "runs_on", "Fly.io", False)}),
        ("The worker depends on httpx, attrs and structlog.",
         {("worker", "depends_on", x, False) for x in ("httpx", "attrs", "structlog")}),
        # subjectless diary lines and time
        ("Moved back to Aarhus last week!", {("User", "lives_in", "Aarhus", False)}),
        ("I grew up in Tampere.", {("User", "lives_in", "Tampere", True)}),
        ("I quit my job at Nokia.", {("User", "works_at", "Nokia", True)}),
        ("We no longer use Travis.", {("Team", "uses", "Travis", True)}),
        ("I've lived in Porto Alegre since 2019.", {("User", "lives_in", "Porto Alegre", False)}),
        ("I live up in Tromsø.", {("User", "lives_in", "Tromsø", False)}),  # a particle of direction
        ("We live down in Valencia now.", {("Team", "lives_in", "Valencia", False)}),
    ],
)
def test_structure(text: str, expected: set) -> None:
    assert expected <= facts(text)


def test_a_change_names_the_old_value() -> None:
    (f,) = extract("The site switched from Gatsby to Astro.").facts
    assert (f.subject, f.predicate, f.object, f.replaces) == ("site", "uses", "Astro", "Gatsby")
    (g,) = extract("Sidekiq replaced Resque in the mailer.").facts
    assert (g.subject, g.object, g.replaces) == ("mailer", "Sidekiq", "Resque")
    (h,) = [f for f in extract("Moved from Ghent to Namur in May.").facts if f.predicate == "lives_in"]
    assert (h.subject, h.object, h.replaces) == ("User", "Namur", "Ghent")


@pytest.mark.parametrize(
    "name",
    ["Ærø", "Łódź", "Dvořák Hall", "Disney+", "Node.js", "O'Brien's Pub", "macOS", "iCloud", "São Tomé"],
)
def test_names_are_kept_whole(name: str) -> None:
    got = {e.name for e in extract(f"Yesterday we talked about {name} with Ines.").entities}
    assert name in got


@pytest.mark.parametrize(
    "text",
    [
        "We might move the jobs to Temporal.",
        "I'm thinking of moving to Tallinn.",
        "Should we switch to Deno?",
        "Use Ruff instead of flake8.",
        "Maybe I'll join Figma.",
        "Nobody uses the SOAP bridge.",
    ],
)
def test_hedges_questions_and_orders_state_no_fact(text: str) -> None:
    assert extract(text).facts == []


def test_a_pronoun_stands_for_the_person_named_before() -> None:
    got = facts("My sister Oda moved to Trondheim. She works at Equinor.")
    assert ("Oda", "works_at", "Equinor", False) in got


def test_batches_give_what_single_texts_give() -> None:
    texts = ["Jana owns the deploy scripts.", "The API runs on Hetzner.", "Hi!"]
    assert [e.facts for e in extract_many(texts)] == [extract(t).facts for t in texts]


# -- loading: once, checked, with a fallback -------------------------------------------


@pytest.fixture
def fresh_pipeline() -> Iterator[None]:
    nlp.reset()
    yield
    nlp.reset()


def test_disabled_pipeline_falls_back_to_the_rules(fresh_pipeline: None) -> None:
    nlp.disable()
    assert nlp.pipeline() is None
    text = "The invoice tool is used by Marta. We use Celery."
    assert extract(text).facts == extract_rules(text).facts
    assert ("Team", "uses", "Celery") in {(f.subject, f.predicate, f.object) for f in extract(text).facts}


def test_a_model_whose_files_differ_is_refused(
    monkeypatch: pytest.MonkeyPatch, fresh_pipeline: None, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(nlp, "MODEL_SHA256", "0" * 64)
    with caplog.at_level(logging.WARNING, logger="knotwork.extract"):
        assert nlp.pipeline() is None
    assert "refusing" in caplog.text and "0" * 64 in caplog.text
    assert extract("We use Celery.").facts == extract_rules("We use Celery.").facts


def test_the_installed_model_matches_the_recorded_hash() -> None:
    import importlib

    package = importlib.import_module(nlp.MODEL_PACKAGE)
    assert nlp.model_digest(Path(package.__file__).parent) == nlp.MODEL_SHA256


def test_the_pipeline_is_loaded_once_without_the_recogniser() -> None:
    first = nlp.pipeline()
    assert first is nlp.pipeline()
    assert "ner" not in first.pipe_names and "parser" in first.pipe_names


# -- retired facts in the store ---------------------------------------------------------


@pytest.fixture
def kg(tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(tmp_path / "kg.db", settings=Settings(embedder="none")) as mem:
        yield mem


def test_no_longer_ends_a_stored_fact(kg: Knotwork) -> None:
    kg.add("I use Emacs for everything.", valid_at="2024-01-01")
    kg.add("I no longer use Emacs.", valid_at="2025-03-01")
    assert all(f.object != "Emacs" for f in kg.entity_facts("User"))
    (emacs,) = [f for f in kg.entity_facts("User", include_invalid=True) if f.object == "Emacs"]
    assert emacs.valid_at.year == 2024 and emacs.invalid_at.isoformat().startswith("2025-03-01")
    assert [f.object for f in kg.entity_facts("User", as_of="2024-06-01")] == ["Emacs"]


def test_a_past_fact_never_stored_is_stored_retired(kg: Knotwork) -> None:
    kg.add("I grew up in Kuopio.", valid_at="2025-01-01")
    assert kg.entity_facts("User") == []
    (f,) = kg.entity_facts("User", include_invalid=True)
    assert (f.object, f.valid_at, f.invalid_at.year) == ("Kuopio", None, 2025)


def test_a_change_retires_an_old_value_named_only_in_the_same_sentence(kg: Knotwork) -> None:
    kg.add("We switched the docs from Hugo to Zola.", valid_at="2025-05-01")
    current = {f.object for f in kg.entity_facts("docs")}
    every = {f.object: f for f in kg.entity_facts("docs", include_invalid=True)}
    assert current == {"Zola"} and every["Hugo"].invalid_at.year == 2025
