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
from knotwork.hygiene.consolidate import decide, frame_change
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
    # one numbered thing, another stage of its life, in another sentence shape (knotwork.hygiene.lifecycle)
    pytest.param("The status of Node.js 21 is Current.", "Node.js 21 has reached end-of-life.",
                 "current -> end-of-life", id="stage"),
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
    pytest.param("PEP 9001 is accepted.", "PEP 9002 is final.", id="two-proposals"),  # two things, a stage each
    pytest.param("Node.js 22 is in the Active LTS phase.", "Node.js 22 reaches end-of-life on 2027-04-30.",
                 id="stage-and-schedule"),  # a date says when it will, not that it is
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
        ("Alice Chen is the primary contact for Harbor.", "Marcus Lee is the primary contact for Harbor.",
         "Alice Chen -> Marcus Lee"),  # a role of the graph's (contact): one holder
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
        ("Alice Chen is the best engineer on the Payments team.",  # no role the graph holds one person to
         "Marcus Lee is the best engineer on the Payments team."),
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


@pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")
@pytest.mark.parametrize(("role", "one_holder"), [("tech lead", True), ("release manager", True), ("chair", True),
                                                  ("primary contact", True), ("best engineer", False),
                                                  ("on-call engineer", False)])
def test_consolidation_and_the_graph_agree_on_roles_with_one_holder(role: str, one_holder: bool) -> None:
    from knotwork.knowledge.extract import candidates

    old, new = f"Alice Chen is the {role} of Harbor.", f"Marcus Lee is the {role} of Harbor."
    ((ex, _doc),) = candidates([new])
    graph = [f for f in ex.facts if f.subject == "Harbor" and f.predicate.startswith("has_") and f.object == "Marcus Lee"]
    assert (frame_change(old, new) == "Alice Chen -> Marcus Lee") is one_holder
    assert bool(graph) is one_holder


# A change read through the statement each text makes (hygiene/consolidate.py ``_core_change``): an opening phrase
# of time, a closing purpose, a change said with its verb, the newer text's clauses one by one.
READ_THROUGH = [
    pytest.param("Raw event data is kept for 90 days in the landing bucket.",
                 "After the storage review, raw event data is kept for 30 days in the landing bucket.", "90 -> 30",
                 id="opening-phrase"),
    pytest.param("The main ingestion DAG runs daily at 02:00 UTC.",
                 "The main ingestion DAG runs daily at 04:30 UTC so that the upstream exports have finished.",
                 "02 00 -> 04 30", id="purpose"),
    pytest.param("The default provisioning timeout is 10 minutes.",
                 "Bumped the default provisioning timeout to 20 minutes.", "10 -> 20", id="change-verb"),
    # a closing phrase of when or why on the later text, set aside: its tail no longer holds the cosine down
    pytest.param("Search is powered by Elasticsearch 7.",
                 "Search is powered by OpenSearch 2.11 after the licence review.", "elasticsearch 7 -> opensearch 2.11",
                 id="closing-phrase"),
    # "moved from A to B" read against the older text's frame, whose other name the later text restates
    pytest.param("Harbor's background jobs run on Celery with RabbitMQ as the broker.",
                 "Background jobs moved from Celery to Dramatiq; RabbitMQ stays as the broker.", "celery -> dramatiq",
                 id="moved-from-to"),
    # the release a value came with says when, not what ("from the 2.4.0 firmware release on")
    pytest.param("Cobalt runs on Zephyr RTOS 3.5.", "Cobalt runs on Zephyr RTOS 3.6 from the 2.4.0 firmware release on.",
                 "3.5 -> 3.6", id="release-trail"),
    # a new version said of one name, read against the older text's "<name> <version>"
    pytest.param("Experiment tracking uses MLflow 2.9.",
                 "MLflow was upgraded to 2.12 in the platform release of April 1.", "2.9 -> 2.12", id="upgraded-to"),
    # a change-log line leaves the article out
    pytest.param("The fraud score threshold for manual review is 0.85.",
                 "Fraud score threshold for manual review lowered to 0.75 after the June chargeback spike.",
                 "0.85 -> 0.75", id="headline"),
]


