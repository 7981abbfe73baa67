"""A relative clause's subject is the name it describes (knowledge/ends.relative_who): "Tomás, who uses Neovim";
not a relative of the writer, and not inside a plan or a guess."""

from __future__ import annotations

import pytest

from tests.knowledge._proposed import needs_parser, proposed as _proposed


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("Everyone on the team uses VS Code except Tomás, who uses Neovim.", ("Tomás", "uses", "Neovim", False)),
    ("The worker, which runs on Fly.io, uses Celery.", ("worker", "runs_on", "Fly.io", False)),
])
def test_who_is_the_name_its_clause_describes(text: str, fact: tuple) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text, obj", [
    ("My sister, who lives in Paris, is a nurse.", "Paris"),  # "sister" is no name: left to the relatives reading
    ("It will find `oslo.i18n==2.1.0` which requires `pbr`.", "pbr"),  # a plan around the name
])
def test_who_stands_for_no_relative_and_nothing_planned(text: str, obj: str) -> None:
    assert not any(o == obj and s not in ("User's sister",) for s, _p, o, _past in _proposed(text))
