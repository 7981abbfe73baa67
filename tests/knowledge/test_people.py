"""A person under a short and a full name ("Bob", "Bob Martinez") is one entity, on both backends; unsafe pairs
(two full names sharing the given name, a place, another workspace, a name that is no given name) stay apart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import AmbiguousId, Knotwork, NotFound, Settings
from knotwork.knowledge.people import full_given, lone_given


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def said(kg: Knotwork, name: str, ws: str = "proj") -> list[str]:
    return sorted(f.fact for f in kg.entity_facts(name, workspace=ws, include_invalid=True))


def mentions(kg: Knotwork, *memory_ids: str) -> list[tuple[str, ...]]:
    by_id = {e.memory_id: e.entities for e in kg.episodes(workspace="proj", limit=50)}
    return [by_id[m] for m in memory_ids]


def names(kg: Knotwork, ws: str = "proj") -> list[str]:
    return sorted(h.entity.name for h in kg.search_nodes("Bob Alice Jordan Harbor", workspace=ws, limit=50))


def test_the_shapes_that_may_pair() -> None:
    assert lone_given("Bob", None) == "bob" and full_given("Bob Martinez", None) == "bob"
    assert full_given("Sean O'Brien", "person") == "sean" and full_given("Mary J. Watson", None) == "mary"
    assert full_given("Denver Mint", None) is None and full_given("King Ghidorah", None) is None  # no surname
    assert lone_given("Jordan", "place") is None and full_given("Jordan Lee", "technology") is None
    assert lone_given("Harbor", None) is None and full_given("Harbor Labs", None) is None  # no given name
    assert full_given("Alice Team", None) is None and full_given("Bob API", None) is None  # not a surname
    assert lone_given("Bob Martinez", None) is None and full_given("Bob", None) is None


def test_a_short_name_after_the_full_one_resolves_to_it(kg: Knotwork) -> None:
    full = kg.add("Bob Martinez joined the platform team.", workspace="proj")
    short = kg.add("Bob fixed the login bug.", workspace="proj",
                   facts=[{"subject": "Bob", "predicate": "owns", "object": "login service"}])
    bob = kg.entity("Bob Martinez", workspace="proj")
    assert kg.entity("Bob", workspace="proj").id == bob.id and "Bob" in bob.aliases
    assert "Bob Martinez owns login service" in said(kg, "Bob Martinez")
    assert mentions(kg, full.id, short.id) == [("Bob Martinez", "platform team"), ("Bob Martinez", "login service")]
    assert names(kg).count("Bob Martinez") == 1 and "Bob" not in names(kg)


def test_a_full_name_after_the_short_one_absorbs_it(kg: Knotwork) -> None:
    first = kg.add("Bob fixed the login bug.", workspace="proj",
                   facts=[{"subject": "Bob", "predicate": "owns", "object": "login service"}])
    short_id = kg.entity("Bob", workspace="proj").id
    kg.add("Bob Martinez joined the platform team.", workspace="proj")
    bob = kg.entity("Bob Martinez", workspace="proj")
    assert bob.id != short_id and bob.aliases == ("Bob",)
    assert kg.entity("Bob", workspace="proj").id == bob.id
    with pytest.raises(NotFound):
        kg.entity(short_id)
    assert said(kg, "Bob Martinez") == ["Bob Martinez member of platform team", "Bob Martinez owns login service"]
    assert mentions(kg, first.id) == [("Bob Martinez", "login service")]  # its mention moved
    assert bob.mentions == 2
    assert "owns login service" in bob.summary
    # one node on the graph, and later mentions land on it
    kg.add("Bob reviewed the migration.", workspace="proj",
           facts=[{"subject": "Bob", "predicate": "reviewed", "object": "migration"}])
    assert "Bob Martinez reviewed migration" in said(kg, "Bob Martinez")
    assert [n for n in names(kg) if n.startswith("Bob")] == ["Bob Martinez"]


def test_both_names_in_one_memory_are_one_entity(kg: Knotwork) -> None:
    kg.add("Bob fixed it.", workspace="proj", entities=["Bob", "Bob Martinez"],
           facts=[{"subject": "Bob", "predicate": "owns", "object": "login service"}])
    assert kg.entity("Bob", workspace="proj").name == "Bob Martinez"
    assert said(kg, "Bob Martinez") == ["Bob Martinez owns login service"]


def test_two_full_names_sharing_the_given_name_leave_it_ambiguous(kg: Knotwork) -> None:
    kg.add("Alice Chen is the tech lead.", workspace="proj", entities=["Alice Chen"])
    kg.add("Alice Wong joined.", workspace="proj", entities=["Alice Wong"])
    kg.add("Alice merged the fix.", workspace="proj", facts=[{"subject": "Alice", "predicate": "merged", "object": "PR-8"}])
    alice = kg.entity("Alice", workspace="proj")
    assert alice.name == "Alice"  # an entity of its own: neither full name takes it
    assert said(kg, "Alice") == ["Alice merged PR-8"]
    assert said(kg, "Alice Chen") == [] and said(kg, "Alice Wong") == []
    assert kg.entity("Alice Chen", workspace="proj").aliases == () == kg.entity("Alice Wong", workspace="proj").aliases


def test_a_second_full_name_stops_new_mentions_going_to_the_first(kg: Knotwork) -> None:
    kg.add("Alice Chen is the tech lead.", workspace="proj", entities=["Alice Chen"])
    kg.add("Alice reviewed the PR.", workspace="proj", facts=[{"subject": "Alice", "predicate": "reviewed", "object": "PR-7"}])
    assert said(kg, "Alice Chen") == ["Alice Chen reviewed PR-7"]  # only one Alice then
    kg.add("Alice Wong joined.", workspace="proj", entities=["Alice Wong"])
    assert said(kg, "Alice Wong") == []
    kg.add("Alice merged the fix.", workspace="proj", facts=[{"subject": "Alice", "predicate": "merged", "object": "PR-8"}])
    assert said(kg, "Alice Chen") == ["Alice Chen reviewed PR-7"] and said(kg, "Alice Wong") == []
    with pytest.raises(AmbiguousId):  # "Alice" now names both the old alias and the new entity: no guess
        kg.entity("Alice", workspace="proj")
    (own,) = [h.entity for h in kg.search_nodes("Alice", workspace="proj", limit=20) if h.entity.name == "Alice"]
    assert [f.fact for f in kg.entity_facts(own.id, workspace="proj")] == ["Alice merged PR-8"]


@pytest.mark.parametrize("place_first", [True, False])
def test_a_place_and_a_person_stay_apart(kg: Knotwork, place_first: bool) -> None:
    def place() -> None:
        kg.add("We opened an office in Jordan.", workspace="proj", entities=[{"name": "Jordan", "type": "place"}],
               facts=[{"subject": "Amman office", "predicate": "located_in", "object": "Jordan"}])

    def person() -> None:
        kg.add("Jordan Lee owns billing.", workspace="proj", entities=[{"name": "Jordan Lee", "type": "person"}])

    (place if place_first else person)()
    (person if place_first else place)()
    jordan, lee = kg.entity("Jordan", workspace="proj"), kg.entity("Jordan Lee", workspace="proj")
    assert jordan.id != lee.id and jordan.type == "place" and lee.aliases == ()
    assert said(kg, "Jordan") == ["Amman office located in Jordan"]


def test_workspaces_never_merge(kg: Knotwork) -> None:
    kg.add("Bob fixed the login bug.", workspace="a", entities=["Bob"])
    kg.add("Bob Martinez joined.", workspace="b", entities=["Bob Martinez"])
    kg.add("Bob again.", workspace="a", entities=["Bob"])
    assert kg.entity("Bob", workspace="a").name == "Bob"
    assert kg.entity("Bob Martinez", workspace="b").aliases == ()
    with pytest.raises(NotFound):
        kg.entity("Bob", workspace="b")


def test_names_that_are_not_given_names_do_not_pair(kg: Knotwork) -> None:
    kg.add("Harbor ships on Fridays.", workspace="proj", entities=["Harbor"])
    kg.add("Harbor Labs builds Harbor.", workspace="proj", entities=["Harbor Labs"])
    assert kg.entity("Harbor", workspace="proj").id != kg.entity("Harbor Labs", workspace="proj").id