@pytest.mark.parametrize(("old_text", "new_text", "change"), READ_THROUGH)
@pytest.mark.parametrize("order", ["in order", "late"])
def test_a_change_is_read_through_the_statement_made(smem: Knotwork, old_text: str, new_text: str, change: str,
                                                     order: str) -> None:
    steps = [(old_text, OLD_AT), (new_text, NEW_AT)]
    first, second = [smem.add(t, workspace="w", valid_at=at) for t, at in (steps if order == "in order" else steps[::-1])]
    old, new = (first, second) if order == "in order" else (second, first)
    assert second.touched == first.id
    told = f"value changed: {change}" if order == "in order" else f"stored retired: {new.id}"
    assert second.reason.startswith(told)
    assert smem.get(old.id).invalid_at == NEW_TIME and smem.get(new.id).invalid_at is None
    assert superseders(smem, old.id) == [new.id]


def test_a_newer_clause_that_names_a_new_holder_retires_the_old_one(smem: Knotwork) -> None:
    old = smem.add("Priya Nair is the product manager for Lumen.", workspace="w", valid_at=OLD_AT)
    new = smem.add("Priya Nair moved to the payments team; Lena Novak took over as product manager for Lumen.",
                   workspace="w", valid_at=NEW_AT)
    assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", old.id, "value changed: Priya Nair -> Lena Novak")
    assert smem.get(old.id).invalid_at == NEW_TIME


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a verb of being is no value: the path held and holds
        ("The default config path is ~/.config/tiller/config.yaml.",
         "The default config path stays ~/.config/tiller/config.yaml; XDG_CONFIG_HOME is honoured."),
        # ... nor in one sentence, where "default" before it once made the verb the changed value
        ("The default config path is ~/.config/tiller/config.yaml.",
         "The default config path stays ~/.config/tiller/config.yaml."),
        # an opening phrase of place or scope names which thing: two projects, two limits
        ("In Harbor, the rate limit is 100 requests per minute.", "In Quay, the rate limit is 300 requests per minute."),
        # the older text is read whole: its other clause still holds, so one clause's change retires nothing
        ("Priya Nair is the product manager for Lumen; Omar Haddad is the design lead.",
         "Lena Novak took over as product manager for Lumen."),
        # "moved from A to B": the older text's other name (the broker) is not restated, so it still holds
        ("Harbor's background jobs run on Celery with RabbitMQ as the broker.",
         "Background jobs moved from Celery to Dramatiq."),
        # ... and another thing moved ("payments" is not the older text's frame)
        ("Harbor's background jobs run on Celery with RabbitMQ as the broker.",
         "Payments moved from Celery to Dramatiq; RabbitMQ stays as the broker."),
    ],
)
def test_a_statement_read_through_keeps_what_still_holds(smem: Knotwork, first: str, second: str) -> None:
    a = smem.add(first, workspace="w", valid_at=OLD_AT)
    b = smem.add(second, workspace="w", valid_at=NEW_AT)
    assert b.decision in ("ADD", "UPDATE") and b.decision != "SUPERSEDE"
    assert smem.get(a.id).invalid_at is None and smem.get(b.id).invalid_at is None


def test_with_retired_memories_in_a_retired_one_ranks_below_its_successor(smem: Knotwork) -> None:
    # the older text matches the question's words better; retired, it still goes below the memory that retired it
    old = smem.add("Harbor's primary database is MySQL 5.7.", workspace="w", valid_at=OLD_AT)
    new = smem.add("Harbor's primary database is PostgreSQL 16 since the March migration, on a managed Aurora "
                   "cluster with two read replicas in another zone.", workspace="w", valid_at=NEW_AT)
    smem.add("Harbor's API is served by FastAPI behind nginx.", workspace="w", valid_at=OLD_AT)
    assert smem.get(old.id).invalid_at == NEW_TIME
    hits = smem.search("what is harbor's primary database?", workspace="w", include_invalid=True, explain=True)
    ids = [h.memory.id for h in hits]
    assert ids.index(new.id) < ids.index(old.id)
    scores = {h.memory.id: h for h in hits}
    assert scores[old.id].score <= scores[new.id].score
    # it was moved, not ranked there on its own words: a stage's score says so. The default's later_value step
    # reads this pair as one value changed and lifts the newer memory to the older one's place (its score); a
    # pair it does not read is left to successor_first, which puts the retired one below
    moved_up = scores[new.id].explain["later_value"] > scores[new.id].explain["source_leaders"]
    assert moved_up or "successor_first" in scores[old.id].explain
    assert old.id not in [h.memory.id for h in smem.search("what is harbor's primary database?", workspace="w")]


