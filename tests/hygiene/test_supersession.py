"""A value that changed with no cue word retires what it replaces, in any arrival order, on both backends: the
same frame with another value ("X's primary database is A" -> "... is B"), a limit, a role's holder, a schedule;
two statements that can both hold retire nothing; the add says which memory it retired and why; the retired
memory leaves default search; the graph's facts follow."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.domain.models import SUPERSEDED_BY
from knotwork.hygiene.consolidate import frame_change
from knotwork.knowledge.nlp import pipeline
from knotwork.render import compact
from knotwork.render.core import View

OLD_AT, NEW_AT = "2025-01-10T09:00:00Z", "2025-06-02T09:00:00Z"
NEW_TIME = datetime(2025, 6, 2, 9, tzinfo=UTC)

# (older statement, newer statement, the change the answer names)
CHANGES = [
    pytest.param("Harbor's primary database is MySQL 5.7, running on a single RDS instance.",
                 "Harbor's primary database is PostgreSQL 16 since the March migration.",
                 "mysql 5.7 -> postgresql 16", id="database"),
    pytest.param("The public API rate limit is 100 requests per minute per key.",
                 "The public API rate limit is 300 requests per minute per key.", "100 -> 300", id="limit"),
    pytest.param("Alice Chen is the tech lead of the Payments team.",
                 "Marcus Lee is the tech lead of the Payments team.", "Alice Chen -> Marcus Lee", id="tech-lead"),
    pytest.param("Deploys happen every Tuesday after the standup.",
                 "Deploys happen every weekday after the standup.", "tuesday -> weekday", id="schedule"),
    # one standing in a body at a time; a lower-case tool after "with"
    pytest.param("Dana Reyes is an active member of the Docs team.",
                 "Dana Reyes is now an emeritus member of the Docs team.", "active -> emeritus", id="standing"),
    pytest.param("The web app bundles its assets with webpack.", "The web app bundles its assets with esbuild.",
                 "webpack -> esbuild", id="tool"),
    # a slot read whole: a change inside a list of holders, a schedule's day and time at once, an employer in
    # another wording
    pytest.param("The chairs of the Docs working group are Ann Lee and Bo Kim.",
                 "The chairs of the Docs working group are Cy Diaz and Dee Ray.",
                 "ann lee and bo kim -> cy diaz and dee ray", id="holder-list"),
    pytest.param("The Docs working group's regular meeting is on Wednesdays at 10:00 PT.",
                 "The Docs working group's regular meeting is on Tuesdays at 15:00 PT.",
                 "wednesday 10:00 pt -> tuesday 15:00 pt", id="meeting"),
    pytest.param("Priya Nair's employer is Globex.", "Priya Nair is now independent, with no employer.",
                 "globex -> independent", id="employer-wording"),
]

# Two statements that can both hold: neither retires the other, in either order.
BOTH_HOLD = [
    pytest.param("We use Postgres for orders.", "We use Redis for caching.", id="two-stores"),
    pytest.param("Alice leads platform.", "Marcus leads data.", id="two-leads"),
    pytest.param("Alice Chen is a maintainer of Harbor.", "Marcus Lee is a maintainer of Harbor.", id="co-maintainers"),
    pytest.param("Celery 5.4 supports Django 2.2 LTS or newer.", "Celery 5.5 supports Django 2.2 LTS or newer.",
                 id="two-releases"),
    pytest.param("Username used to connect to the database.", "Password used to connect to the database.",
                 id="two-settings"),
    pytest.param("Dana Reyes is a chair of the Docs team.", "Dana Reyes is a tech lead of the Docs team.",
                 id="two-roles"),  # no word of standing: one person holds both
    pytest.param("Priya Nair works at Globex.", "Omar Haddad works at Initech.", id="two-employers"),
    pytest.param("Crush formats code with gofumpt.", "Crush orders imports with goimports.", id="two-tools"),
    pytest.param("The chairs of the Docs working group are Ann Lee and Bo Kim.",
                 "The chairs of the Infra working group are Ann Lee and Cy Diaz.", id="two-groups-chairs"),
    pytest.param("The Ruby SIG meets on Tuesday at 10:00 PT.", "The Rust SIG meets on Tuesday at 09:00 PT.",
                 id="two-meetings"),
]


@pytest.fixture
def smem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


def superseders(mem: Knotwork, memory_id: str) -> list[str]:
    return [r.memory.id for r in mem.related(memory_id, types=["supersedes"], direction="incoming")]


@pytest.mark.parametrize(("old_text", "new_text", "change"), CHANGES)
def test_a_new_value_supersedes_the_old_one(smem: Knotwork, old_text: str, new_text: str, change: str) -> None:
    old = smem.add(old_text, workspace="harbor", valid_at=OLD_AT)
    new = smem.add(new_text, workspace="harbor", valid_at=NEW_AT)
    assert (new.decision, new.touched) == ("SUPERSEDE", old.id)
    assert new.reason == f"value changed: {change}"
    retired = smem.get(old.id)
    assert retired.invalid_at == NEW_TIME  # retired at the newer memory's valid_at
    assert superseders(smem, old.id) == [new.id]
    assert smem.get(new.id).invalid_at is None
    # the retired memory says which memory retired it and why, and its history shows that version
    assert retired.metadata[SUPERSEDED_BY] == {"id": new.id, "reason": new.reason}
    assert [v.invalid_at for v in smem.history(old.id)] == [None, NEW_TIME]


@pytest.mark.parametrize(("old_text", "new_text", "change"), CHANGES)
def test_an_older_value_arriving_late_arrives_retired(smem: Knotwork, old_text: str, new_text: str, change: str) -> None:
    new = smem.add(new_text, workspace="harbor", valid_at=NEW_AT)
    late = smem.add(old_text, workspace="harbor", valid_at=OLD_AT)
    assert (late.decision, late.touched) == ("ADD", new.id)
    before, after = change.split(" -> ")
    assert late.reason.startswith(f"stored retired: {new.id} states a later value ({before} then {after})")
    assert smem.get(late.id).invalid_at == NEW_TIME  # it held until the later value began
    assert smem.get(new.id).invalid_at is None
    assert superseders(smem, late.id) == [new.id]
    assert smem.get(late.id).metadata[SUPERSEDED_BY]["id"] == new.id
    # the add's answer says so on every surface (compact text; JSON carries decision, touched and reason)
    told = compact.added(late, View())
    assert f"stored retired: {new.id}" in told and late.id in told


@pytest.mark.parametrize(("first", "second"), BOTH_HOLD)
@pytest.mark.parametrize("order", ["in order", "reversed"])
def test_statements_that_can_both_hold_retire_nothing(smem: Knotwork, first: str, second: str, order: str) -> None:
    texts = [(first, OLD_AT), (second, NEW_AT)]
    if order == "reversed":
        texts = [(second, NEW_AT), (first, OLD_AT)]
    added = [smem.add(text, workspace="w", valid_at=at) for text, at in texts]
    assert [m.decision for m in added] == ["ADD", "ADD"]
    assert all(smem.get(m.id).invalid_at is None for m in added)
    assert all(superseders(smem, m.id) == [] for m in added)


def test_default_search_never_ranks_the_retired_memory_above_its_successor(smem: Knotwork) -> None:
    old = smem.add("Harbor's primary database is MySQL 5.7, running on a single RDS instance.", workspace="harbor",
                   valid_at=OLD_AT)
    smem.add("Harbor's API is served by FastAPI behind nginx.", workspace="harbor", valid_at=OLD_AT)
    new = smem.add("Harbor's primary database is PostgreSQL 16 since the March migration.", workspace="harbor",
                   valid_at=NEW_AT)
    ids = [h.memory.id for h in smem.search("what database does harbor use?", workspace="harbor")]
    assert ids[0] == new.id and old.id not in ids
    everything = [h.memory.id for h in smem.search("what database does harbor use?", workspace="harbor",
                                                   include_invalid=True)]
    assert old.id in everything  # retired, still readable


@pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")
@pytest.mark.parametrize("order", ["in order", "late"])
@pytest.mark.parametrize("enrich", ["inline", "background"])
def test_the_graph_follows_the_supersession(target: str, tmp_path: Path, order: str, enrich: str) -> None:
    """"uses" gathers many values, so the graph alone keeps both; the memories' supersession retires the old
    fact, whether the graph read both memories in before the link (inline) or after it (background)."""
    old_text = "The orders service uses Postgres for its main database."
    new_text = "The orders service uses MySQL for its main database."
    with knotwork.open(target, settings=Settings(home=tmp_path / "home", enrich=enrich)) as mem:
        steps = [(old_text, OLD_AT), (new_text, NEW_AT)]
        added = [mem.add(t, workspace="w", valid_at=at) for t, at in (steps if order == "in order" else steps[::-1])]
        assert mem.wait_for_extraction(60)
        facts = {f.object: f for f in mem.entity_facts("orders service", workspace="w", include_invalid=True)
                 if f.predicate == "uses"}
        assert set(facts) == {"Postgres", "MySQL"}
        assert facts["Postgres"].invalid_at == NEW_TIME and facts["Postgres"].superseded_by == facts["MySQL"].id
        assert facts["MySQL"].invalid_at is None
        assert {f.object for f in mem.entity_facts("orders service", workspace="w") if f.predicate == "uses"} == {"MySQL"}
        older = added[0] if order == "in order" else added[1]
        assert mem.get(older.id).invalid_at == NEW_TIME


@pytest.mark.parametrize(
    ("old", "new", "change"),
    [
        ("Requests officially supports Python 3.9+.", "Requests officially supports Python 3.10+.", "3.9 -> 3.10"),
        ("Status of Python 3.12: stable.", "Status of Python 3.12: deprecated.", "stable -> deprecated"),
        ("Python 3.12 is in bugfix status.", "Python 3.12 is in security status.", "bugfix -> security"),
        ("It has been downloaded over 40,000,000 times from PyPI.",
         "It has been downloaded over 60,000,000 times from PyPI.", "40 -> 60"),
        ("A 1.0 release is expected sometime in late 2020.", "A 1.0 release is expected sometime in 2021.",
         "late 2020 -> 2021"),
        ("The release manager of Python 3.14 is Hugo van Kemenade.", "The release manager of Python 3.14 is Savannah Ostrowski.",
         "hugo van kemenade -> savannah ostrowski"),
        ("Shelley Vohr chairs the Releases working group.", "Keeley Hammond chairs the Releases working group.",
         "Shelley Vohr -> Keeley Hammond"),  # a role's verb before "the" group: one chair at a time
        ("Dana Reyes is a chair of the Docs team.", "Dana Reyes is an emeritus lead of the Docs team.",
         "chair -> emeritus lead"),  # a standing: "now" left out, "an" read as "a"
        ("Priya Nair works at Globex.", "Priya Nair works at Initech.", "globex -> initech"),
        ("The backend formats its code with black.", "The backend formats its code with ruff.", "black -> ruff"),
    ],
)
def test_frame_change_finds_one_value_in_its_place(old: str, new: str, change: str) -> None:
    assert frame_change(old, new) == change


@pytest.mark.parametrize("order", ["in order", "late"])
def test_a_new_employer_retires_the_old_one(smem: Knotwork, order: str) -> None:
    # the pair's cosine lies under the frame floor: the employer after "works for" takes the copula's
    texts = [("Priya Nair works for Globex.", OLD_AT), ("Priya Nair now works for Initech.", NEW_AT)]
    if order == "late":
        texts.reverse()
    first, second = [smem.add(text, workspace="w", valid_at=at) for text, at in texts]
    old, new = (first, second) if order == "in order" else (second, first)
    assert second.touched == first.id
    told = "value changed: globex -> initech" if order == "in order" else f"stored retired: {new.id}"
    assert second.reason.startswith(told)
    assert smem.get(old.id).invalid_at == NEW_TIME and smem.get(new.id).invalid_at is None
    assert superseders(smem, old.id) == [new.id]


def test_an_employer_or_place_takes_the_copulas_cosine_floor() -> None:
    # under the frame floor (0.75) the value after "works at" / "based in" still counts, as after "is"; another
    # frame's value does not
    assert frame_change("Priya Nair works at Globex.", "Priya Nair works at Initech.", 0.6) == "globex -> initech"
    assert frame_change("Priya Nair is based in Lisbon.", "Priya Nair is based in Porto.", 0.6) == "lisbon -> porto"
    assert frame_change("Priya Nair writes about Globex.", "Priya Nair writes about Initech.", 0.6) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The release manager of Python 2.7 is Benjamin Peterson.", "The release manager of Python 3.1 is Benjamin Peterson."),
        ("Host name of the Couchbase server.", "Host name of the ArangoDB server."),  # which server, not a value
        ("note number 6 about gardening", "note number 7 about gardening"),  # which note
        ("The pull request is assigned to him.", "The pull request is assigned to them."),  # a pronoun is no value
        ("The Requests codebase uses the PEP8 code style.", "The Requests codebase uses the PEP 8 code style."),
        ("Alice Chen is one of the tech leads of Payments.", "Marcus Lee is one of the tech leads of Payments."),
        ("Charles Kerr is a member of the Releases working group.",
         "Sam Maddock is a member of the Releases working group."),
        ("Alice Chen leads platform.", "Marcus Lee leads platform."),  # no "the": which lead of many, not the one
        ("Harbor's primary database is MySQL 5.7.", "Harbor's primary database is not MySQL 5.7."),
        ("The callable needs an instance of the DirtyArbiter.", "The callable needs an instance of the Arbiter."),
        ("Dana Reyes is a chair of the Docs team.", "Dana Reyes is a tech lead of the Docs team."),  # no standing
        ("Dana Reyes is an active member of the Docs team.", "Omar Haddad is an active member of the Docs team."),
        ("Dana Reyes is an active member of the Docs team.", "Dana Reyes is an active member of the Infra team."),
        ("We compiled it with bzip2 support.", "We compiled it with zlib support."),  # which support, not a tool
        ("The bot answers with care.", "The bot answers with them."),  # a pronoun is no tool
    ],
)
def test_frame_change_leaves_what_is_no_value_change(old: str, new: str) -> None:
    assert frame_change(old, new) is None


def test_a_batch_orders_its_own_values_by_valid_at(smem: Knotwork) -> None:
    out = smem.add_many([
        {"content": "The public API rate limit is 300 requests per minute per key.", "workspace": "w", "valid_at": NEW_AT},
        {"content": "The public API rate limit is 100 requests per minute per key.", "workspace": "w", "valid_at": OLD_AT},
    ])
    assert [(m.decision, m.touched) for m in out] == [("ADD", None), ("ADD", out[0].id)]
    assert smem.get(out[1].id).invalid_at == NEW_TIME and smem.get(out[0].id).invalid_at is None
    assert superseders(smem, out[1].id) == [out[0].id]


@pytest.mark.parametrize("order", ["in order", "late"])
def test_a_callers_attribute_fact_follows_the_memories(smem: Knotwork, order: str) -> None:
    """A caller's own predicate ("primary_database") gathers values in the graph; the memories' supersession
    retires the old value's fact, in either arrival order."""
    old = ("Harbor's primary database is MySQL 5.7.", OLD_AT, "MySQL 5.7")
    new = ("Harbor's primary database is PostgreSQL 16.", NEW_AT, "PostgreSQL 16")
    for text, at, value in ([old, new] if order == "in order" else [new, old]):
        smem.add(text, workspace="harbor", valid_at=at, facts=[{"subject": "Harbor", "predicate": "primary_database",
                                                                 "object": value}])
    facts = {f.object: f for f in smem.entity_facts("Harbor", workspace="harbor", include_invalid=True)
             if f.predicate == "primary_database"}
    assert facts["MySQL 5.7"].invalid_at == NEW_TIME and facts["MySQL 5.7"].superseded_by == facts["PostgreSQL 16"].id
    assert facts["PostgreSQL 16"].invalid_at is None
    assert [f.object for f in smem.entity_facts("Harbor", workspace="harbor") if f.predicate == "primary_database"] == [
        "PostgreSQL 16"]
