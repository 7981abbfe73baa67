"""A value said again in other words is no change: consolidation retires nothing for it, in either arrival
order, while a real change of the same value still retires the older memory (issue 35, precision first)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.hygiene.consolidate import decide, frame_change
from knotwork.hygiene.wording import canonical, real_change, restated

# (a statement, the same statement in other words)
RESTATED = [
    pytest.param("The incident review is held every Friday at 15:00.",
                 "The incident review is held on Fridays at 15:00.", id="every-friday/on-fridays"),
    pytest.param("The platform sync happens weekly on Monday.", "The platform sync happens every Monday.",
                 id="weekly-on-monday"),
    pytest.param("Releases are cut every Friday.", "Releases are cut on Fridays.", id="on-fridays"),
    pytest.param("Releases are cut each Friday.", "Releases are cut every Friday.", id="each-friday"),
    pytest.param("Releases are cut on Friday each week.", "Releases are cut every Friday.", id="friday-each-week"),
    pytest.param("Releases are cut Fridays.", "Releases are cut every Friday.", id="fridays"),
    pytest.param("Releases are cut bi-weekly.", "Releases are cut every two weeks.", id="bi-weekly"),
    pytest.param("Releases are cut biweekly.", "Releases are cut every other week.", id="every-other-week"),
    pytest.param("Releases are cut fortnightly.", "Releases are cut every 2 weeks.", id="fortnightly"),
    pytest.param("Releases are cut bi-weekly.", "Releases are cut biweekly.", id="hyphen"),
    pytest.param("Backups run twice a week.", "Backups run twice weekly.", id="twice-a-week"),
    pytest.param("Backups run two times per day.", "Backups run 2x daily.", id="two-times-per-day"),
    pytest.param("Backups run once weekly.", "Backups run weekly.", id="once-weekly"),
    pytest.param("Planning happens every two weeks on Monday.", "Planning happens every other Monday.",
                 id="every-other-monday"),
    pytest.param("Planning happens every other Monday.", "Planning happens biweekly on Mondays.",
                 id="biweekly-on-mondays"),
    pytest.param("The deploy window opens at 15:00.", "The deploy window opens at 3pm.", id="3pm"),
    pytest.param("The deploy window opens at 15:00 UTC.", "The deploy window opens at 3 PM UTC.", id="3-PM-zone"),
    pytest.param("The deploy window opens at 15:00.", "The deploy window opens at 3:00 p.m.", id="p.m."),
    pytest.param("Backups run daily.", "Backups run every day.", id="daily"),
    pytest.param("Reports are generated every 24 hours.", "Reports are generated daily.", id="24-hours"),
    pytest.param("Invoices are sent monthly.", "Invoices are sent once a month.", id="monthly"),
    pytest.param("Backups run weekly.", "Backups run once a week.", id="weekly"),
    pytest.param("The sync runs every hour.", "The sync runs hourly.", id="hourly"),
    pytest.param("The API is v2.", "The API is version 2.", id="v2"),
    pytest.param("The client uses API v2.", "The client uses API version 2.0.", id="v2.0"),
    pytest.param("The API version is 2.", "The API version is 2.0.", id="2.0"),
    pytest.param("The request timeout is 60 seconds.", "The request timeout is 60s.", id="60s"),
    pytest.param("The request timeout is 60 seconds.", "The request timeout is 1 minute.", id="1-minute"),
    pytest.param("The request timeout is 60 seconds.", "The request timeout is one minute.", id="one-minute"),
    pytest.param("The cache TTL is 5 minutes.", "The cache TTL is 300 seconds.", id="300-seconds"),
    pytest.param("The rate limit is 1000 requests per minute.", "The rate limit is 1,000 requests per minute.",
                 id="thousands"),
    pytest.param("The rate limit is 1000 requests per minute.", "The rate limit is 1k requests per minute.",
                 id="1k"),
    pytest.param("The max upload size is 10 MB.", "The max upload size is 10MB.", id="10MB"),
    pytest.param("The primary database is PostgreSQL.", "The primary database is Postgres.", id="postgres"),
    pytest.param("The services are deployed on Kubernetes.", "The services are deployed on k8s.", id="k8s"),
    pytest.param("The frontend is written in JavaScript.", "The frontend is written in JS.", id="js"),
    pytest.param("The frontend is written in TypeScript.", "The frontend is written in TS.", id="ts"),
    pytest.param("The docs are published to Read the Docs.", "The docs are published to ReadTheDocs.",
                 id="read-the-docs"),
    pytest.param("The CI runs on GitHub Actions.", "The CI runs on Github actions!", id="case-punctuation"),
]

# (older, newer, the change named): the same values changed for real still retire the older memory.
CHANGED = [
    pytest.param("The incident review is held every Friday at 15:00.",
                 "The incident review is held every Thursday at 15:00.", "friday -> thursday", id="day"),
    pytest.param("Releases are cut every Friday.", "Releases are cut on Thursdays.", None, id="day-other-wording"),
    pytest.param("The incident review is held every Friday at 15:00.",
                 "The incident review is held on Fridays at 16:00.", None, id="time-other-wording"),
    pytest.param("The team standup is at 15:00.", "The team standup is at 4pm.", "15:00 -> 16:00", id="time"),
    pytest.param("The request timeout is 60 seconds.", "The request timeout is 2 minutes.",
                 "60 seconds -> 2 minutes", id="duration"),
    pytest.param("The API version is 2.", "The API version is 3.", "2 -> 3", id="version"),
    pytest.param("Backups run daily.", "Backups run weekly.", "daily -> weekly", id="cadence"),
    pytest.param("Invoices are sent monthly.", "Invoices are sent every two weeks.", "monthly -> every two weeks",
                 id="monthly-to-biweekly"),
    pytest.param("Releases are cut weekly.", "Releases are cut bi-weekly.", "weekly -> biweekly",
                 id="weekly-to-bi-weekly"),  # no word gone: read as an update before
    pytest.param("Releases are cut weekly.", "Releases are cut twice weekly.", "weekly -> twice weekly",
                 id="weekly-to-twice-weekly"),  # no word gone: read as an update before
    pytest.param("Backups run twice a day.", "Backups run daily.", None, id="twice-a-day-to-daily"),
    pytest.param("The primary database is PostgreSQL.", "The primary database is MySQL.", "postgresql -> mysql",
                 id="database"),
]


@pytest.mark.parametrize(("first", "second"), RESTATED)
def test_a_value_in_other_words_retires_nothing_in_either_order(first: str, second: str) -> None:
    assert restated(first, second) and restated(second, first)
    for older, newer in ((first, second), (second, first)):
        for cosine in (0.8, 0.9, 0.97):
            assert decide(newer, [("old", older, cosine)]).kind != "SUPERSEDE"
            # the restatement arriving late, the stored one stated later
            assert decide(older, [("old", newer, cosine)], later={"old"}).kind != "SUPERSEDE"


@pytest.mark.parametrize(("first", "second"), RESTATED)
def test_a_value_in_other_words_close_enough_is_nothing_new(first: str, second: str) -> None:
    for older, newer in ((first, second), (second, first)):
        decision = decide(newer, [("old", older, 0.97)])
        assert (decision.kind, decision.target) == ("NOOP", "old")
        # under the NOOP floor the candidate is passed over, as a schedule read alike is
        assert decide(newer, [("old", older, 0.9)]).kind == "ADD"


# A value in other words inside a text the rules read otherwise (a closing purpose, an opening phrase of when,
# another clause, a meeting's other frame): each rule's "A -> B" is read one way before it may retire.
READ_THROUGH = [
    pytest.param("Stable releases of Heron are tagged every two weeks.",
                 "From now on stable releases of Heron are tagged bi-weekly.", id="cadence-reader"),
    pytest.param("Backups run daily at 02:00 UTC.",
                 "Backups run every day at 2am UTC so that the exports have finished.", id="purpose"),
    pytest.param("The incident review is held every Friday at 15:00.",
                 "Since the March reorg, the incident review is held on Fridays at 3pm.", id="opening-phrase"),
    pytest.param("The default request timeout is 60 seconds.",
                 "The default request timeout is 1 minute; large uploads use 5 minutes.", id="another-clause"),
    pytest.param("The sprint planning is every Monday at 9am.", "Sprint planning happens weekly on Mondays at 09:00.",
                 id="schedule-reader"),
    pytest.param("The frontend is built with JS and Vite.", "The frontend is built with JavaScript and Vite.",
                 id="two-values"),
]


@pytest.mark.parametrize(("older", "newer"), READ_THROUGH)
def test_a_value_in_other_words_read_through_any_rule_retires_nothing(older: str, newer: str) -> None:
    for cosine in (0.8, 0.9, 0.97):
        assert decide(newer, [("old", older, cosine)]).kind != "SUPERSEDE"
        assert decide(older, [("old", newer, cosine)], later={"old"}).kind != "SUPERSEDE"


def test_a_change_beside_a_value_in_other_words_names_only_the_change() -> None:
    assert real_change("every friday -> on fridays; 15 -> 16") == "15 -> 16"
    assert real_change("bi weekly -> every two weeks") is None
    assert real_change("15 00 -> 3pm") is None  # a time the rules split into words
    assert real_change("15 00 -> 4pm") == "15 00 -> 4pm"
    assert real_change("ADR-23 superseded by ADR-67") == "ADR-23 superseded by ADR-67"
    decision = decide("The deploy window opens on Fridays at 16:00.",
                      [("old", "The deploy window opens every Friday at 15:00.", 0.9)])
    assert decision.kind == "SUPERSEDE" and "fridays" not in decision.reason and "16" in decision.reason


@pytest.mark.parametrize(("older", "newer", "change"), CHANGED)
def test_a_real_change_of_the_same_value_still_retires(older: str, newer: str, change: str | None) -> None:
    assert not restated(older, newer)
    decision = decide(newer, [("old", older, 0.9)])
    assert decision.kind == "SUPERSEDE"
    if change is not None:
        assert decision.reason == f"value changed: {change}"
    assert decide(older, [("old", newer, 0.9)], later={"old"}).kind == "SUPERSEDE"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Releases are cut weekly.", "Releases are cut bi-weekly."),  # once a week is not every other week
        ("Releases are cut weekly.", "Releases are cut twice weekly."),
        ("Releases are cut twice weekly.", "Releases are cut three times a week."),
        ("Planning happens every Monday.", "Planning happens every other Monday."),
        ("The deploy window opens at 3:00.", "The deploy window opens at 15:00."),  # 3:00 may be at night
        ("The deploy window opens at 15:00 UTC.", "The deploy window opens at 15:00 CET."),  # zones: the slot reader's
        ("The release is on Friday.", "The release is every Friday."),  # one Friday, maybe
        ("The API version is 2.1.", "The API version is 2.10."),
        ("The timeout is 60 seconds.", "The timeout is 60 minutes."),
        ("We use Postgres for orders.", "We use Redis for orders."),
        ("The docs are written in JS.", "The docs are written in TS."),
        ("The default validator is in ajv-provider.ts.", "The default validator is in ajvProvider.ts."),  # a rename
    ],
)
def test_wordings_of_different_values_stay_apart(a: str, b: str) -> None:
    assert canonical(a) != canonical(b)
    assert not restated(a, b)


def test_a_name_with_the_inside_is_one_value() -> None:
    # "Read the Docs" is one name: the frame rule reads it whole, in both orders
    older, newer = "Docs are hosted on Read the Docs.", "Docs are hosted on GitHub Pages."
    assert frame_change(older, newer) == "read the docs -> github pages"
    decision = decide(newer, [("old", older, 0.9)])
    assert (decision.kind, decision.reason) == ("SUPERSEDE", "value changed: read the docs -> github pages")
    assert decide(older, [("old", newer, 0.9)], later={"old"}).kind == "SUPERSEDE"
    # "the" outside a name of capitals is no value
    assert frame_change("Docs are hosted on GitHub Pages.", "Docs are hosted on the wiki.") is None
    assert frame_change("The release is signed by Ann Lee.", "The release is signed by the Release Team.") is None


@pytest.mark.parametrize(("older", "newer"), [
    ("Releases are cut weekly.", "Releases are cut twice weekly."),
    ("Releases are cut twice weekly.", "Releases are cut weekly."),
    ("Releases are cut bi-weekly.", "Releases are cut weekly."),
])
def test_a_cadence_with_a_word_more_or_less_is_a_change_even_close(older: str, newer: str) -> None:
    # at the NOOP cosine the words of one text are all in the other: a count or "bi" added or left is the change
    for cosine in (0.8, 0.96):
        assert decide(newer, [("old", older, cosine)]).kind == "SUPERSEDE"
        assert decide(older, [("old", newer, cosine)], later={"old"}).kind == "SUPERSEDE"


@pytest.mark.parametrize(("older", "newer"), [
    ("Backups run daily.", "Backups run daily and weekly."),
    ("Releases are cut weekly.", "Releases are cut weekly and monthly."),
])
def test_a_cadence_said_beside_another_retires_neither(older: str, newer: str) -> None:
    for cosine in (0.8, 0.9):
        assert decide(newer, [("old", older, cosine)]).kind != "SUPERSEDE"
        assert decide(older, [("old", newer, cosine)], later={"old"}).kind != "SUPERSEDE"


@pytest.mark.parametrize(("older", "newer"), [
    ("The lab deploys on Fridays.", "The lab also deploys on Mondays."),
    ("The lab deploys on Fridays.", "The lab deploys on Mondays too."),
    ("The lab deploys on Fridays.", "The lab deploys on Mondays as well."),
    ("The lab deploys on Fridays.", "In addition, the lab deploys on Mondays."),
])
def test_a_value_said_beside_another_retires_neither(older: str, newer: str) -> None:
    # "also" / "too" / "as well" / "in addition" in one text and not the other: a second value, both hold
    for cosine in (0.6, 0.8, 0.95):
        assert decide(newer, [("old", older, cosine)]).kind != "SUPERSEDE"
        assert decide(older, [("old", newer, cosine)], later={"old"}).kind != "SUPERSEDE"
    # without the word, the same pair is a change (the rule the word holds back)
    plain = newer.replace(" also", "").replace(" too", "").replace(" as well", "").replace("In addition, the", "The")
    assert decide(plain, [("old", older, 0.9)]).kind == "SUPERSEDE"


def test_the_same_text_is_left_to_the_rules() -> None:
    # word for word the same: the rules' NOOP as before (its reason and cosine floor), not this reading
    assert not restated("Backups run daily.", "Backups run daily.")


@pytest.fixture
def smem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


@pytest.mark.parametrize("order", ["in order", "reversed"])
def test_a_restated_schedule_keeps_both_memories_current(smem: Knotwork, order: str) -> None:
    texts = [("The incident review is held every Friday at 15:00.", "2025-01-10T09:00:00Z"),
             ("The incident review is held on Fridays at 3pm.", "2025-06-02T09:00:00Z")]
    if order == "reversed":
        texts.reverse()
    added = [smem.add(text, workspace="w", valid_at=at) for text, at in texts]
    assert [m.decision for m in added] != [] and all(m.decision != "SUPERSEDE" for m in added)
    assert all(not m.reason or "retired" not in m.reason for m in added)
    for m in added:
        assert smem.get(m.id).invalid_at is None
        assert smem.related(m.id, types=["supersedes"]) == []