def test_a_chain_of_retired_values_ranks_newest_first(smem: Knotwork) -> None:
    texts = [("The public API rate limit is {} requests per minute per key.".format(n), at)
             for n, at in ((100, OLD_AT), (300, NEW_AT), (500, "2025-09-01T09:00:00Z"))]
    first, second, third = [smem.add(t, workspace="w", valid_at=at) for t, at in texts]
    assert (second.touched, third.touched) == (first.id, second.id)
    ids = [h.memory.id for h in smem.search("public API rate limit", workspace="w", include_invalid=True)]
    assert ids.index(third.id) < ids.index(second.id) < ids.index(first.id)


def test_a_late_value_between_two_retires_the_older_one_too(smem: Knotwork) -> None:
    # 100 (January), 500 (September) stored; 300 (June) arrives last: it is retired by 500 and retires 100 itself
    limit = "The public API rate limit is {} requests per minute per key."
    first = smem.add(limit.format(100), workspace="w", valid_at=OLD_AT)
    last = smem.add(limit.format(500), workspace="w", valid_at="2025-09-01T09:00:00Z")
    late = smem.add(limit.format(300), workspace="w", valid_at=NEW_AT)
    assert (late.decision, late.touched) == ("ADD", last.id)
    assert late.reason.endswith(f"; retires {first.id} (value changed: 100 -> 300)")
    assert smem.get(first.id).invalid_at == NEW_TIME  # it held until the late value began, no longer
    assert smem.get(first.id).metadata[SUPERSEDED_BY]["id"] == late.id
    assert smem.get(late.id).invalid_at == datetime(2025, 9, 1, 9, tzinfo=UTC)
    assert sorted(superseders(smem, first.id)) == sorted([last.id, late.id])
    july = datetime(2025, 7, 1, tzinfo=UTC)
    held = [m.id for m in (smem.get(x.id) for x in (first, late, last))
            if m.valid_at <= july and (m.invalid_at is None or m.invalid_at > july)]
    assert held == [late.id]  # one value at a time
    # a value older than both retires neither of them: it held before the oldest began
    earliest = smem.add(limit.format(50), workspace="w", valid_at="2024-10-01T09:00:00Z")
    assert first.id not in earliest.reason and smem.get(first.id).invalid_at == NEW_TIME
    assert superseders(smem, earliest.id) and earliest.id not in superseders(smem, first.id)


@pytest.mark.parametrize("order", ["in order", "late", "one batch, late"])
def test_a_later_text_of_several_clauses_retires_an_older_value_in_any_order(smem: Knotwork, order: str) -> None:
    # the later text's clauses are read one by one and the earlier text whole, whichever arrives first
    older = ("The default provisioning timeout is 5 minutes.", OLD_AT)
    newer = ("Bumped the default provisioning timeout to 20 minutes; large monorepos kept hitting the old limit.", NEW_AT)
    if order == "in order":
        old, new = (smem.add(t, workspace="w", valid_at=at) for t, at in (older, newer))
        assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", old.id, "value changed: 5 -> 20")
    elif order == "late":
        new, old = (smem.add(t, workspace="w", valid_at=at) for t, at in (newer, older))
        assert (old.decision, old.touched) == ("ADD", new.id)
        assert old.reason.startswith(f"stored retired: {new.id} states a later value (5 then 20)")
    else:
        new, old = smem.add_many([{"content": t, "workspace": "w", "valid_at": at} for t, at in (newer, older)])
        assert old.touched == new.id
    assert smem.get(old.id).invalid_at == NEW_TIME and smem.get(new.id).invalid_at is None
    assert superseders(smem, old.id) == [new.id]


