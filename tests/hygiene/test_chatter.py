"""The chatter reader alone: an opening word proposes, the rest of the text decides. A statement that opens like
chatter is kept (a wrong ignore loses a memory for good); chatter is still turned away. The add itself, on both
backends, is in test_hygiene.py."""

from __future__ import annotations

import pytest

from knotwork.hygiene.chatter import is_chatter
from knotwork.hygiene.instructions import builtin, parse

KEPT = [
    pytest.param("Running nox requires Python 3.8", id="gerund-subject-requires"),
    pytest.param("Checking if the session cookie exists is the only access gate", id="second-verb-after-if-clause"),
    pytest.param("Trying to connect to the host every frame is not efficient", id="cadence-and-copula"),
    pytest.param("Running on Kubernetes, the microservices need kubectl", id="main-clause-after-comma"),
    pytest.param("Checking the logs, you see the lock timeout", id="pronoun-subject-after-comma"),
    pytest.param("Running the migration failed with a lock timeout", id="past-verb-after-noun"),
    pytest.param("Running the Berlin marathon in September", id="dated-by-a-month"),
    pytest.param("Running a small bakery in Leeds", id="running-with-no-work-under-way"),
    pytest.param("Checking in at the Hilton", id="checking-in"),
    pytest.param("Let me explain: the cron runs at 02:00 UTC", id="let-me-explain"),
]
IGNORED = [
    pytest.param("Running the tests again", id="again"),
    pytest.param("Checking if there is an error in the worker", id="verb-inside-if-clause"),
    pytest.param("Retrying failed jobs", id="adjectival-past"),
    pytest.param("Re-running the build with cached dependencies", id="past-after-preposition"),
    pytest.param("Trying to connect to HSQLDB", id="acronym"),
    pytest.param("checking src/knotwork/cli.py", id="path"),
    pytest.param("Checking for updates...", id="ellipsis"),
    pytest.param("Running tests that need Docker again", id="verb-inside-that-clause"),
    pytest.param("Now let me check the app.tsx file:", id="now-let-me"),
    pytest.param("let me rebuild the project to verify it still builds correctly", id="let-me-intention"),
    pytest.param("Let's see if that makes it reliable.", id="lets-see-if"),
]


@pytest.mark.parametrize("text", KEPT)
def test_a_statement_that_opens_like_chatter_is_not_chatter(text: str) -> None:
    assert is_chatter(text) is None
    assert builtin().ignore_reason(text, None) is None


@pytest.mark.parametrize("text", IGNORED)
def test_chatter_is_still_chatter(text: str) -> None:
    word = is_chatter(text)
    assert word is not None and text.lower().startswith(word.lower())
    assert builtin().ignore_reason(text, None) == f"transient debugging chatter ({word!r})"


def test_a_text_that_does_not_open_like_chatter_is_not_judged() -> None:
    assert is_chatter("The tests are running again") is None  # not an opening: the reader is not asked


def test_an_ignore_pattern_of_the_instructions_file_is_not_judged_by_the_reader() -> None:
    # a pattern the user wrote ignores what it matches, statement or not; the reader judges the built-in opening only
    rules = parse("ignore-pattern: ^running\\b\n")
    assert rules.ignore_reason("Running nox requires Python 3.8", None) == "matches ignore rule of line 1 ('Running')"
    assert builtin().ignore_reason("Running nox requires Python 3.8", None) is None
