"""Time named in a query: windows from English expressions, and the reranker that uses them."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta

import pytest

import knotwork.search.when as when_module
from knotwork import Knotwork
from knotwork.search import rerankers
from knotwork.search.rerankers import Candidate
from knotwork.search.when import time_window

NOW = datetime(2023, 5, 20, 12, 0, tzinfo=UTC)  # a Saturday


def day(text: str) -> tuple[str, str] | None:
    w = time_window(text, NOW)
    return None if w is None else (w[0].date().isoformat(), w[1].date().isoformat())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did I buy 3 days ago?", ("2023-05-15", "2023-05-19")),
        ("I mentioned an investment four weeks ago", ("2023-04-15", "2023-04-29")),
        ("a month ago I moved", ("2023-04-13", "2023-04-28")),
        ("Who did I meet with during the lunch last Tuesday?", ("2023-05-15", "2023-05-17")),
        ("How many times did I bake in the past two weeks?", ("2023-05-04", "2023-05-20")),
        ("Which grocery store did I use most last month?", ("2023-04-18", "2023-05-20")),
        ("what happened yesterday", ("2023-05-18", "2023-05-20")),
        ("what did I cook the day before yesterday", ("2023-05-17", "2023-05-19")),
        ("Which bike did I fix the past weekend?", ("2023-05-12", "2023-05-16")),  # asked on a Saturday: the one before
        ("where did we go last weekend", ("2023-05-12", "2023-05-16")),
        ("the game the week before last", ("2023-05-05", "2023-05-14")),
        ("what did we cook over the weekend", ("2023-05-12", "2023-05-16")),
        ("my weekend plans", None),
        ("Any tips for the music store this weekend?", None),  # the coming weekend: no window into the past
        ("this week so far", ("2023-05-15", "2023-05-20")),
        ("How many doctor's appointments did I go to in March?", ("2023-03-01", "2023-04-01")),
        ("museums I visited in December", ("2022-12-01", "2023-01-01")),
        ("during early May 2022", ("2022-05-01", "2022-06-01")),
        ("What did Ana say on May 16?", ("2023-05-15", "2023-05-18")),
        ("the call on the 3rd of May", ("2023-05-02", "2023-05-05")),
        ("what did we plan around May 9", ("2023-05-06", "2023-05-13")),
        ("the party on June 2nd", ("2022-06-01", "2022-06-04")),  # not yet this year: last year's
        ("what happened on March 3, 2021", ("2021-03-02", "2021-03-05")),
        ("what did I do on February 30", None),  # no such day
        ("we may 2 of them", None),  # "may" the verb
        ("On the morning of May 16, what was the weather?", ("2023-05-15", "2023-05-18")),
        ("What is the name of my hamster?", None),
        ("the last time I checked", None),
    ],
)
def test_windows_from_expressions(text: str, expected: tuple[str, str] | None) -> None:
    assert day(text) == expected


def test_docstring_examples_hold() -> None:
    assert doctest.testmod(when_module).failed == 0


def test_reranker_boosts_only_what_is_inside_the_window() -> None:
    cands = [Candidate("old", 1.0), Candidate("inside", 0.8), Candidate("undated", 0.9)]
    dates = {"old": datetime(2023, 1, 1, tzinfo=UTC), "inside": datetime(2023, 5, 6, tzinfo=UTC)}
    window = time_window("two weeks ago", NOW)
    out = rerankers.time_window(cands, dates, window, boost=0.5)
    assert [c.id for c in out] == ["inside", "old", "undated"]
    assert out[0].score == pytest.approx(1.2) and out[0].scores["time_window"] == pytest.approx(1.2)
    unchanged = rerankers.time_window(cands, dates, None)
    assert [(c.id, c.score) for c in unchanged] == [("old", 1.0), ("inside", 0.8), ("undated", 0.9)]


def test_reranker_late_days_stretch_only_the_end_of_the_window() -> None:
    window = time_window("two weeks ago", NOW)
    assert window is not None
    start, end = window
    told_after = end + timedelta(days=1)  # told the day after the window
    too_late = end + timedelta(days=3)
    before = start - timedelta(days=1)
    cands = [Candidate("first", 1.0), Candidate("after", 0.8), Candidate("late", 0.8), Candidate("before", 0.8)]
    dates = {"first": datetime(2023, 1, 1, tzinfo=UTC), "after": told_after, "late": too_late, "before": before}
    plain = rerankers.time_window(cands, dates, window, boost=0.5)
    assert [c.id for c in plain][0] == "first"  # nothing inside the window itself
    out = rerankers.time_window(cands, dates, window, boost=0.5, late_days=2.0)
    assert [c.id for c in out] == ["after", "first", "late", "before"]
    assert out[0].scores["time_window"] == pytest.approx(1.2)


def test_search_counts_named_times_from_now(mem: Knotwork) -> None:
    early = mem.add("I finished reading a novel about the war", valid_at="2023-04-01T10:00:00Z")
    late = mem.add("I finished reading a novel about the sea", valid_at="2023-05-13T10:00:00Z")
    asked = "Which novel did I finish reading a week ago?"
    assert mem.search(asked, now="2023-05-20T12:00:00Z")[0].memory.id == late.id
    assert mem.search(asked, now="2023-04-08T12:00:00Z")[0].memory.id == early.id


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("What is my personal best in the 5K?", False),
        ("How many bikes do I own?", False),
        ("Where did I initially keep my old sneakers?", True),
        ("What was my first car?", True),
        ("How many days passed between the concert and the museum visit?", True),
        ("Which did I buy first, the lamp or the desk?", True),
        ("What did I buy two weeks ago?", True),
        ("What did I use to drink in the morning?", True),
    ],
)
def test_looks_back_tells_questions_about_the_past_from_questions_about_now(text: str, back: bool) -> None:
    assert when_module.looks_back(text, NOW) is back