def test_an_old_statement_inside_a_later_clause_of_change_is_superseded_not_updated(smem: Knotwork) -> None:
    # every word of the old text is in the new one, in order, but around them a later clause names a new holder
    old = smem.add("Alice Chen is the tech lead of Harbor.", workspace="w", valid_at=OLD_AT)
    new = smem.add("Alice Chen left the company at the end of April; Bob Martinez is the tech lead of Harbor now.",
                   workspace="w", valid_at=NEW_AT)
    assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", old.id, "value changed: Alice Chen -> Bob Martinez")
    kept = smem.get(old.id)
    assert kept.content == "Alice Chen is the tech lead of Harbor." and kept.invalid_at == NEW_TIME
    assert new.id != old.id and smem.get(new.id).invalid_at is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The default config path is ~/.config/app.toml.", "The default config path stays ~/.config/app.toml."),
        ("The default timeout is 30 seconds.", "The default timeout remains 30 seconds."),
        ("The default branch is main.", "The default branch stayed main."),
        ("The default branch is main.", "The default branch keeps main."),
    ],
)
def test_a_verb_of_being_swapped_for_another_is_no_value_in_any_rule(old: str, new: str) -> None:
    # the same value held and holds: at any cosine no rule (value, frame, clause) nor the looser reading retires it
    for cosine in (0.99, 0.9, 0.8, 0.6):
        assert decide(new, [("m", old, cosine)]).kind != "SUPERSEDE"
    # the value after the same verb of being still changes
    changed = decide("The default timeout is 60 seconds.", [("m", "The default timeout is 30 seconds.", 0.95)])
    assert changed.kind == "SUPERSEDE" and changed.reason == "value changed: 30 -> 60"


@pytest.mark.parametrize(
    ("new_text", "retires"),
    [
        ("Replaced Sentry with Rollbar; the team still triages them daily.", True),
        ("Dropped Sentry for Rollbar; the team still triages them daily.", True),
        # the thing replaced is not the older text's value: nothing to read against it
        ("Replaced Datadog with Grafana; the team still triages them daily.", False),
    ],
)
def test_a_replacement_is_read_against_the_older_frame(new_text: str, retires: bool) -> None:
    old_text = "The web app's error reports go to Sentry."
    decision = decide(new_text, [("old", old_text, 0.8)])
    assert (decision.kind == "SUPERSEDE") is retires
    if retires:
        assert decision.reason == "value changed: sentry -> rollbar"


@pytest.mark.parametrize(
    ("old_text", "new_text", "change"),
    [
        # "API" is said once more in both texts: leaving it out of "per API key" changes no statement
        ("The public API rate limit is 100 requests per minute per API key.",
         "The public API rate limit is 300 requests per minute per key.", "100 -> 300"),
        # said nowhere else: "per API key" and "per key" may be two limits, and nothing is read aside
        ("The rate limit is 100 requests per minute per API key.",
         "The rate limit is 300 requests per minute per key.", None),
    ],
)
def test_a_word_said_twice_and_dropped_once_is_no_second_change(old_text: str, new_text: str,
                                                                change: str | None) -> None:
    decision = decide(new_text, [("old", old_text, 0.97)])
    assert (decision.kind, decision.reason) == (("SUPERSEDE", f"value changed: {change}") if change else ("ADD", None))


@pytest.mark.parametrize(
    ("new_text", "retires"),
    [
        ("The database backup runs at 03:00 UTC once the replica is in sync.", True),  # when it began to hold
        ("The database backup runs at 03:00 UTC once a month.", False),  # how often: another backup, both hold
    ],
)
def test_a_closing_once_is_set_aside_only_when_it_says_when(new_text: str, retires: bool) -> None:
    decision = decide(new_text, [("old", "The database backup runs at 02:00 UTC.", 0.85)])
    assert (decision.kind == "SUPERSEDE") is retires


@pytest.mark.parametrize(
    ("old_text", "new_text", "change"),
    [
        # "took over as <role> from <holder>": the role with "the", held by one, ends the statement
        ("Lars Nilsen is the firmware lead.", "Priya Shah has taken over as firmware lead from Lars Nilsen.",
         "Lars Nilsen -> Priya Shah"),
        ("Alice Chen is the tech lead.", "Marcus Lee is the tech lead.", "Alice Chen -> Marcus Lee"),
        # "the lead <kind> for T" has one holder, like "the tech lead of T"
        ("Yuki Tanaka is the lead backend engineer for Kestrel.",
         "Ines Moreau is the lead backend engineer for Kestrel; Yuki Tanaka moved to the engine team.",
         "Yuki Tanaka -> Ines Moreau"),
        # a role of many, or no role noun: both hold
        ("Alice Chen is a firmware lead.", "Marcus Lee is a firmware lead.", None),
        ("Alice Chen is the best engineer.", "Marcus Lee is the best engineer.", None),
        ("Yuki Tanaka is a lead backend engineer for Kestrel.", "Ines Moreau is a lead backend engineer for Kestrel.",
         None),
        # another name's version: the older text states no version of it
        ("Experiment tracking uses MLflow 2.9.", "Django was upgraded to 5.0 in the platform release of April 1.",
         None),
        # the name's version names which one ("Celery 5.3 supports ..."), not the value: both hold
        ("Celery 5.3 supports Django 4.2.", "Celery was upgraded to 5.4.", None),
        # a headline about another scope keeps the older scope's value
        ("The rate limit for US merchants is 100 requests per minute.",
         "Rate limit for EU merchants lowered to 50 requests per minute.", None),
    ],
)
def test_project_wordings_of_a_change_retire_only_the_value_they_replace(old_text: str, new_text: str,
                                                                          change: str | None) -> None:
    decision = decide(new_text, [("old", old_text, 0.8)])
    if change:
        assert (decision.kind, decision.reason) == ("SUPERSEDE", f"value changed: {change}")
    else:
        assert decision.kind != "SUPERSEDE"


