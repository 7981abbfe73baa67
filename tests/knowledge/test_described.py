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
