"""The limits (knotwork.limits): checked before any work, quoted briefly, documented; and a property test
that the API's add and update accept any input or refuse it with a knotwork error, never another one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import knotwork
from knotwork import Conflict, InvalidInput, Knotwork, Settings, limits
from knotwork.domain import rules
from knotwork.errors import quote

CONCEPTS = (Path(__file__).resolve().parents[1] / "docs" / "concepts.md").read_text(encoding="utf-8")
MAX_MESSAGE = 600


@pytest.fixture(scope="module")
def mem() -> Iterator[Knotwork]:
    with knotwork.open(":memory:", settings=Settings(embedder="none", kg_extract="none")) as m:
        yield m


def test_every_limit_is_in_the_docs_with_its_value() -> None:
    section = CONCEPTS[CONCEPTS.index("## Limits") :]
    for name, value in vars(limits).items():
        if name.isupper():
            shown = f"{value:,}"
            assert f"`{name}`" in section and shown in section, (name, shown)


def test_quote_is_bounded_for_any_value() -> None:
    assert quote("w" * 10_000_000).endswith("… (10,000,000 characters)")
    assert len(quote("w" * 10_000_000)) < 2 * limits.QUOTE_CHARS
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert len(quote(deep)) <= limits.QUOTE_CHARS + 40
    assert len(quote({str(i): "v" * 1000 for i in range(1000)})) <= limits.QUOTE_CHARS + 40
    assert quote("short") == "'short'"


def test_json_depth_stops_early_on_deep_values() -> None:
    deep: Any = "leaf"
    for _ in range(100_000):
        deep = {"a": deep}
    assert rules.json_depth(deep, 32) == 33
    assert rules.json_depth({"a": [1, {"b": 2}]}, 32) == 3
    assert rules.json_depth("text", 32) == 0


def test_de_duplication_keeps_first_order() -> None:
    items = ["b", "a", " b ", "c", "a"] * 50
    assert rules.str_list(items, "artifacts") == ["b", "a", "c"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("artifacts", [f"a{i}" for i in range(limits.MAX_LIST_ITEMS + 1)]),
        ("evidence", ["PR-1"] * (limits.MAX_LIST_ITEMS + 1)),  # counted as given: duplicates do not slip past
        ("tags", {f"k{i}": "v" for i in range(limits.MAX_TAGS + 1)}),
        ("tags", [f"k{i}" for i in range(limits.MAX_TAGS + 1)]),
    ],
)
def test_list_caps(mem: Knotwork, field: str, value: Any) -> None:
    with pytest.raises(InvalidInput) as caught:
        mem.add("over the cap", **{field: value})
    assert caught.value.field == field and f"{len(value):,}" in str(caught.value)


def test_tag_filter_caps_before_the_database(mem: Knotwork) -> None:
    with pytest.raises(InvalidInput, match="5,000 filters"):
        mem.list(tags=[f"k{i}" for i in range(5000)])
    assert mem.list(tags=[f"k{i}" for i in range(limits.MAX_TAGS)], workspace="*") == []
    assert mem.search("anything", tags={f"k{i}": "v" for i in range(limits.MAX_TAGS)}, tags_mode="any") == []


def test_query_cap(mem: Knotwork) -> None:
    with pytest.raises(InvalidInput, match="1,000,000 characters"):
        mem.search("q" * 1_000_000)
    with pytest.raises(InvalidInput, match=str(limits.QUERY_CHARS)):
        mem.search_nodes("q" * (limits.QUERY_CHARS + 1))
    mem.search("q" * limits.QUERY_CHARS)  # on the limit: answered


def test_id_lists_are_capped(mem: Knotwork) -> None:
    ids = ["00000000000000000000000000"] * (limits.MAX_IDS + 1)
    for call in (mem.relations, mem.merge):
        with pytest.raises(InvalidInput, match=f"{limits.MAX_IDS + 1:,} ids"):
            call(ids)


def test_update_refuses_invalid_at_before_valid_at(mem: Knotwork) -> None:
    m = mem.add(f"valid from March {id(mem)}", valid_at="2026-03-01")
    for changes in ({"invalid_at": "2026-02-01"}, {"valid_at": "2026-05-01", "invalid_at": "2026-04-01"}):
        with pytest.raises(InvalidInput, match="before valid_at") as caught:
            mem.update(m.id, **changes)
        assert caught.value.field == "invalid_at"
    retired = mem.update(m.id, invalid_at="2026-04-01")
    with pytest.raises(InvalidInput, match="before valid_at"):  # a valid_at past the end is refused too
        mem.update(m.id, valid_at="2026-05-01")
    assert mem.get(m.id).version == retired.version


def test_a_merge_may_retire_a_newer_memory_from_the_kept_ones_time(mem: Knotwork) -> None:
    old = mem.add(f"the build runs nightly {id(mem)}", valid_at="2026-01-01", consolidate=False)
    new = mem.add(f"the build runs nightly at two {id(mem)}", valid_at="2026-02-01", consolidate=False)
    mem.merge([old.id, new.id])  # the first is kept and supersedes the other from its own valid_at
    assert mem.get(new.id).invalid_at == mem.get(old.id).valid_at


# -- property: any input is accepted or refused with InvalidInput ------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40) | st.sampled_from([10**400, -(10**300)]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TEXTS = st.text(max_size=300) | st.sampled_from(["2026-01-03", "2026-01-03T10:00:00Z", "7d", "decision", "k=v", "  ", "a\ud800"])
FIELDS = ["workspace", "agent_id", "category", "tags", "artifacts", "evidence", "importance", "metadata", "valid_at",
          "expires_at", "ttl"]
CHANGES = ["content", "category", "tags", "artifacts", "evidence", "importance", "metadata", "valid_at", "invalid_at"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    content=TEXTS | JSON,
    fields=st.dictionaries(st.sampled_from(FIELDS), TEXTS | JSON, max_size=4),
    changes=st.dictionaries(st.sampled_from(CHANGES), TEXTS | JSON, max_size=3),
)
def test_add_and_update_accept_or_refuse_with_invalid_input(mem: Knotwork, content: Any, fields: dict, changes: dict) -> None:
    before = mem.store.count_memories()
    try:
        m = mem.add(content, **fields)
    except InvalidInput as exc:
        assert len(str(exc)) <= MAX_MESSAGE and exc.field
        assert mem.store.count_memories() == before
        return
    assert re.fullmatch(r"[0-9A-Z]{26}", m.id)
    if not changes:
        return
    current = mem.get(m.id)
    try:
        changed = mem.update(m.id, **changes)
    except (InvalidInput, Conflict) as exc:  # Conflict: the new content is another memory's
        assert len(str(exc)) <= MAX_MESSAGE
        assert mem.get(m.id).version == current.version
        return
    assert changed.invalid_at is None or changed.invalid_at >= changed.valid_at
