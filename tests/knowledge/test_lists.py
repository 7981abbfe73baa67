"""A list after a fact's object (knowledge/lists.py): every member gets the predicate, and a member that opens
a clause of its own, an apposition or a pronoun does not."""

from __future__ import annotations

import pytest

from knotwork.knowledge.extract import candidates
from knotwork.knowledge.nlp import pipeline

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")


def _proposed(text: str) -> dict[tuple[str, str, str, bool], str]:
    ((ex, _doc),) = candidates([text])
    return {(f.subject, f.predicate, f.object, f.past): f.rule for f in ex.facts}


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("src/payments/refunds.py imports stripe and decimal.", ("src/payments/refunds.py", "imports", "decimal", False)),
    ("I'm allergic to shellfish and peanuts.", ("User", "allergic_to", "peanuts", False)),
    ("We use Playwright for end-to-end tests and Vitest for unit tests.", ("Team", "uses", "Vitest", False)),
    ("The accounts service uses Keycloak for login and Redis for sessions.",
     ("accounts service", "uses", "Redis", False)),
])
def test_a_list_member_gets_the_predicate(text: str, fact: tuple) -> None:
    found = _proposed(text)
    assert fact in found
    assert ":list:" in found[fact]


@needs_parser
@pytest.mark.parametrize("text, wrong", [
    # the word after the comma opens a clause of its own
    ("Redis doesn't support tiered storage, meaning that it needs to load its entire dataset.", "meaning"),
    # a pronoun after "and" starts a new clause, not a member
    ("I like Alex Angel and I love the album Sex Rock.", "I"),
    # the member is the subject of a verb of its own: no list
    ("The worker imports pandas and numpy is pinned in the lock file.", "numpy"),
    # "X, Y" without and/or is an apposition as often as a list
    ("We use Postgres, Aurora in production.", "Aurora"),
])
def test_no_member_where_the_list_ends_or_never_was(text: str, wrong: str) -> None:
    assert not any(o == wrong and ":list:" in rule for (_s, _p, o, _past), rule in _proposed(text).items())


@needs_parser
def test_a_change_and_a_single_valued_predicate_are_not_distributed() -> None:
    found = _proposed("I moved to Lisbon and Porto last year.")
    assert not any(":list:" in rule for rule in found.values())
