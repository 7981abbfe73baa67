"""Who holds what, read in any wording (knotwork.hygiene.seats), a version floor in more wordings
(changes_read.floor_change) and project pages that change a value without repeating the older sentence
(knotwork.hygiene.project_read): each change retires the older memory in either arrival order, also below the
rules' cosine floor where it keys on a name; neighbours that can both hold retire nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.hygiene import project_read, seats
from knotwork.hygiene.changes_read import floor_change
from knotwork.hygiene.consolidate import CANDIDATE_COSINE, READER_COSINE, decide

# (older, newer, the change told from older to newer)
SEATS = [
    pytest.param("Ana Ribeiro is Bramble's representative on the ecosystem steering council.",
                 "Lukas Meyer now represents Bramble on the ecosystem steering council.", "ana ribeiro -> lukas meyer",
                 id="representative-to-represents"),
    pytest.param("Kittiwake Widgets is represented on the SSC by Ida Dahl.",
                 "Kittiwake Widgets' SSC rep: Sylvie Corre. Ida Dahl stepped back.", "ida dahl -> sylvie corre",
                 id="passive-to-heading"),
    pytest.param("Zane Sailor represents Kittiwake Server on the Software Steering Council.",
                 "The Server seat on the Software Steering Council is vacant while the subproject picks a new "
                 "representative.", "zane sailor -> vacant", id="a-seat-left-vacant"),
    pytest.param("The Kittiwake Server seat on the SSC belongs to Zane Sailor.",
                 "Vidar Fosse is the Kittiwake Server representative on the SSC.", "zane sailor -> vidar fosse",
                 id="belongs-to"),
    pytest.param("Zane Sailor represents Kittiwake Server on the Software Steering Council.",
                 "Vidar Fosse is the Kittiwake Server representative on the SSC.", "zane sailor -> vidar fosse",
                 id="a-body-and-its-initials"),
    pytest.param("The end user seat on the Gannet steering committee is held by Priya Raman (Optum).",
                 "Priya Raman stepped down; the end user seat on the steering committee passed to Jonas Berg of SVA.",
                 "priya raman -> jonas berg", id="a-seat-passed-on"),
    pytest.param("Bruno Grant sits on the foundation's governing board for the Executive Council.",
                 "Bruno Grant represents AWS on the foundation's governing board.", "the Executive Council -> AWS",
                 id="one-person-another-seat"),
    pytest.param("Mina Okafor is a reviewer on Plover.", "Mina Okafor was promoted to committer.",
                 "reviewer -> committer", id="promoted"),
    pytest.param("Rafael Costa is one of the releasers; he signs release tags with his GPG key.",
                 "Rafael Costa moved to the emeritus releasers.", "releaser -> emeritus", id="moved-to-emeritus"),
    pytest.param("Andrea Ferri's seat on the Alder Governing Committee runs until Feb 2024.",
                 "Andrea Ferri was re-elected; her Governing Committee term now ends in Feb 2026.",
                 "feb 2024 -> feb 2026", id="a-term-renewed"),
    pytest.param("Tomasz Lewicki works at VMware.", "Tomasz Lewicki's employer: Stacklok.", "VMware -> Stacklok",
                 id="employer-heading"),
    pytest.param("Tomasz Lewicki is at Google.", "Tomasz Lewicki works at VMware.", "Google -> VMware",
                 id="employer-is-at"),
    pytest.param("Andrew Pike works at CloudBees.",
                 "Andrew Pike's employer is Datadog; he was elected again to the Governing Committee in Feb 2025.",
                 "CloudBees -> Datadog", id="employer-in-a-later-clause"),
    pytest.param("Kenji Sato's address in the MAINTAINERS file is kenji.sato@amazon.com.",
                 "Kenji Sato's MAINTAINERS entry: kenji@fly.io.", "kenji.sato@amazon.com -> kenji@fly.io",
                 id="an-address"),
    pytest.param("Plover vulnerabilities are reported by mailing security@plover.io.",
                 "Security issues are reported through GitHub security advisories; the security@ address is no "
                 "longer used.", "security@plover.io -> none", id="an-address-given-up"),
]

BOTH_HOLD = [
    pytest.param("Sylvie Corre still represents Kittiwake Widgets on the SSC.",
                 "Kittiwake Widgets' SSC rep: Sylvie Corre.", id="the-same-holder-restated"),
    pytest.param("Vidar Fosse is the Kittiwake Server representative on the SSC.",
                 "Ida Dahl is the Kittiwake Widgets representative on the SSC.", id="two-seats"),
    pytest.param("Ana Ribeiro is Bramble's representative on the ecosystem steering council.",
                 "Ana Ribeiro is Bramble's representative on the release council.", id="two-bodies"),
    pytest.param("Dawn Ito is a committer on Plover.", "Dawn Ito is a maintainer of Plover.",
                 id="two-standings-no-word-of-change"),
    pytest.param("Dawn Ito is a committer on Plover.", "Dawn Ito was promoted to maintainer of Gull.",
                 id="a-standing-in-another-project"),
    pytest.param("Luca Brandt is one of Plover's committers.", "Mina Okafor was promoted to committer.",
                 id="two-people"),
    pytest.param("Chidi Patel sits on the Governing Committee while Dibya Menon is on leave.",
                 "Dibya Menon is with Adobe now.", id="a-stand-in"),
    pytest.param("Tomasz Lewicki is at Google.", "Tomasz Lewicki is at KubeCon.", id="two-loose-places"),
    pytest.param("Alice Chen works at Google.", "Alice Chen is with Sarah Lee.", id="company-after-a-job"),
    pytest.param("Kenji Sato's work email is kenji@amazon.com.", "Kenji Sato's personal email is kenji@fly.io.",
                 id="two-addresses"),
    pytest.param("Andrea Ferri's term on the Alder Governing Committee runs until Feb 2026.",
                 "Andrea Ferri might be re-elected; her term would then end in Feb 2028.", id="a-hedge"),
]


@pytest.mark.parametrize(("old", "new", "change"), SEATS)
def test_a_seat_standing_term_employer_or_address_changed_in_any_wording(old: str, new: str, change: str) -> None:
    assert seats.change(old, new) == change
    before, after = change.split(" -> ")
    assert seats.change(new, old, old_is_later=True) == f"{after} -> {before}"  # the older one arriving late
    # decided at the rules' floor and below it (the name weighs little on the cosine)
    for cosine in (0.9, (CANDIDATE_COSINE + READER_COSINE) / 2):
        assert decide(new, [("old", old, cosine)]).kind == "SUPERSEDE"


@pytest.mark.parametrize(("first", "second"), BOTH_HOLD)
def test_seats_that_can_both_hold_retire_nothing(first: str, second: str) -> None:
    assert seats.change(first, second) is None and seats.change(second, first) is None
    assert decide(second, [("old", first, 0.5)]).kind == "ADD"


def test_a_loose_later_place_is_a_visit_not_a_new_employer_without_now() -> None:
    # "is at C" after a job is where the person is, not whom they work for; with "now" it is a move
    assert seats.change("Alice Chen works at Google.", "Alice Chen is at KubeCon.") is None
    assert decide("Alice Chen is at KubeCon.", [("old", "Alice Chen works at Google.", 0.5)]).kind == "ADD"
    assert seats.change("Alice Chen works at Google.", "Alice Chen is now at Stripe.") == "Google -> Stripe"


def test_a_move_to_emeritus_takes_the_persons_other_clauses_with_it_and_nothing_else() -> None:
    assert seats.change("Rafael Costa is one of the releasers; Marta Novak signs the tags.",
                        "Rafael Costa moved to the emeritus releasers.") is None  # another person's clause stays
    assert seats.change("Mina Okafor is a reviewer on Plover; she triages CI.",
                        "Mina Okafor was promoted to committer.") is None  # an active standing: the clause may hold


FLOORS = [
    pytest.param("Bramble requires Python 3.10 or newer.", "Oldest supported Python for Bramble: 3.11.", id="oldest"),
    pytest.param("Oldest supported Python for Bramble: 3.11.",
                 "Python 3.11 support dropped in 2025 Q4; Bramble now needs Python 3.12.", id="needs"),
    pytest.param("The oldest NumPy Bramble supports is 1.23.", "NumPy floor raised to 1.25 this quarter.",
                 id="floor-raised"),
    pytest.param("Bramble's minimum NumPy version is 1.24.", "NumPy 2.0 is the minimum from the 2025 Q4 release on.",
                 id="version-first"),
    pytest.param("The minimum supported Node.js version is now 20.",
                 "Breaking: the minimum supported Node.js version is now 22.12, the first release where require() "
                 "can load an ES module.", id="a-tag-and-an-aside"),
]


@pytest.mark.parametrize(("old", "new"), FLOORS)
def test_a_version_floor_in_more_wordings(old: str, new: str) -> None:
    assert floor_change(old, new) is not None
    later = decide(old, [("new", new, 0.45)], later={"new"})  # the older arriving late, below the rules' floor
    assert (decide(new, [("old", old, 0.45)]).kind, later.kind) == ("SUPERSEDE", "SUPERSEDE")


@pytest.mark.parametrize(("old", "new"), [
    pytest.param("The docs build requires Python 3.9 or newer.", "Bramble now needs Python 3.12.", id="another-scope"),
    pytest.param("CI runs the test suite on Node.js 18, 20 and 22.", "The minimum supported Node.js version is now 20.",
                 id="a-list-tested"),
    pytest.param("NumPy floor raised to 1.25 this quarter.", "SciPy floor raised to 1.11 this quarter.",
                 id="another-dependency"),
])
def test_floors_of_two_things_or_scopes_both_hold(old: str, new: str) -> None:
    assert floor_change(old, new) is None and floor_change(new, old) is None


PROJECT = [
    pytest.param("AEP-0090 (matrix fan-out for pipeline tasks) is implementable.",
                 "AEP-0090 is implemented: matrix fan-out shipped in Pipelines v0.53.", id="a-status"),
    pytest.param("The leadership directory is the people.md page at the root of the governance repository.",
                 "This page has been moved to docs/people.md; the directory is generated from structured data now.",
                 id="a-file-moved"),
    pytest.param("Repeatable jobs are created with the repeat option on Queue#add.",
                 "Repeat option on Queue#add removed; recurring jobs are created with job schedulers instead.",
                 id="an-option-removed"),
    pytest.param("The package ships both a CommonJS and an ES module build.",
                 "Sorrel is ESM-only from 6.0; no CommonJS build is shipped.", id="a-build-no-longer-shipped"),
    pytest.param("The LTS team manages the process and content of Sorrel's LTS releases.",
                 "The Release team manages the process and content of LTS releases.", id="a-team-took-a-duty"),
    pytest.param("The documentation is built with Jupyter Book 1 and published to GitHub Pages.",
                 "Updated the docs to Jupyter Book 2; they are still published to GitHub Pages.",
                 id="a-tool-version-said-of-what-it-serves"),
    pytest.param("Front-end assets are compiled with Laravel Mix.",
                 "Asset bundling: Vite (Laravel Mix removed in the January cleanup).", id="a-tool-removed-said-aside"),
    pytest.param("The dashboard's dev server listens on port 3000 by default.",
                 "Default PORT of the dashboard: 8080, and the PORT environment variable still overrides it.",
                 id="a-port"),
    pytest.param("The premium subscription costs $4.99 per month.",
                 "Premium: $5.99/month starting January; existing subscribers keep their old price until renewal.",
                 id="a-price"),
]


@pytest.mark.parametrize(("old", "new"), PROJECT)
def test_a_project_page_change_retires_the_older_memory(old: str, new: str) -> None:
    told = project_read.change(old, new)
    assert told is not None
    before, after = told.split(" -> ")
    assert project_read.change(new, old, old_is_later=True) == f"{after} -> {before}"
    assert decide(new, [("old", old, 0.8)]).kind == "SUPERSEDE"
    assert decide(old, [("new", new, 0.8)], later={"new"}).kind == "SUPERSEDE"


@pytest.mark.parametrize(("old", "new"), [
    pytest.param("AEP-0091 is implementable.", "AEP-0090 is implemented.", id="another-proposal"),
    pytest.param("Worker#resume() returns a Promise and must be awaited.",
                 "Repeat option on Queue#add removed.", id="another-option-removed"),
    pytest.param("Sorrel supports Node.js 18 and later.", "Updated the CI to Node.js 22.", id="another-thing-updated"),
    pytest.param("The docs team maintains the website.", "The infra team maintains the servers.", id="two-duties"),
    pytest.param("The guide links to docs/people.md and docs/teams.md.", "This page has been moved to docs/people.md.",
                 id="a-text-of-two-files"),
    pytest.param("We use Redis for caching and Postgres for orders.", "Redis removed.", id="a-text-of-two-tools"),
    pytest.param("We cache sessions with Redis.", "Redis was not removed.", id="not-removed"),
    pytest.param("The server listens on port 80.", "The dev server listens on port 3000.", id="two-servers"),
    pytest.param("The API server listens on port 8000.", "The dashboard listens on port 3000.", id="another-server"),
    pytest.param("The basic plan costs $2.99 per month.", "Premium: $5.99/month.", id="two-plans"),
    pytest.param("The premium plan costs $4.99 per month.", "The premium plan costs $49 per year.", id="two-periods"),
])
def test_project_pages_that_can_both_hold_retire_nothing(old: str, new: str) -> None:
    assert project_read.change(old, new) is None


@pytest.fixture
def smem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


OLD = "Tomasz Lewicki works at VMware."
NEW = "Tomasz Lewicki's employer: Stacklok."


@pytest.mark.parametrize("order", ["in order", "late"])
def test_an_employer_below_the_cosine_floor_retires_the_older_memory_in_the_store(smem: Knotwork, order: str) -> None:
    if order == "in order":
        old = smem.add(OLD, workspace="gannet", valid_at="2024-01-15T00:00:00Z")
        new = smem.add(NEW, workspace="gannet", valid_at="2024-05-20T00:00:00Z")
        assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", old.id, "value changed: VMware -> Stacklok")
    else:  # the older value arrives after the newer one: it arrives retired
        new = smem.add(NEW, workspace="gannet", valid_at="2024-05-20T00:00:00Z")
        old = smem.add(OLD, workspace="gannet", valid_at="2024-01-15T00:00:00Z")
        assert (old.decision, old.touched) == ("ADD", new.id)
    assert smem.get(old.id).invalid_at is not None and smem.get(new.id).invalid_at is None
    # another person's employer, and the same person's seat, retire nothing
    other = smem.add("Helen Achebe works at Red Hat.", workspace="gannet", valid_at="2024-06-01T00:00:00Z")
    seat = smem.add("Tomasz Lewicki sits on the Gannet steering committee.", workspace="gannet",
                    valid_at="2024-06-02T00:00:00Z")
    assert (other.decision, seat.decision) == ("ADD", "ADD")
    assert smem.get(new.id).invalid_at is None


# (older, newer): a schedule in its spelled-out forms, a cadence with a part of the day, one of several versions
# moved, a maximum in two shapes
MORE = [
    pytest.param("The docs working group meets every two weeks on Tuesday, 9:30-10:30am PST.",
                 "Docs WG calls: Tuesdays, every two weeks, alternating between 10:30-11:00 Pacific and 15:30-16:00 "
                 "Central European.", id="a-schedule-spelled-out"),
    pytest.param("The Heron community meeting runs bi-weekly on Thursday, 8am to 9am Pacific.",
                 "The Heron community meeting is bi-weekly on Tuesday at 8am Pacific.", id="a-meeting-that-runs"),
    pytest.param("Model retraining for the ranking model runs weekly on Sunday night.",
                 "Model retraining for the ranking model runs daily at 03:00.", id="a-cadence-with-a-part-of-the-day"),
    pytest.param("Merchant payouts go out every Tuesday and Friday.", "Merchant payouts go out daily on business days.",
                 id="business-days"),
    pytest.param("The backend runs Django 4.2 on Python 3.11.",
                 "The backend runs Python 3.12 since the spring upgrade; Django stays on 4.2.",
                 id="one-of-two-versions-moved"),
    pytest.param("The maximum party size is 4 players.", "Parties can now have up to 6 players.", id="a-maximum"),
    pytest.param("CI runs the test suite on Node.js 18, 20 and 22.", "CI verifies Node.js 22 and 24.",
                 id="the-versions-a-check-runs-on"),
    pytest.param("The front end is written in Vue 2 with Buefy components.",
                 "The front end is Vue 3 with Headless UI components.", id="written-in-as-is"),
]


@pytest.mark.parametrize(("old", "new"), MORE)
def test_more_wordings_of_one_value_changed_retire_the_older_memory(old: str, new: str) -> None:
    assert decide(new, [("old", old, 0.8)]).kind == "SUPERSEDE"
    assert decide(old, [("new", new, 0.8)], later={"new"}).kind == "SUPERSEDE"


@pytest.mark.parametrize(("old", "new"), [
    pytest.param("The docs working group meets every two weeks on Tuesday at 9:30 PT.",
                 "Docs WG calls: Tuesdays, every two weeks, at 9:30 PT.", id="one-schedule-two-wordings"),
    pytest.param("Merchant payouts go out every Tuesday.", "Merchant payouts go out on Tuesday mornings.",
                 id="a-part-of-the-day-made-exact"),
    pytest.param("The backend runs Django 4.2 on Python 3.11.",
                 "The backend docs mention Python 3.12 and Django 4.2 as examples.", id="versions-said-of-another-thing"),
    pytest.param("The maximum party size is 4 players.", "Guilds can now have up to 60 players.", id="another-maximum"),
    pytest.param("CI runs the test suite on Node.js 18, 20 and 22.", "CI verifies Python 3.12 and 3.13.",
                 id="the-versions-of-another-thing"),
    pytest.param("CI runs the test suite on Node.js 18, 20 and 22.", "CI tests Node.js 18, 20 and 22.",
                 id="the-same-versions"),
])
def test_more_wordings_that_change_nothing_retire_nothing(old: str, new: str) -> None:
    assert decide(new, [("old", old, 0.8)]).kind != "SUPERSEDE"
    assert decide(old, [("new", new, 0.8)], later={"new"}).kind != "SUPERSEDE"


@pytest.mark.parametrize("first", ["older", "later"])
def test_a_late_value_between_two_stored_ones_retires_the_older_and_is_retired_by_the_later(
        smem: Knotwork, first: str) -> None:
    """Read the Docs (February), Netlify (June), and an older note arriving last: GitHub Pages (March). The note
    retires the first value and arrives retired by the last: two links in one add."""
    texts = {"older": ("Docs are hosted on Read the Docs.", "2024-02-02T00:00:00Z"),
             "later": ("Docs are hosted on Netlify with deploy previews for every pull request.", "2024-06-03T00:00:00Z")}
    stored = {}
    for name in (first, "later" if first == "older" else "older"):
        text, at = texts[name]
        stored[name] = smem.add(text, workspace="juniper", valid_at=at)
    assert smem.get(stored["older"].id).invalid_at is None  # the two stored values are not read as one change
    note = smem.add("Docs are hosted on GitHub Pages.", workspace="juniper", valid_at="2024-03-11T00:00:00Z")
    # the answer says both: which memory it retires and which retires it
    told = f"{note.touched} {note.reason}"
    assert stored["older"].id in told and stored["later"].id in told and "states a later value" in note.reason
    older, middle, later = (smem.get(m.id) for m in (stored["older"], note, stored["later"]))
    assert older.invalid_at is not None and middle.invalid_at is not None and later.invalid_at is None
    assert [r.memory.id for r in smem.related(older.id, types=["supersedes"], direction="incoming")] == [note.id]
    assert [r.memory.id for r in smem.related(note.id, types=["supersedes"], direction="incoming")] == [later.id]
    # a note of the same value's date with nothing stored after it retires only the older one
    plain = smem.add("Docs are hosted on GitHub Pages.", workspace="other", valid_at="2024-03-11T00:00:00Z")
    assert plain.decision == "ADD" and smem.get(plain.id).invalid_at is None
