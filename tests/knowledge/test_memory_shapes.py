"""Shapes of memories people write, found on the memory2 set's dev half: what each reading proposes, and the
neighbour it must leave alone (knowledge/shapes.py, and the cue and parse fixes they came with)."""

from __future__ import annotations

import pytest

from knotwork.knowledge.extract import extract

from tests.knowledge._proposed import needs_parser, proposed as _proposed


def _stored(text: str) -> set[tuple[str, str, str, bool, str | None]]:
    return {(f.subject, f.predicate, f.object, f.past, f.replaces) for f in extract(text).facts}


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("Our cat Biscuit is 14 and has kidney problems.", ("Team", "owns", "Biscuit", False)),
    ("My dog Bruno hates the vet.", ("User", "owns", "Bruno", False)),
    ("My late dog Rex loved the beach.", ("User", "owns", "Rex", True)),
    ("The nightly export job is a Python script scheduled in Airflow.",
     ("nightly export job", "written_in", "Python", False)),
    ("The checkout redesign shipped on Tuesday.", ("checkout redesign", "status", "shipped", False)),
    ("Javier - my old flatmate - now works in Madrid as a sound engineer.", ("Javier", "roommate_of", "User", True)),
    ("Javier - my old flatmate - now works in Madrid as a sound engineer.", ("Javier", "lives_in", "Madrid", False)),
    ("Ines, my friend from uni, has moved to Lisbon.", ("Ines", "lives_in", "Lisbon", False)),
    ("Jamal, my brother-in-law, drives a Tesla.", ("Jamal", "brother_in_law_of", "User", False)),
    ("I really don't like oat milk.", ("User", "dislikes", "oat milk", False)),
    ("I moved to a flat in Leith.", ("User", "lives_in", "Leith", False)),
    ("CI runs on CircleCI.", ("CI", "runs_on", "CircleCI", False)),
    ("CI runs on GitLab now, not CircleCI.", ("CI", "runs_on", "GitLab", False)),
    ("The frontend repo depends on react-table v7 and zustand.", ("frontend repo", "depends_on", "react-table", False)),
])
def test_a_memory_shape_reads(text: str, fact: tuple[str, str, str, bool]) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("I might get a cat called Miso.", ("User", "owns", "Miso", False)),  # a plan
    ("uv is an extremely fast Python package and project manager written in Rust.", ("uv", "written_in", "Python", False)),
    ("The nightly export job is a Python script scheduled in Airflow.",
     ("nightly export job", "is_a", "Python script", False)),  # the written_in reading replaces it
    ("We shipped the fix.", ("fix", "status", "shipped", False)),  # an object: no status of the subject
    ("The PR merged into main.", ("PR", "status", "merged", False)),  # where, not a status
    ("Tom, my brother lives in Leeds.", ("Tom", "brother_of", "User", False)),  # no aside closes
    ("Jamal, my brother-in-law, drives a Tesla.", ("Jamal", "brother_of", "User", False)),
    ("I don't like coffee anymore.", ("User", "dislikes", "coffee", False)),  # a liking that ended
    ("I didn't like the hotel.", ("User", "dislikes", "hotel", False)),  # a past visit, not a taste now
    ("The frontend repo depends on react-table v7 and zustand.", ("frontend repo", "depends_on", "table", False)),
])
def test_its_neighbour_does_not(text: str, fact: tuple[str, str, str, bool]) -> None:
    assert fact not in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "I'm not sure the worker still needs Celery.",
    "Nobody is sure whether the mailer uses SES or Postmark.",
    "No idea where I left the spare keys.",
    "We're migrating the orders DB from MySQL to Aurora Postgres.",  # under way: no change yet
    "We are switching the CI to GitHub Actions.",
])
def test_a_doubted_or_unfinished_clause_states_nothing(text: str) -> None:
    assert _proposed(text) == set()


@needs_parser
def test_its_sure_and_finished_neighbours_do() -> None:
    assert ("worker", "depends_on", "Celery", False) in _proposed("I'm sure the worker needs Celery.")
    assert ("Team", "uses", "Postgres", False) in _proposed("We migrated the orders DB from MySQL to Postgres.")
    assert ("User", "works_at", "Google", True) in _proposed("I left Google in May.")


@needs_parser
def test_changes_in_memory_words_retire_the_old_value() -> None:
    assert ("User", "lives_in", "Bristol", False, "Leeds") in _stored("I moved from Leeds to a flat in Bristol.")
    assert not any(f[1] == "uses" for f in _stored("I moved from Leeds to a flat in Bristol."))
    assert ("User", "uses", "Pixel 8", False, "iPhone") in _stored("Last year I swapped my iPhone for a Pixel 8.")
    assert ("Team", "runs_on", "Fly", False, "Heroku") in _stored("We moved from Heroku to Fly.")
    assert ("dashboard", "uses", "Luxon", False, "Moment") in _stored("We replaced Moment with Luxon across the dashboard.")


@needs_parser
def test_a_parent_written_as_a_name_is_the_writers() -> None:
    assert ("User's mum", "has_birthday", "3 May", False) in _proposed("Mum's birthday is 3 May.")
    assert ("User's dad", "lives_in", "Leeds", False) in _proposed("Dad lives in Leeds.")
    assert not any(f[0].startswith("User's") for f in _proposed("Both NAN and NAPI now have support for context propagation."))


