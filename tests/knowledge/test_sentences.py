"""Sentence cutting: inline code between backticks stays in one sentence, by both cutters; prose still splits."""

from __future__ import annotations

import pytest

from knotwork.knowledge import nlp
from knotwork.knowledge.extract import extract
from knotwork.knowledge.sentences import sentences

CHANGELOG = [
    ("The runtime exception `httpx.ResponseClosed` is now named `httpx.StreamClosed`. (#1584)",
     ["The runtime exception `httpx.ResponseClosed` is now named `httpx.StreamClosed`.", "(#1584)"]),
    ("Add `socket_options` argument to `httpx.HTTPTransport` and `httpx.AsyncHTTPTransport` classes. (#2716)",
     ["Add `socket_options` argument to `httpx.HTTPTransport` and `httpx.AsyncHTTPTransport` classes.", "(#2716)"]),
    ("The `app=...` shortcut has been deprecated. Use the explicit style of `transport=httpx.WSGITransport()` instead.",
     ["The `app=...` shortcut has been deprecated.", "Use the explicit style of `transport=httpx.WSGITransport()` instead."]),
    ("Run `make test. Then deploy` before you tag; the release job reads `pyproject.toml`.",
     ["Run `make test. Then deploy` before you tag", "the release job reads `pyproject.toml`."]),
]

PROSE = [
    ("We moved the queue to Redis. It was too slow on Postgres. Dr. Okafor agreed!",
     ["We moved the queue to Redis.", "It was too slow on Postgres.", "Dr. Okafor agreed!"]),
    ("Bump httpx to 0.28. The client now needs Python 3.9.",
     ["Bump httpx to 0.28.", "The client now needs Python 3.9."]),
    # a pair is on one line: a lone backtick does not pair with one on the next line
    ("The backtick ` opens it.\nThen `x. Y` stays whole.", ["The backtick ` opens it.", "Then `x. Y` stays whole."]),
]


@pytest.mark.parametrize(("text", "expected"), CHANGELOG + PROSE)
def test_the_rules_cutter_never_cuts_inside_backticks(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize(("text", "expected"), CHANGELOG[:3] + PROSE[:2])
def test_the_parser_never_cuts_inside_backticks(text: str, expected: list[str]) -> None:
    pipe = nlp.pipeline()
    assert pipe is not None and nlp.CODE_STEP in pipe.pipe_names
    assert [s.text for s in pipe(text).sents] == expected


def test_a_rename_between_two_dotted_names_is_read() -> None:
    # cut at the dots, neither sentence held both names and the fact was lost
    facts = {(f.subject, f.predicate, f.object) for f in extract(CHANGELOG[0][0]).facts}
    assert ("httpx.ResponseClosed", "renamed_to", "httpx.StreamClosed") in facts