# A change written as project text writes it (hygiene/changes_read.py): a decision record naming the one it
# supersedes, a change-log line with no subject, two values said together, "instead of", a negation lifted for a
# value, "Stop <doing> X". (older statement, newer statement, the reason the answer gives)
PROJECT_TEXT = [
    pytest.param("ADR-0012 (accepted): Redis is the session store for Wren.",
                 "ADR-0031 supersedes ADR-0012: Wren keeps its sessions in Postgres.",
                 "ADR-12 superseded by ADR-31", id="record-supersedes"),
    pytest.param("The API client's connect timeout is 10 seconds.",
                 "Raise the API client connect timeout from 10 to 20 seconds (client 2.1).",
                 "value changed: 10 -> 20", id="changelog-from-to-unit"),
    pytest.param("ADR-004: we will use RabbitMQ 3.12 as the message broker for Quarry.",
                 "ADR-009, decision: migrate the Quarry message broker from RabbitMQ to NATS for reliability.",
                 "value changed: rabbitmq 3.12 -> nats", id="decision-migrate"),
    pytest.param("The docs site is built with Sphinx 6 and Furo 2023.",
                 "The docs site is built with Sphinx 7 and Furo 2024.", "value changed: 6 -> 7; 2023 -> 2024",
                 id="two-values"),
    pytest.param("Kestrel bundles with Webpack 4 and Babel 7.", "BREAKING: update Webpack to v5 and Babel to v8.",
                 "value changed: 4 -> 5; 7 -> 8", id="two-upgrades"),
    pytest.param("The linter prints its warnings to stderr along with the errors.",
                 "Print warnings to stdout instead of stderr.", "value changed: stderr -> stdout", id="instead-of"),
    pytest.param("The worker is started with celery -A quarry worker.",
                 "Instead of celery -A quarry worker you can now start the worker as quarry-worker.",
                 "value changed: celery -A quarry worker -> quarry-worker", id="instead-of-first"),
    pytest.param("Failed webhooks are not retried.", "Failed webhooks are retried 5 times.",
                 "value changed: not -> 5 times", id="negation-lifted"),
    pytest.param("Failed webhooks are retried 5 times.", "Failed webhooks are no longer retried.",
                 "value changed: 5 times -> not", id="no-longer"),
    pytest.param("In production the API responses are cached by the reverse proxy.",
                 "Stop caching the API responses in the reverse proxy in production.",
                 "value changed: stopped: caching the API responses in the reverse proxy in production", id="stop"),
    # another floor of one thing's versions, said another way
    pytest.param("Wren's minimal supported Python version is 3.8.", "Wren requires Python 3.10 or newer.",
                 "value changed: python 3.8 -> 3.10", id="floor"),
    pytest.param("Removed support for Node 16; Kestrel needs Node 18 or later.",
                 "Dropped support for Node 18 due to EOL; the minimum is Node 20.", "value changed: node 18 -> 20",
                 id="floor-after-a-drop"),
    # another cadence of one thing
    pytest.param("Stable releases of Wren are tagged quarterly.",
                 "From now on stable releases are tagged every two months.",
                 "value changed: quarterly -> every two months", id="cadence"),
    pytest.param("Incident reviews are held every Friday at 15:00.",
                 "Incident reviews moved to Wednesdays at 11:00 so that the APAC team can join.",
                 "value changed: friday 15:00 -> wednesday 11:00", id="cadence-moved-to"),
    # a change-log line with no "from", or with a "from" the older text writes otherwise: the amount in B's unit
    pytest.param("The default network timeout in Wren is 3 seconds.", "0.4.0: increase default timeout to 5 seconds.",
                 "value changed: 3 -> 5", id="changelog-set-to"),
    # a holder hands the thing over
    pytest.param("Hana Kowalski maintains the Wren client library.",
                 "Hana Kowalski handed the Wren client library over to Lucia Romero, who maintains it now.",
                 "value changed: Hana Kowalski -> Lucia Romero", id="handed-over"),
    # a version with its tag, said with the verb that moved it
    pytest.param("Wren's build agents run Node.js 18 LTS.",
                 "We moved the build agents to Node.js 20 LTS during the June maintenance window.",
                 "value changed: 18 -> 20", id="version-tag"),
    # the holder left the organisation the role was at
    pytest.param("Felix Braun is the head of engineering at Wren.",
                 "Felix Braun left Wren in August; Grace Liu is the head of engineering.",
                 "value changed: Felix Braun left Wren", id="left"),
    # another tool after "with", the later text saying where it runs
    pytest.param("Link checking runs weekly with sphinx linkcheck.",
                 "Link checking runs weekly with lychee in GitHub Actions.", "value changed: sphinx linkcheck -> lychee",
                 id="tool-after-with"),
]


