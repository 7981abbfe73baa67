"""Values in time, round 2: "now" on a predicate that holds several values, a past stated with its own year,
and a change stated for the team that the graph holds for one of its systems under another predicate.

End to end through the real service (dependency-parse extraction, the graph's time order) on both backends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.knowledge.nlp import pipeline

pytestmark = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def values(mem: Knotwork, subject: str, predicate: str, as_of: str | None = None) -> list[str]:
    return sorted(f.object for f in mem.entity_facts(subject, as_of=as_of) if f.predicate == predicate
                  and f.subject == subject)


def add(mem: Knotwork, *steps: tuple[str, str]) -> None:
    for at, text in steps:
        mem.add(text, valid_at=at, consolidate=False)


# -- "now" on a predicate that holds several values ---------------------------------------------------


def test_now_on_a_many_valued_predicate_retires_the_one_value_it_replaces(kg: Knotwork) -> None:
    add(kg, ("2023-01-10", "The API is deployed on Heroku."), ("2023-11-02", "The API is now deployed on Fly.io."))
    assert values(kg, "API", "runs_on") == ["Fly.io"]
    assert values(kg, "API", "runs_on", "2023-05-01") == ["Heroku"]
    facts = {f.object: f for f in kg.entity_facts("API", include_invalid=True) if f.predicate == "runs_on"}
    assert facts["Heroku"].invalid_at == facts["Fly.io"].valid_at
    assert facts["Heroku"].superseded_by == facts["Fly.io"].id


def test_now_retires_the_value_whatever_the_arrival_order(kg: Knotwork) -> None:
    add(kg, ("2023-11-02", "The API is now deployed on Fly.io."), ("2023-01-10", "The API is deployed on Heroku."))
    assert values(kg, "API", "runs_on") == ["Fly.io"]
    assert values(kg, "API", "runs_on", "2023-05-01") == ["Heroku"]


@pytest.mark.parametrize("text", [
    "The API is now also deployed on Fly.io.",        # "also": one more value, not another one
    "The API is now deployed on Fly.io as well.",
])
def test_now_with_a_word_of_addition_retires_nothing(kg: Knotwork, text: str) -> None:
    add(kg, ("2023-01-10", "The API is deployed on Heroku."), ("2023-11-02", text))
    assert values(kg, "API", "runs_on") == ["Fly.io", "Heroku"]


def test_now_retires_nothing_when_it_cannot_tell_which_value_it_replaces(kg: Knotwork) -> None:
    add(kg, ("2023-01-10", "The API is deployed on Heroku."), ("2023-02-10", "The API is deployed on AWS."),
        ("2023-11-02", "The API is now deployed on Fly.io."))
    assert values(kg, "API", "runs_on") == ["AWS", "Fly.io", "Heroku"]


def test_now_on_uses_names_no_role_and_retires_nothing(kg: Knotwork) -> None:
    """"uses" gathers values of many roles (an editor, a database, a bank): "I now use Docker" does not say
    which one it replaced, so only an explicit old value ("instead of Vim", "no longer Vim") retires one."""
    add(kg, ("2023-01-10", "I use Vim for everything."), ("2023-11-02", "I now use Docker for local development."))
    assert values(kg, "User", "uses") == ["Docker", "Vim"]


def test_a_many_valued_predicate_without_now_keeps_both_values(kg: Knotwork) -> None:
    add(kg, ("2023-01-10", "The API is deployed on Heroku."), ("2023-11-02", "The API is deployed on Fly.io."))
    assert values(kg, "API", "runs_on") == ["Fly.io", "Heroku"]


# -- a past stated with its own year --------------------------------------------------------------------


def test_a_past_with_its_year_dated_in_that_year_gives_a_fact_from_then_until_a_later_value(kg: Knotwork) -> None:
    kg.add("Back in 2023 Jeff lived in Denver.", valid_at="2023-01-01", consolidate=False)
    (denver,) = [f for f in kg.entity_facts("Jeff", include_invalid=True) if f.predicate == "lives_in"]
    assert denver.object == "Denver" and denver.valid_at.date().isoformat() == "2023-01-01"
    assert denver.invalid_at is None  # the memory's date is the time spoken of, not the end
    kg.add("Jeff lives in Seattle.", valid_at="2024-02-01", consolidate=False)
    assert values(kg, "Jeff", "lives_in", "2023-06-01") == ["Denver"]
    assert values(kg, "Jeff", "lives_in") == ["Seattle"]


@pytest.mark.parametrize("valid_at", ["2023-06-15", None])
def test_a_past_with_its_year_is_retired_by_a_value_stored_before_it(kg: Knotwork, valid_at: str | None) -> None:
    kg.add("Jeff lives in Seattle.", valid_at="2024-02-01", consolidate=False)
    kg.add("Back in 2023 Jeff lived in Denver.", valid_at=valid_at, consolidate=False)
    facts = {f.object: f for f in kg.entity_facts("Jeff", include_invalid=True) if f.predicate == "lives_in"}
    assert facts["Denver"].valid_at.date().isoformat() == "2023-01-01"
    assert facts["Denver"].invalid_at == facts["Seattle"].valid_at
    assert values(kg, "Jeff", "lives_in", "2023-06-01") == ["Denver"]
    assert values(kg, "Jeff", "lives_in") == ["Seattle"]


def test_a_past_with_its_year_said_years_later_ends_by_the_memorys_time(kg: Knotwork) -> None:
    kg.add("Back in 2023 Jeff lived in Denver.", valid_at="2025-06-01", consolidate=False)
    (denver,) = [f for f in kg.entity_facts("Jeff", include_invalid=True) if f.predicate == "lives_in"]
    assert denver.valid_at.date().isoformat() == "2023-01-01"
    assert denver.invalid_at is not None and denver.invalid_at.date().isoformat() == "2025-06-01"
    assert values(kg, "Jeff", "lives_in") == []


# -- the subject and predicate a team's change applies to -----------------------------------------------


def test_a_teams_change_applies_to_the_named_system_that_holds_the_old_value(kg: Knotwork) -> None:
    add(kg, ("2022-02-01", "Our CI runs on Jenkins."), ("2023-10-01", "We switched CI from Jenkins to GitHub Actions."))
    assert values(kg, "CI", "runs_on") == ["GitHub Actions"]
    assert values(kg, "CI", "runs_on", "2023-01-01") == ["Jenkins"]
    facts = {f.object: f for f in kg.entity_facts("CI", include_invalid=True) if f.predicate == "runs_on"}
    assert facts["Jenkins"].superseded_by == facts["GitHub Actions"].id


def test_a_teams_change_leaves_a_system_the_sentence_does_not_name_under_another_predicate(kg: Knotwork) -> None:
    """The same predicate is enough to find the one system holding the old value ("we moved from Redis to
    Valkey" after "the session store uses Redis"); under another predicate the system must be named."""
    add(kg, ("2022-02-01", "Our CI runs on Jenkins."), ("2023-10-01", "We switched from Jenkins to GitHub Actions."))
    assert values(kg, "CI", "runs_on") == ["Jenkins"]


def test_over_at_ends_a_past_fact_at_the_memorys_time_unless_the_memory_is_dated_within_its_start_year() -> None:
    from datetime import UTC, datetime

    from knotwork.knowledge.facts import over_at

    year = datetime(2023, 1, 1, tzinfo=UTC)
    assert over_at(None, datetime(2023, 5, 1, tzinfo=UTC)) == datetime(2023, 5, 1, tzinfo=UTC)  # "used to": no start
    assert over_at(year, datetime(2023, 1, 1, tzinfo=UTC)) is None
    assert over_at(year, datetime(2023, 12, 31, 23, tzinfo=UTC)) is None
    assert over_at(year, datetime(2024, 1, 1, tzinfo=UTC)) == datetime(2024, 1, 1, tzinfo=UTC)


def _fact(fid: str, obj: str, start: str | None, end: str | None = None, superseded_by: str | None = None):
    from datetime import UTC, datetime

    from knotwork.knowledge.models import Fact

    t = lambda s: datetime.fromisoformat(s).replace(tzinfo=UTC) if s else None  # noqa: E731
    return Fact(fid, None, "S", "API", "runs_on", obj, obj, "", t(start), t(end), t("2026-01-01"), None,
                superseded_by, "rules")


def _t(s: str):
    from datetime import UTC, datetime

    return datetime.fromisoformat(s).replace(tzinfo=UTC)


def test_plan_a_turn_retires_the_one_value_held_when_it_starts_and_nothing_when_several_are() -> None:
    from knotwork.knowledge.facts import plan

    one = [_fact("H", "Heroku", "2023-01-10")]
    p = plan("N", "Fly", _t("2023-11-02"), None, one, single_valued=False, turn=True)
    assert [(r.fact_id, r.invalid_at, r.superseded_by) for r in p.retire] == [("H", _t("2023-11-02"), "N")]
    assert plan("N", "Fly", _t("2023-11-02"), None, one, single_valued=False).retire == []  # no turn: both hold
    two = [*one, _fact("A", "AWS", "2023-02-10")]
    assert plan("N", "Fly", _t("2023-11-02"), None, two, single_valued=False, turn=True).retire == []
    ended = [_fact("H", "Heroku", "2023-01-10", "2023-06-01"), _fact("A", "AWS", "2023-06-01")]
    p = plan("N", "Fly", _t("2023-11-02"), None, ended, single_valued=False, turn=True)
    assert [r.fact_id for r in p.retire] == ["A"]  # Heroku no longer held then: AWS is the one value
    later = [_fact("L", "Lambda", "2024-01-01")]
    p = plan("N", "Fly", _t("2023-11-02"), None, later, single_valued=False, turn=True)
    assert p.retire == [] and p.invalid_at is None  # a value that starts later is not the one before


def test_plan_a_late_value_ends_where_a_stored_turn_starts_when_nothing_else_held_then() -> None:
    from knotwork.knowledge.facts import plan

    fly = _fact("F", "Fly", "2023-11-02")
    p = plan("N", "Heroku", _t("2023-01-10"), None, [fly], single_valued=False, turned={"F"})
    assert (p.invalid_at, p.superseded_by, p.retire) == (_t("2023-11-02"), "F", [])
    assert plan("N", "Heroku", _t("2023-01-10"), None, [fly], single_valued=False).invalid_at is None  # not a turn
    held = [fly, _fact("A", "AWS", "2023-01-01")]  # AWS held when the turn came: which one it replaced is unsure
    assert plan("N", "Heroku", _t("2023-01-10"), None, held, single_valued=False, turned={"F"}).invalid_at is None
    retired = [fly, _fact("A", "AWS", "2023-01-01", "2023-11-02", superseded_by="F")]  # the one it did replace
    assert plan("N", "Heroku", _t("2023-01-10"), None, retired, single_valued=False, turned={"F"}).invalid_at is None


# -- times relative to the memory's own ------------------------------------------------------------------


def test_a_relative_time_starts_the_new_value_then_and_ends_the_old_one_there(kg: Knotwork) -> None:
    add(kg, ("2023-01-01", "I work at Monzo."), ("2024-03-01", "Last month I started a new job at Wise."))
    facts = {f.object: f for f in kg.entity_facts("User", include_invalid=True) if f.predicate == "works_at"}
    assert facts["Wise"].valid_at.date().isoformat() == "2024-02-01"
    assert facts["Monzo"].invalid_at == facts["Wise"].valid_at
    assert values(kg, "User", "works_at", "2024-02-15") == ["Wise"]


def test_a_relative_time_orders_a_value_before_one_stated_earlier(kg: Knotwork) -> None:
    """"Two years ago" in a memory of 2025 is 2023: before a value a 2024 memory stated."""
    add(kg, ("2024-01-01", "Jeff lives in Seattle."), ("2025-03-01", "Two years ago Jeff moved to Denver."))
    facts = {f.object: f for f in kg.entity_facts("Jeff", include_invalid=True) if f.predicate == "lives_in"}
    assert facts["Denver"].valid_at.date().isoformat() == "2023-03-01"
    assert values(kg, "Jeff", "lives_in", "2023-06-01") == ["Denver"]
    assert values(kg, "Jeff", "lives_in") == ["Seattle"]  # Seattle came after Denver


@pytest.mark.parametrize(("text", "spec"), [
    ("Two years ago Jeff moved to Denver.", "ago:2:year"),
    ("I joined Wise a couple of months ago.", "ago:2:month"),
    ("Last month I started a new job at Wise.", "last:month"),
    ("Moved to Bristol last weekend, the new flat is great.", "last:weekend"),
    ("I've been living in Bristol since March.", "month:3"),
    ("I moved to Berlin in 2022.", "year:2022"),
    ("I've lived in Berlin for two years.", "ago:2:year"),
    ("I lived in Berlin for two years.", None),  # over: no start from it
    ("I live in Bristol.", None),
    ("I left Monzo two years ago.", None),  # a value stated as over keeps the memory's time for its end
])
def test_the_relative_time_a_clause_names(text: str, spec: str | None) -> None:
    from knotwork.knowledge.extract import extract

    facts = extract(text).facts
    assert facts and {f.when for f in facts} == {spec}


def test_resolve_when_counts_back_from_the_memorys_time_and_refuses_a_later_one() -> None:
    from datetime import UTC, datetime

    from knotwork.knowledge.cues import resolve_when

    said = datetime(2024, 5, 20, 12, tzinfo=UTC)  # a Monday
    day = lambda spec: (lambda t: t.date().isoformat() if t else None)(resolve_when(spec, said))  # noqa: E731
    assert [day(s) for s in ("ago:2:year", "ago:3:month", "ago:1:day", "last:week", "last:weekend")] == [
        "2022-05-20", "2024-02-20", "2024-05-19", "2024-05-13", "2024-05-18"]
    assert [day(s) for s in ("last:month", "last:year", "month:3", "month:6", "year:2021")] == [
        "2024-04-01", "2023-01-01", "2024-03-01", "2023-06-01", "2021-01-01"]
    assert day("year:2025") is None and day(None) is None
    assert resolve_when("ago:1:month", datetime(2024, 3, 31, tzinfo=UTC)) == datetime(2024, 2, 29, tzinfo=UTC)


# -- which predicate a change applies to ------------------------------------------------------------------


def test_a_change_takes_the_predicate_its_subject_holds_the_old_value_under(kg: Knotwork) -> None:
    add(kg, ("2023-01-01", "The docs site is hosted on Netlify."),
        ("2024-01-01", "The docs site moved from Netlify to Vercel."))
    assert values(kg, "docs site", "runs_on") == ["Vercel"]
    assert values(kg, "docs site", "runs_on", "2023-06-01") == ["Netlify"]
    assert values(kg, "docs site", "uses") == []  # stated once, under the predicate that changed


def test_a_change_retires_the_old_value_under_every_relation_the_subject_holds_it_by(kg: Knotwork) -> None:
    add(kg, ("2023-01-01", "The docs site uses Netlify."), ("2023-01-02", "The docs site is hosted on Netlify."),
        ("2024-01-01", "The docs site moved from Netlify to Vercel."))
    # "moved from A to B" between two hosting platforms states runs_on; the docs site is done with Netlify under
    # both relations that held it, from the change on (and still had it before)
    assert values(kg, "docs site", "runs_on") == ["Vercel"]
    assert values(kg, "docs site", "uses") == []
    assert values(kg, "docs site", "uses", "2023-06-01") == ["Netlify"]


# -- a change verb without the old value ----------------------------------------------------------------


@pytest.mark.parametrize("order", ["in-order", "late"])
def test_switched_to_retires_the_one_value_held_before_in_either_arrival_order(kg: Knotwork, order: str) -> None:
    steps = [("2023-01-05", "The billing service uses MongoDB."), ("2024-02-01", "We migrated the billing service to PostgreSQL.")]
    add(kg, *(steps if order == "in-order" else steps[::-1]))
    assert values(kg, "billing service", "uses") == ["PostgreSQL"]
    assert values(kg, "billing service", "uses", "2023-06-01") == ["MongoDB"]


def test_switched_to_retires_nothing_when_several_values_are_held(kg: Knotwork) -> None:
    add(kg, ("2023-01-05", "I use VS Code."), ("2023-02-05", "I use Docker."), ("2024-07-20", "I've switched to Zed."))
    assert values(kg, "User", "uses") == ["Docker", "VS Code", "Zed"]


def test_a_negated_switch_is_no_turn() -> None:
    from knotwork.knowledge.extract import extract

    assert not any(f.turn for f in extract("We didn't switch to Zed.").facts)
    assert all(f.turn for f in extract("I've switched to Zed.").facts)