@needs_parser
def test_a_job_that_starts_on_a_weekday_to_come_is_a_plan() -> None:
    assert ("User", "works_at", "Lumen", False) not in _proposed(
        "I left Accenture after six years; starting at a small startup called Lumen on Monday.")
    assert ("User", "works_at", "Lumen", False) in _proposed("I started at Lumen on Monday.")


@needs_parser
def test_my_twins_are_my_children() -> None:
    assert ("Ada", "child_of", "User", False) in _proposed("My twins, Ada and Leo, turned six in June.")
    assert not any(f[1] == "twin_of" for f in _proposed("My twins, Ada and Leo, turned six in June."))


@needs_parser
def test_two_people_said_to_be_friends_at_once() -> None:
    assert ("Kasia", "friend_of", "User", False) in _proposed("Kasia and I have been friends since primary school.")
    assert ("Tom", "roommate_of", "User", True) in _proposed("Tom and I were flatmates in Leeds.")
    assert not any(f[1] == "friend_of" for f in _proposed("Kasia and I are not friends."))
    assert not any(f[1] == "friend_of" for f in _proposed("Kasia and Tom are friends."))  # not the writer's


@needs_parser
def test_relatives_of_others_take_over_homes_and_languages() -> None:
    assert ("Oskar", "husband_of", "Lina", False) in _proposed("Oskar, Lina's husband, is a pilot with KLM.")
    assert not any(f[1] == "husband_of" for f in _proposed("Lina's husband is a pilot."))  # unnamed
    fatima = _proposed("Fatima lives in Doha with her husband Karim.")
    assert {("Karim", "husband_of", "Fatima", False), ("Karim", "lives_in", "Doha", False)} <= fatima
    lena = _proposed("Lena took over the Android app from Marcus in June.")
    assert {("Lena", "owns", "Android app", False), ("Marcus", "owns", "Android app", True)} <= lena
    assert ("Team", "lives_in", "Leith", False) in _proposed("Our flat in Leith is on the fourth floor, no lift.")
    assert not any(f[1] == "lives_in" for f in _proposed("Our old flat in Leeds had damp."))  # when, unsaid
    assert ("inventory service", "written_in", "Java", False) in _proposed("The inventory service is in Java 17.")
    assert not any(f[1] == "written_in" for f in _proposed("I'm in Python most days."))


@needs_parser
def test_groups_diets_promotions_and_tools_by_agent() -> None:
    assert ("User", "member_of", "Hackney Harriers", False) in _proposed("My running club is Hackney Harriers.")
    assert ("User", "is_a", "pescatarian", False) in _proposed("I've been pescatarian since 2019.")
    nadia = _proposed("Nadia got promoted to head of design at Canva.")
    assert {("Nadia", "works_as", "head of design", False), ("Nadia", "works_at", "Canva", False)} <= nadia
    assert ("mobile push", "uses", "Firebase Cloud Messaging", False) in _proposed(
        "Mobile push is handled by Firebase Cloud Messaging.")
    assert not any(f[1] == "uses" for f in _proposed("Support tickets are handled by Maria."))  # a person
    assert not any(f[1] == "uses" for f in _proposed("uv is backed by Astral, the creators of Ruff."))  # a company
    assert ("Atlas", "has_tech_lead", "Sara", False) in _proposed("Sara is the tech lead on Atlas.")
    assert ("cron box", "status", "decommissioned", False) in _proposed("The old cron box was decommissioned yesterday.")


@needs_parser
def test_a_house_sold_is_not_its_town() -> None:
    assert not any(f[2] == "Reading" for f in _proposed("We sold the house in Reading and are renting in Oxford now."))
    assert ("User", "owns", "Volvo", True) in _proposed("I sold my old Volvo last month.")


@needs_parser
def test_what_one_teaches_and_what_was_picked() -> None:
    assert ("User", "works_as", "yoga teacher", False) in _proposed("I teach yoga on the side.")
    amara = _proposed("Amara is my aunt; she teaches chemistry in Lagos.")
    assert {("Amara", "works_as", "chemistry teacher", False), ("Amara", "lives_in", "Lagos", False)} <= amara
    assert not any(f[1] == "works_as" for f in _proposed("I teach my kids to swim."))
    assert not any(f[1] == "works_as" for f in _proposed("I might teach yoga."))
    assert not any(f[1] == "works_as" for f in _proposed("now I teach piano lessons and work at a pub."))
    assert ("Team", "uses", "Temporal", False) in _proposed("We picked Temporal over Airflow for the workflows.")
    assert not any(f[2] == "Airflow" for f in _proposed("We picked Temporal over Airflow for the workflows."))


@needs_parser
def test_a_thing_upgraded_to_a_version() -> None:
    assert ("Python", "uses_version", "3.12", False) in _proposed("Python upgraded to 3.12 everywhere.")
    assert not any(f[1] == "uses_version" for f in _proposed("Sam upgraded to 3.12."))  # a person, not the thing
