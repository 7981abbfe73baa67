""""it" as a later clause's subject stands for the one part of a system the clause before it stated facts about
(knowledge/carry.note_person): "The scheduler no longer depends on cron; it uses Temporal."."""

from __future__ import annotations

import pytest

from tests.knowledge._proposed import needs_parser, proposed as _proposed


@needs_parser
def test_it_is_the_system_the_clause_before_named() -> None:
    found = _proposed("The scheduler no longer depends on cron; it uses Temporal.")
    assert ("scheduler", "uses", "Temporal", False) in found


@needs_parser
@pytest.mark.parametrize("text", [
    "Priya joined Stripe in May; it uses Go.",  # a person is no system "it" stands for
    "We moved to Kubernetes; it uses Helm.",  # the team is no "it"
])
def test_it_stands_for_no_person_nor_team(text: str) -> None:
    assert not any(o == "Helm" or o == "Go" for _s, _p, o, _past in _proposed(text) if _s in ("Priya", "Team"))
