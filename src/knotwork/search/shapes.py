"""The shape of a question, from its words: whether it asks for a count, a total or an order of events.

Such a question ("how many plants did I buy?", "which did I do first, X or
Y?", "what is the order of the three trips?") is answered by several
memories, often far apart; the fused score favours the one memory that
matches most of its words. A step that helps there (``source_leaders``) can
be limited to these questions, so that a question about one fact ranks as
before.
"""

from __future__ import annotations

import re

_TALLY = re.compile(
    r"\b(?:how (?:many|much)|in total|total|altogether|in all|combined|"
    r"(?:in )?(?:what|which) order|the order|first|earliest|latest)\b",
    re.IGNORECASE,
)


def tallies(text: str) -> bool:
    """Whether ``text`` asks for a count, a total or an order of events.

    >>> tallies("How many plants did I acquire in the last month?")
    True
    >>> tallies("Which device did I set up first, the thermostat or the router?")
    True
    >>> tallies("Where did I attend my cousin's wedding?")
    False
    """
    return _TALLY.search(text) is not None
