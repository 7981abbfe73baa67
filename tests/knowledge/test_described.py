"""What a description of a thing says it is written in (knowledge/described.py): "Biome is a Rust-based monorepo",
"the ingest worker, a small Rust binary, …", "a package manager written in Rust"; and the neighbours that say
what a thing works on, not what it is written in."""

from __future__ import annotations

import pytest

from tests.knowledge._proposed import needs_parser, proposed_now as _proposed


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("Biome is a Rust-based monorepo.", ("Biome", "written_in", "Rust")),
    ("Biome is a Rust-based monorepo.", ("Biome", "is_a", "monorepo")),  # the kind without the language
    ("The ingest worker, a small Rust binary, reads from NATS.", ("ingest worker", "written_in", "Rust")),
    ("uv is an extremely fast Python package and project manager written in Rust.", ("uv", "written_in", "Rust")),
    # one reading of "a <language> <software part>", as the attribute of "is" or as an apposition, one noun list
    ("The CLI is a small Go binary.", ("CLI", "written_in", "Go")),
    ("The sync job, a Python script, runs nightly.", ("sync job", "written_in", "Python")),
    ("pyo3 is a Rust library for Python bindings.", ("pyo3", "written_in", "Rust")),
])
def test_a_description_says_what_a_thing_is_written_in(text: str, fact: tuple) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "Ruff is a Python linter.",  # a linter of Python code
    "Black is not a Python-based formatter.",  # negated
    "Is Biome a Rust-based monorepo?",  # a question
    "Pyright is a type checker for Python.",
])
def test_what_a_thing_works_on_is_not_what_it_is_written_in(text: str) -> None:
    assert not [f for f in _proposed(text) if f[1] == "written_in"]


@needs_parser
@pytest.mark.parametrize("text, subject", [
    ("The nightly export job is a Python script.", "nightly export job"),
    ("The CLI is a small Go binary.", "CLI"),
])
def test_the_language_and_part_name_no_kind(text: str, subject: str) -> None:
    facts = _proposed(text)
    assert any(f[0] == subject and f[1] == "written_in" for f in facts)
    assert not [f for f in facts if f[0] == subject and f[1] == "is_a"]


@needs_parser
@pytest.mark.parametrize("text, wrong", [
    ("Pydantic-core is a Python library written in Rust.", "Python"),  # the language is said elsewhere
    ("The importer is a Python and Rust library.", "Python"),  # which one is not said
])
def test_a_language_said_otherwise_is_not_read_from_the_part(text: str, wrong: str) -> None:
    assert not [f for f in _proposed(text) if f[1] == "written_in" and f[2] == wrong]
