"""A slot read whole from two memories (knotwork.hygiene.slots): a role's holders, a person's employer, a
meeting's schedule, one path, a default. A change inside a list, in another wording or in two spans at once
retires the older memory; a list that grew, a respelling, a reformatted schedule and two things that can both
hold do not."""

from __future__ import annotations

import pytest

from knotwork.hygiene import consolidate as c
from knotwork.hygiene.slots import employer, holders, schedule, slot_change


@pytest.mark.parametrize(
    ("old", "new", "change"),
    [
        ("The chairs of the Docs working group are Ann Lee, Bo Kim and Cy Diaz.",
         "The chairs of the Docs working group are Dee Ray and Cy Diaz.",
         "ann lee and bo kim and cy diaz -> cy diaz and dee ray"),  # two holders left, one came
        ("Ann Lee and Bo Kim lead the Docs working group.", "Bo Kim leads the Docs working group.",
         "ann lee and bo kim -> bo kim"),  # the list shrank to one
        ("Ann Lee is the GC liaison for the Docs working group.",
         "The GC liaison of the Docs working group is Bo Kim.", "ann lee -> bo kim"),  # two shapes of one role
        ("The Docs working group is led by Ann Lee and Bo Kim.",
         "The Docs working group is led by Ann Lee and Cy Diaz.", "ann lee and bo kim -> ann lee and cy diaz"),
        ("Priya Nair's employer is Globex.", "Priya Nair is now independent, with no employer.",
         "globex -> independent"),
        ("Priya Nair works for Samsung SDS.", "Priya Nair is employed by Rancher Labs.", "samsung sds -> rancher labs"),
        ("The Docs working group's regular meeting is on Wednesdays at 10:00 PT.",
         "The Docs working group's regular meeting is on Tuesdays at 15:00 UTC.",
         "wednesday 10:00 pt -> tuesday 15:00 utc"),  # day and time at once
        ("The Docs working group holds its meeting biweekly.", "The Docs working group holds its meeting weekly.",
         "every other week -> every week"),
        ("The Docs working group meets every other Thursday at 08:00 PT.",
         "The Docs working group meets every Thursday at 08:00 PT.",
         "every other thursday 08:00 pt -> thursday 08:00 pt"),
        ("The SDK's main package lives in src/old_sdk/.", "The SDK's main package lives in src/new_sdk/.",
         "src/old_sdk -> src/new_sdk"),
        ("In the agent, use_vision defaults to auto.", "In the agent, use_vision defaults to True.", "auto -> true"),
    ],
)
def test_a_slot_with_another_value_is_a_change(old: str, new: str, change: str) -> None:
    assert slot_change(old, new) == change
    # ... and so the add-time rules retire the older memory, at the candidate floor's cosine
    assert c.decide(new, [("old", old, c.SLOT_COSINE)]).kind == "SUPERSEDE"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Ann Lee is the lead of the Docs working group.",
         "The leads of the Docs working group are Ann Lee and Bo Kim."),  # grew, everyone stayed
        ("Ann Lee and Bo Kim lead the Docs working group.", "Bo Kim and Ann Lee lead the Docs working group."),
        ("The chairs of the Docs working group are Ann Lee and Jeremia Senk.",
         "The chairs of the Docs working group are Ann Lee and Jeremiah Senk."),  # one name spelled anew
        ("The chairs of the Docs working group are Ann Lee and Bo Kim.",
         "The chairs of the Infra working group are Ann Lee and Cy Diaz."),  # two groups
        ("Ann Lee is the sponsor of the Docs working group.", "Bo Kim is the GC liaison for the Docs working group."),
        ("Ann Lee is a maintainer of Harbor.", "Bo Kim is a maintainer of Harbor."),  # "a": one of many
        ("Alice leads platform.", "Marcus leads platform."),  # no "the"
        ("The Docs working group might be led by Ann Lee.", "The Docs working group is led by Bo Kim."),  # a hedge
        ("Priya Nair works at Globex.", "Omar Haddad works at Globex."),
        ("Priya Nair's employer is Grafana.", "Priya Nair's employer is Grafana Labs."),  # one company spelled twice
        ("Priya Nair worked at Globex.", "Priya Nair works at Initech."),  # a past job still holds
        ("The Docs working group meets every other week on Thursday at 08:00 AM PT.",
         "The Docs working group meets every other Thursday at 8:00 PT."),  # reformatted
        ("The Docs working group meets every Tuesday at 09:00PT.", "The Docs working group meets Tuesday at 9:00 PT."),
        ("The Docs working group meets on Wednesday at 14:00 UTC.",
         "The Docs working group meets on Wednesday at 07:00 PT."),  # another zone, the same day: maybe one hour
        ("The Ruby SIG meets on Tuesday at 10:00 PT.", "The Rust SIG meets on Tuesday at 09:00 PT."),  # two groups
        ("I meet my trainer on Mondays.", "I meet my trainer on Thursdays."),  # one's own sessions may both hold
        ("In the SDK, mypy checks only src/.", "In the SDK, mypy checks src/ and scripts/."),  # two paths
        ("The timeout defaults to 30.", "The retry count defaults to 3."),  # two settings
    ],
)
def test_values_that_can_both_hold_are_no_change(old: str, new: str) -> None:
    assert slot_change(old, new) is None


def test_the_readers_refuse_questions_and_negations() -> None:
    assert holders("Who are the chairs of the Docs working group?") is None
    assert holders("The Docs working group is not led by Ann Lee.") is None
    assert employer("Priya Nair does not work at Globex.") is None
    assert schedule("The Docs working group no longer meets on Tuesdays.") is None


def test_a_holder_list_that_shrank_is_no_restatement() -> None:
    # its words are the older memory's with some left out, which the NOOP rule would read as nothing new
    old = "The Node.js Build initiative is championed by Rich Trott and Rod Vagg."
    new = "The Node.js Build initiative is championed by Rich Trott."
    decision = c.decide(new, [("old", old, 0.97)])
    assert (decision.kind, decision.reason) == ("SUPERSEDE", "value changed: rich trott and rod vagg -> rich trott")