@pytest.mark.parametrize(("old_text", "new_text", "reason"), PROJECT_TEXT)
@pytest.mark.parametrize("order", ["in order", "late"])
def test_a_change_written_as_project_text_retires_the_value_it_replaces(smem: Knotwork, old_text: str, new_text: str,
                                                                        reason: str, order: str) -> None:
    steps = [(old_text, OLD_AT), (new_text, NEW_AT)]
    first, second = [smem.add(t, workspace="w", valid_at=at) for t, at in (steps if order == "in order" else steps[::-1])]
    old, new = (first, second) if order == "in order" else (second, first)
    assert second.touched == first.id
    assert second.reason.startswith(reason if order == "in order" else f"stored retired: {new.id}")
    assert smem.get(old.id).invalid_at == NEW_TIME and smem.get(new.id).invalid_at is None
    assert superseders(smem, old.id) == [new.id]


@pytest.mark.parametrize(
    ("old_text", "new_text"),
    [
        # "instead of" a value the older text states in another frame, or of one it does not state
        ("The service writes its access logs to stdout.", "Write audit events to a file instead of stdout."),
        ("The command-line tool is started with python -m ferry.",
         "Instead of python -m ferry you can run the docs server as ferry-docs."),
        ("The worker is started with celery -A quarry worker.",
         "Instead of cron, the nightly export is started with celery beat."),
        # a change-log line about another thing of the same kind
        ("The health check timeout is 5 seconds.", "Update default timeout from 30 to 60 seconds."),
        # "Stop X" against a text that says more than X: the rest still holds
        ("We use Redis for caching and for the job queue.", "Stop using Redis for caching."),
        # a record that supersedes another record, or one that also names it but is not it
        ("ADR-0012 (accepted): Redis is the session store for Wren.",
         "ADR-0031 supersedes ADR-0013: Wren keeps its sessions in Postgres."),
        ("ADR-0031 supersedes ADR-0012: Wren keeps its sessions in Postgres.",
         "ADR-0040 supersedes ADR-0012 for caching: Redis stays as the cache."),
        # a negation kept, with a detail added
        ("Failed webhooks are not retried.", "Failed webhooks are not retried after 5 minutes."),
        # two values far apart: a holder and the release held, both hold
        ("Larry Hastings is the release manager for Python 3.4.", "Georg Brandl is the release manager for Python 3.2."),
        ("Celery 5.3 supports Django 4.2.", "Celery 5.4 supports Django 5.0."),
        # two things' floors, another scope's floor, one release written two ways
        ("Werkzeug requires Python 3.10 or newer.", "Werkzeug depends on markupsafe 3.0.3 or newer."),
        ("The docs build requires Python 3.9 or newer.", "Osprey requires Python 3.8 or newer."),
        ("Pydantic AI needs pydantic 2.10.0 or newer.", "Pydantic AI needs pydantic 2.10 or newer."),
        ("Ferry requires Python 3.8 or newer; the CLI is started with ferry-cli.", "The minimum is Python 3.9."),
        # a change-log line whose words are not together in the older text, or that has two amounts in its unit
        ("The default health check timeout is 5 seconds.", "Increase default timeout to 10 seconds."),
        ("The default timeout is 5 seconds and the retry delay is 2 seconds.", "Increase default timeout to 10 seconds."),
        # a hand-over of one of two things the older text says, or of another holder's
        ("Hana Kowalski maintains the Wren client library and the docs site.",
         "Hana Kowalski handed the Wren client library over to Lucia Romero, who maintains it now."),
        ("Omar Haddad maintains the Wren client library.",
         "Hana Kowalski handed the Wren client library over to Lucia Romero, who maintains it now."),
        # a version with its tag that names which thing, or another thing moved
        ("Node.js 18 LTS supports fetch.", "Node.js 20 LTS supports fetch."),
        ("The matchmaker runs Node.js 18 LTS.", "We moved the build agents to Node.js 20 LTS."),
        # someone else left, or the older text says more of the one who left
        ("Felix Braun is the head of engineering at Wren.", "Grace Liu left Wren in August."),
        ("Felix Braun lives in Berlin and works at Wren.", "Felix Braun left Wren in August."),
        # the same tool said where it runs, or another thing signed with another tool
        ("Tests run with pytest.", "Tests run with pytest in GitHub Actions."),
        ("Releases are signed with cosign.", "Containers are signed with notation."),
        # two things' cadences
        ("Backups run daily.", "Reports run weekly."),
        ("Stable releases are tagged quarterly.", "Security advisories are published monthly."),
        ("Incident reviews are held every Friday at 15:00.",
         "Postmortems are held every Wednesday at 11:00 so that the APAC team can join."),
    ],
)
def test_project_text_that_changes_another_thing_retires_nothing(old_text: str, new_text: str) -> None:
    for cosine in (0.6, 0.9):
        assert decide(new_text, [("old", old_text, cosine)]).kind != "SUPERSEDE"
        assert decide(old_text, [("old", new_text, cosine)], later={"old"}).kind != "SUPERSEDE"


