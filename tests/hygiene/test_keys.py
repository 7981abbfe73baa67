"""One key read in any sentence shape: two memories that give one attribute of one thing two values supersede,
whatever their wording; two keys, two roles, a list that grew, a release of another version retire nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.hygiene.consolidate import decide
from knotwork.hygiene.keys import key_change, statements

# (older, newer, the change told): one key, two shapes, two values of one type
CHANGES = [
    pytest.param("Kubernetes 1.15's next patch release will be 1.15.3.",
                 "The upcoming patch release for the Kubernetes 1.15 branch is 1.15.4.", "1.15.3 -> 1.15.4",
                 id="possessive-to-for"),
    pytest.param("The next Kubernetes 1.14 patch release is 1.14.7.",
                 "Kubernetes 1.14's next patch release will be 1.14.8.", "1.14.7 -> 1.14.8", id="next-to-possessive"),
    pytest.param("Support for Kubernetes 1.20 ends on 2021-12-30.",
                 "The end-of-life date of Kubernetes 1.20 is 2022-02-28.", "2021-12-30 -> 2022-02-28",
                 id="date-said-with-its-verb"),
    pytest.param("The status of the Python 3.13 branch is feature.", "Python 3.13 is in the prerelease phase.",
                 "feature -> prerelease", id="status-phase"),
    pytest.param("Nadia Petrov is the tech lead of Tamarack.",
                 "Tom Eriksen is Tamarack's tech lead; Nadia Petrov moved to the payments team.",
                 "Nadia Petrov -> Tom Eriksen", id="holder-possessive"),
    pytest.param("Asset bundling for Tamarack: Laravel Mix.", "Tamarack's asset bundling is Vite.",
                 "Laravel Mix -> Vite", id="heading"),
    pytest.param("Osprey's minimal supported Python version is 3.6.", "Osprey requires Python 3.8 or newer.",
                 "3.6 -> 3.8", id="floor-said-with-its-verb"),
    pytest.param("Lars Nilsen is the firmware lead.", "Priya Shah has taken over as firmware lead from Lars Nilsen.",
                 "Lars Nilsen -> Priya Shah", id="role-taken"),
    pytest.param("The minimal supported Python version is 3.7.", "Osprey requires Python 3.8 or newer.", "3.7 -> 3.8",
                 id="the-subject-left-out"),
    pytest.param("The check interval for paid plans is 60 seconds.",
                 "Paid plans get a 30-second check interval from June on.", "60 seconds -> 30 second", id="an-amount-had"),
    pytest.param("Felix Braun is the head of engineering at Sable.",
                 "Felix Braun left Sable in August; Grace Liu is the head of engineering.", "Felix Braun -> Grace Liu",
                 id="a-role-whose-subject-is-left-out"),
    pytest.param("Lumen's minimum supported iOS version is iOS 15.",
                 "Decision (ADR-014): we drop iOS 15; the minimum supported iOS version is iOS 16.", "iOS 15 -> iOS 16",
                 id="one-name-another-version"),
    pytest.param("Payments go through Adyen.", "Payments go through Stripe; Adyen was switched off on May 10.",
                 "Adyen -> Stripe", id="verb-and-preposition"),
    pytest.param("Harbor's primary database is MySQL 5.7, running on a single RDS instance.",
                 "PostgreSQL 16 is Harbor's primary database.", "MySQL 5.7 -> PostgreSQL 16", id="value-first"),
]

# Two statements that both hold: another key, another role, the same value again, a list, a value made exact
BOTH_HOLD = [
    pytest.param("The next Kubernetes 1.15 patch release is 1.15.3.",
                 "The upcoming patch release for the Kubernetes 1.16 branch is 1.16.1.", id="version-in-subject"),
    pytest.param("Keiko Sato is the release manager for Heron 4.2.", "Daniel Osei is Heron 4.3's release manager.",
                 id="release-manager-for-another-release"),
    pytest.param("Dana Reyes is Harbor's tech lead.", "Dana Reyes is Harbor's release manager.", id="two-roles"),
    pytest.param("Alice Chen is a maintainer of Harbor.", "Marcus Lee is a maintainer of Harbor.", id="a-role-of-many"),
    pytest.param("We use Postgres for orders.", "We use Redis for caching.", id="two-stores"),
    pytest.param("Harbor's primary database is PostgreSQL.", "Harbor's cache is Redis.", id="two-attributes"),
    pytest.param("The SIG Release chairs are Ann Lee and Bo Kim.",
                 "The SIG Release chairs are Ann Lee, Bo Kim and Cy Diaz.", id="a-list-that-grew"),
    pytest.param("Python 3.11's end-of-life date is 2027-10.", "Python 3.11's end-of-life date is 2027-10-24.",
                 id="a-date-made-exact"),
    pytest.param("Juraci Kröhling's employer is Grafana.", "Juraci Kröhling's employer is Grafana Labs.",
                 id="a-name-in-full"),
    pytest.param("Tamarack's database is MySQL 8.0.", "Tamarack's database is PostgreSQL 16 on RDS.",
                 id="a-value-with-more-said-after-it"),
    pytest.param("The API is public.", "The API is stable.", id="two-properties"),
    pytest.param("Free plans get a 5-minute check interval.", "Paid plans get a 30-second check interval.",
                 id="two-plans"),
    pytest.param("Fred Riss is the release manager for LLDB in llvm-project.",
                 "Duncan Smith is the release manager for llvm-project.", id="a-narrower-subject"),
    pytest.param("In Harbor, the rate limit is 100 requests per minute.",
                 "In Quay, the rate limit is 300 requests per minute.", id="an-opener-of-scope"),
    pytest.param("The release manager is Hugo van Kemenade.", "Python 3.14's release manager is Thomas Wouters.",
                 id="a-subject-with-a-version-left-out"),
    pytest.param("Harbor's database might be PostgreSQL.", "Harbor's database is MySQL.", id="a-hedge"),
]


@pytest.mark.parametrize(("old", "new", "change"), CHANGES)
def test_one_key_in_two_shapes_with_two_values_supersedes(old: str, new: str, change: str) -> None:
    assert key_change(old, new) == change
    # the same pair read with the stored text the later one (an older value arriving late): the change is told
    # from the stored text to the new one, as every rule tells it
    before, after = change.split(" -> ")
    assert key_change(new, old, old_is_later=True) == f"{after} -> {before}"
    assert decide(new, [("old", old, 0.9)]).kind == "SUPERSEDE"


@pytest.mark.parametrize(("first", "second"), BOTH_HOLD)
def test_statements_that_both_hold_have_two_keys_or_one_value(first: str, second: str) -> None:
    assert key_change(first, second) is None
    assert key_change(second, first) is None


def test_an_earlier_text_that_says_more_is_not_retired_by_one_of_its_statements() -> None:
    """The earlier text is read whole: retiring it would lose what else it says; the later one is read clause by
    clause."""
    more = "Harbor's primary database is MySQL 5.7; backups run nightly."
    one = "Harbor's primary database is PostgreSQL 16."
    assert key_change(more, one) is None
    assert key_change(one, more) == "PostgreSQL 16 -> MySQL 5.7"  # "more" is the later: one clause changed it
    assert key_change(one, more, old_is_later=True) is None  # "more" stored later, "one" arriving late: whole


def test_the_key_is_the_same_in_every_shape_and_keeps_the_subjects_version() -> None:
    shapes = ["Kubernetes 1.15's next patch release will be 1.15.3.",
              "The upcoming patch release for the Kubernetes 1.15 branch is 1.15.3.",
              "The next Kubernetes 1.15 patch release is 1.15.3."]
    read = [statements(s) for s in shapes]
    assert all(len(r) == 1 and r[0] is not None for r in read)
    assert len({r[0].key for r in read}) == 1 and {r[0].kind for r in read} == {"version"}
    assert statements("The next Kubernetes 1.16 patch release is 1.16.1.")[0].key != read[0][0].key


@pytest.fixture
def kmem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


OLD = "Kubernetes 1.15's next patch release will be 1.15.3."
NEW = "The upcoming patch release for the Kubernetes 1.15 branch is 1.15.4."


@pytest.mark.parametrize("order", ["in order", "late"])
def test_a_change_in_another_shape_retires_the_older_memory_in_the_store(kmem: Knotwork, order: str) -> None:
    if order == "in order":
        old = kmem.add(OLD, workspace="k8s", valid_at="2019-08-01T00:00:00Z")
        new = kmem.add(NEW, workspace="k8s", valid_at="2019-08-20T00:00:00Z")
        assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", old.id, "value changed: 1.15.3 -> 1.15.4")
    else:  # the older value arrives after the newer one: it arrives retired
        new = kmem.add(NEW, workspace="k8s", valid_at="2019-08-20T00:00:00Z")
        old = kmem.add(OLD, workspace="k8s", valid_at="2019-08-01T00:00:00Z")
        assert (old.decision, old.touched) == ("ADD", new.id)
        assert old.reason.startswith(f"stored retired: {new.id} states a later value (1.15.3 then 1.15.4)")
    assert kmem.get(old.id).invalid_at is not None
    assert kmem.get(new.id).invalid_at is None
    assert [r.memory.id for r in kmem.related(old.id, types=["supersedes"], direction="incoming")] == [new.id]
    # a release of another branch in the same shapes is another key: it retires nothing
    other = kmem.add("The next Kubernetes 1.16 patch release is 1.16.1.", workspace="k8s",
                     valid_at="2019-08-21T00:00:00Z")
    assert other.decision == "ADD" and kmem.get(new.id).invalid_at is None
