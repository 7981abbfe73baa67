"""Values are ordered by world time, not by arrival: the Seattle / Portland / Denver example in every order."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.knowledge.facts import plan
from knotwork.knowledge.models import Fact

JEFF = {"subject": "Jeff", "predicate": "lives_in"}
# (content, memory valid_at, the fact as a caller states it)
STATED = [
    ("Jeff lives in Seattle.", "2024-01-01", {**JEFF, "object": "Seattle", "valid_at": "2024-01-01"}),
    ("Jeff moved to Portland.", "2025-01-01", {**JEFF, "object": "Portland", "valid_at": "2025-01-01"}),
    ("Back in 2023 Jeff lived in Denver.", "2026-03-01", {**JEFF, "object": "Denver", "valid_at": "2023-01-01"}),
]
ORDERS = list(itertools.permutations(range(3)))


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        yield mem


def day(dt: datetime | None) -> str | None:
    return dt.date().isoformat() if dt else None


def current(mem: Knotwork, as_of: str | None = None) -> list[str]:
    return sorted(f.object for f in mem.entity_facts("Jeff", as_of=as_of) if f.predicate == "lives_in")


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(str(i) for i in o) for o in ORDERS])
def test_every_arrival_order_gives_the_same_history(kg: Knotwork, order: tuple[int, ...]) -> None:
    for i in order:
        content, valid_at, fact = STATED[i]
        kg.add(content, valid_at=valid_at, facts=[fact], consolidate=False)
    history = sorted((day(f.valid_at), day(f.invalid_at), f.object) for f in kg.entity_facts("Jeff", include_invalid=True))
    assert history == [
        ("2023-01-01", "2024-01-01", "Denver"),  # a value older than the current one arrives retired
        ("2024-01-01", "2025-01-01", "Seattle"),
        ("2025-01-01", None, "Portland"),
    ]
    assert current(kg) == ["Portland"]
    assert current(kg, "2022-06-01") == []
    assert current(kg, "2023-06-01") == ["Denver"]
    assert current(kg, "2024-06-01") == ["Seattle"]
    assert current(kg, "2025-06-01") == ["Portland"]
    by_object = {f.object: f for f in kg.entity_facts("Jeff", include_invalid=True)}
    # each retired value points at the value that followed it
    assert by_object["Denver"].superseded_by == by_object["Seattle"].id
    assert by_object["Seattle"].superseded_by == by_object["Portland"].id
    assert by_object["Portland"].superseded_by is None and by_object["Portland"].expired_at is None
    assert by_object["Denver"].expired_at is not None  # the store knew at once it was over


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(str(i) for i in o) for o in ORDERS])
def test_the_sentences_alone_never_leave_an_old_value_current(kg_rules: Knotwork, order: tuple[int, ...]) -> None:
    """The same three memories with no facts given: whatever the rules find, one value holds at a time."""
    for i in order:
        content, valid_at, _ = STATED[i]
        kg_rules.add(content, valid_at=valid_at, consolidate=False)
    places = {"Seattle", "Portland", "Denver"}
    assert [p for p in current(kg_rules) if p in places] == ["Portland"]
    assert [p for p in current(kg_rules, "2024-06-01") if p in places] == ["Seattle"]
    assert "Denver" not in current(kg_rules, "2025-06-01")


@pytest.fixture
def kg_rules(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def _stored(fid: str, obj: str, start: str | None, end: str | None) -> Fact:
    t = lambda s: datetime.fromisoformat(s).replace(tzinfo=UTC) if s else None  # noqa: E731
    return Fact(fid, None, "S", "Jeff", "lives_in", obj, obj, "", t(start), t(end), t("2026-01-01"), None, None, "rules")


def test_a_fact_with_no_start_never_reopens_a_stored_one() -> None:
    """"Jeff used to live in Denver" (no start, ended at the memory's time) beside a dated value: the stored
    value keeps its end; the new one ends where the first later value starts."""
    stored = [_stored("A", "Seattle", "2024-01-01", None)]
    p = plan("N", "Denver", None, datetime(2026, 3, 1, tzinfo=UTC), stored, single_valued=True)
    assert p.retire == [] and p.invalid_at == stored[0].valid_at and p.superseded_by == "A"
    undated = [_stored("B", "Boston", None, datetime(2024, 1, 1, tzinfo=UTC).isoformat()[:10])]
    p = plan("N", "Denver", None, datetime(2026, 3, 1, tzinfo=UTC), undated, single_valued=True)
    assert p.retire == []  # before: Boston was "retired" at None, that is, made true forever again


def test_a_value_stated_again_from_an_earlier_time_starts_then_unless_another_holds_between() -> None:
    stored = [_stored("K", "Kyoto", "2024-03-24", None)]
    p = plan("N", "Kyoto", datetime(2024, 3, 4, tzinfo=UTC), None, stored, single_valued=True)
    assert p.repeat_of == "K" and p.start_repeat == datetime(2024, 3, 4, tzinfo=UTC)
    later = plan("N", "Kyoto", datetime(2024, 4, 1, tzinfo=UTC), None, stored, single_valued=True)
    assert later.repeat_of == "K" and later.start_repeat is None  # a later start changes nothing
    between = [_stored("L", "Lima", "2024-03-01", "2024-03-24"), *stored]
    p = plan("N", "Kyoto", datetime(2024, 2, 1, tzinfo=UTC), None, between, single_valued=True)
    assert p.repeat_of == "K" and p.start_repeat is None  # Lima held in between: Kyoto does not reach back over it


@pytest.mark.parametrize("order", [(0, 1), (1, 0)], ids=["in-order", "late-first"])
def test_the_same_value_from_two_memories_starts_at_the_earlier_whatever_arrives_first(kg: Knotwork, order) -> None:
    stated = [("2024-03-04", "Note 3."), ("2024-03-24", "Note 23.")]
    for i in order:
        at, text = stated[i]
        kg.add(f"Jeff lives in Kyoto. {text}", valid_at=at, facts=[{**JEFF, "object": "Kyoto", "valid_at": at}])
    facts = [f for f in kg.entity_facts("Jeff", include_invalid=True) if f.predicate == "lives_in"]
    assert [(f.object, day(f.valid_at), f.invalid_at) for f in facts] == [("Kyoto", "2024-03-04", None)]
    assert len(facts[0].sources) == 2
    assert current(kg, "2024-03-10T00:00:00Z") == ["Kyoto"]