def test_two_values_in_a_later_first_clause_retire_the_older_frame() -> None:
    decision = decide("Live-ops events start every Thursday at 17:00 UTC, one day earlier than before.",
                      [("old", "Live-ops events start every Friday at 18:00 UTC.", 0.9)])
    assert (decision.kind, decision.reason) == ("SUPERSEDE", "value changed: friday -> thursday; 18 -> 17")
    # the older text's own tail may say something else that holds: not read
    assert decide("Live-ops events start every Thursday at 17:00 UTC, one day earlier than before.",
                  [("old", "Live-ops events start every Friday at 18:00 UTC, hosted by the community team.", 0.9)]
                  ).kind != "SUPERSEDE"


@pytest.mark.parametrize(
    ("old_text", "new_text"),
    [
        ("Victor Stinner sponsors PEP 788.", "Victor Stinner sponsors PEP 791 (math.integer)."),  # which proposal
        ("Donald Stufft is delegate for PEP 792.", "Donald Stufft is delegate for PEP 763."),
        ("Barry Warsaw is on the 2025 term Steering Council.", "Barry Warsaw is on the 2026 term Steering Council."),
        ("3.15.0 alpha 4: Tuesday, 2026-01-13", "3.15.0 alpha 5: Wednesday, 2026-01-14"),  # another heading
    ],
)
def test_a_number_that_says_which_one_retires_nothing(old_text: str, new_text: str) -> None:
    assert decide(new_text, [("m1", old_text, 0.95)]).kind == "ADD"


@pytest.mark.parametrize(
    ("old_text", "new_text", "change"),
    [
        ("PEP 788's sponsor is Victor Stinner.", "PEP 788's sponsor is Petr Viktorin.", "victor stinner -> petr viktorin"),
        ("3.15.0 alpha 4: Tuesday, 2026-01-13", "3.15.0 alpha 4: Wednesday, 2026-01-14", "tuesday -> wednesday"),
        ("Barry Warsaw is on the Steering Council until 2025.", "Barry Warsaw is on the Steering Council until 2026.",
         "2025 -> 2026"),
    ],
)
def test_the_value_beside_a_number_that_says_which_one_still_changes(old_text: str, new_text: str, change: str) -> None:
    decision = decide(new_text, [("m1", old_text, 0.95)])
    assert (decision.kind, decision.reason) == ("SUPERSEDE", f"value changed: {change}")
