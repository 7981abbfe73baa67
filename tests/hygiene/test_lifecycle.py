"""One numbered thing given another stage of its life, read in any sentence shape (knotwork.hygiene.lifecycle)."""

from __future__ import annotations

import pytest

from knotwork.hygiene.consolidate import decide
from knotwork.hygiene.lifecycle import stage_change, stages


@pytest.mark.parametrize(
    ("old", "new", "change"),
    [
        ("Node.js v17: Current", "The release status of Node 17 is Maintenance.", "current -> maintenance"),
        ("Status of PEP 9001 (frozen slots): Draft", "Frozen slots are done: PEP 9001 went straight to Final.",
         "draft -> final"),
        ("Python 3.12 is in bugfix status.", "Python 3.12 is in security status.", "bugfix -> security"),
        ("Node 12 release line: Maintenance LTS", "Node.js 12 is EOL.", "maintenance -> end-of-life"),
    ],
)
def test_one_subject_another_stage_whatever_the_shape(old: str, new: str, change: str) -> None:
    assert stage_change(old, new) == change


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("PEP 9001 is accepted.", "PEP 9002 is final."),  # two proposals
        ("PEP 9001 is accepted.", "PEP 9001 is accepted."),  # one stage
        ("Node.js 22: Active LTS", "Node.js 22 reaches end-of-life on 2027-04-30."),  # a schedule says when
        ("Python 3.12 is in bugfix status.", "Python 3.12 will be in security status."),  # a plan
        ("PEP 9001 is a draft.", "PEP 9001 is not final."),  # a negation
        ("Python 3.9 is in security status.", "The final release of Python 3.9 was 3.9.25."),  # "final" describes
        ("PEP 9001 is a draft, sponsored by Ann Lee.", "PEP 9001 is final."),  # the older text says more
        ("Node.js 20 and Node.js 22 are Active.", "Node.js 22 is in maintenance."),  # two subjects
    ],
)
def test_no_stage_change_where_no_one_stage_of_one_thing_changed(old: str, new: str) -> None:
    assert stage_change(old, new) is None


def test_a_stage_word_before_another_word_describes_it() -> None:
    assert stages("security fixes for the current maintainers") == set()
    assert stages("Node.js 16 is in maintenance mode, Maintenance LTS.") == {"maintenance"}


def test_consolidation_asks_the_reader_last_and_above_the_candidate_floor() -> None:
    old, new = "The status of Node.js 21 is Current.", "Node.js 21 has reached end-of-life."
    assert decide(new, [("m1", old, 0.85)]).reason == "value changed: current -> end-of-life"
    assert decide(new, [("m1", old, 0.5)]).kind == "ADD"  # under the slot readers' floor: not compared


def test_a_month_before_a_year_is_no_second_subject() -> None:
    assert stage_change("PEP 9001 status: Draft", "PEP 9001 became Final in October 2024.") == "draft -> final"
