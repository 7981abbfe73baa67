"""Cue words that end or negate what a sentence names: "no longer" with each verb it can govern reads the fact
as over, a removal of a deprecated piece of code never leaves "deprecated" current, and a day after "deploy on"
is when, not where (knowledge/parse.py, knowledge/registers.py)."""

from __future__ import annotations

import pytest

from knotwork.knowledge.extract import candidates
from knotwork.knowledge.nlp import pipeline

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")


def _proposed(text: str) -> set[tuple[str, str, str, bool]]:
    ((ex, _doc),) = candidates([text])
    return {(f.subject.casefold(), f.predicate, f.object.casefold(), f.past) for f in ex.facts}


@needs_parser
@pytest.mark.parametrize("text, triple", [
    ("The scheduler no longer depends on cron; it uses Temporal.", ("scheduler", "depends_on", "cron")),
    ("The web app no longer depends on lodash.", ("web app", "depends_on", "lodash")),
    ("The scheduler doesn't depend on cron anymore.", ("scheduler", "depends_on", "cron")),
    ("The API no longer requires Redis.", ("api", "depends_on", "redis")),
    ("We no longer use Jenkins for CI.", ("team", "uses", "jenkins")),
    ("Ana no longer works at Google.", ("ana", "works_at", "google")),
    ("Ana no longer lives in Paris.", ("ana", "lives_in", "paris")),
])
def test_no_longer_reads_the_fact_as_over_whatever_the_verb(text: str, triple: tuple[str, str, str]) -> None:
    proposed = _proposed(text)
    assert triple + (True,) in proposed
    assert triple + (False,) not in proposed


@needs_parser
def test_a_thing_that_no_longer_exists_is_removed_now() -> None:
    # the one "no longer" whose fact is current: the status it states is "removed"
    assert ("urllib3transport", "status", "removed", False) in _proposed("The `URLLib3Transport` class no longer exists.")


@needs_parser
@pytest.mark.parametrize("text, thing", [
    ("Remove deprecated `--find-links` option.", "--find-links"),  # a changelog line in the imperative
    ("Removed deprecated `--find-links` option.", "--find-links"),
    ("The deprecated `proxies` argument has now been removed.", "proxies"),
    ("`foo` was deprecated and has been removed.", "foo"),  # the clause reading's deprecation, too
])
def test_a_removal_of_a_deprecated_thing_never_leaves_it_deprecated_now(text: str, thing: str) -> None:
    proposed = _proposed(text)
    assert (thing, "status", "deprecated", False) not in proposed
    assert (thing, "status", "deprecated", True) in proposed  # deprecated before the removal: over


@needs_parser
@pytest.mark.parametrize("text, thing", [
    ("You should use the `proxy` argument instead of the deprecated `proxies`.", "proxies"),
    ("A drop-in replacement for the deprecated `imp` module.", "imp"),  # "drop-in" removes nothing
    ("`foo` is deprecated; `bar` has been removed.", "foo"),  # another thing removed
])
def test_a_deprecated_thing_named_in_passing_is_still_deprecated(text: str, thing: str) -> None:
    assert (thing, "status", "deprecated", False) in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text", ["We deploy on Fridays.", "We no longer deploy on Fridays.", "The app runs on Mondays."])
def test_a_day_is_when_not_where_something_runs(text: str) -> None:
    assert not [f for f in _proposed(text) if f[1] == "runs_on"]


@needs_parser
def test_a_platform_after_the_same_verb_still_is_one() -> None:
    assert ("team", "runs_on", "heroku", False) in _proposed("We deploy on Heroku.")
    assert ("team", "runs_on", "heroku", True) in _proposed("We no longer deploy to Heroku.")


@needs_parser
@pytest.mark.parametrize("text", ["Drop `RawURL`. (#2241)", "Remove `--find-links`.", "Remove deprecated `--find-links` option."])
def test_a_changelog_removal_in_the_imperative_states_no_current_status(text: str) -> None:
    # the labelling guide (bench/data/extraction_corpus/GUIDE.md, section 4): a removal needs a named holder
    assert not [f for f in _proposed(text) if f[1] == "status" and not f[3]]
