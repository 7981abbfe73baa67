"""Verb phrases a thing uses or runs on by (knowledge/vocabulary.py): "generated with", "deploy with", "writes to",
"published to"; and the neighbours where a person is the subject, which state no such fact."""

from __future__ import annotations

import pytest

from tests.knowledge._proposed import needs_parser, proposed as _proposed


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("The docs are generated with MkDocs.", ("docs", "uses", "MkDocs", False)),
    ("The site is published to GitHub Pages.", ("site", "runs_on", "GitHub Pages", False)),
    ("The ingest worker writes to ClickHouse.", ("ingest worker", "uses", "ClickHouse", False)),
    ("We used to deploy with Capistrano.", ("Team", "uses", "Capistrano", True)),
])
def test_a_phrase_names_its_predicate(text: str, fact: tuple) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text, obj", [
    ("I write to Alice every week.", "Alice"),  # a person writing to someone uses nothing
    ("Maria published to Medium last year.", "Medium"),  # a person's post says nothing of where a system runs
])
def test_a_person_subject_states_no_such_fact(text: str, obj: str) -> None:
    assert not any(o == obj and p in ("uses", "runs_on") for _s, p, o, _past in _proposed(text))
