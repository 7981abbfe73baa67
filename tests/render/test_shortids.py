"""Short ids always resolve back to the memory they were shown for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import knotwork
from knotwork import Knotwork
from knotwork.config import Settings
from knotwork.domain.ids import ID_LENGTH, MIN_REF_LENGTH

NO_VECTORS = Settings(embedder="none")


@pytest.fixture
def bare(tmp_path) -> Iterator[Knotwork]:
    with knotwork.open(tmp_path / "k.db", settings=NO_VECTORS) as mem:
        yield mem


def _unique_refs(mem: Knotwork, memory_id: str) -> list[str]:
    """Every prefix or suffix (8+ chars) of ``memory_id`` that resolves to it alone."""
    out = []
    for n in range(MIN_REF_LENGTH, ID_LENGTH + 1):
        for ref in (memory_id[:n], memory_id[-n:]):
            if mem.store.resolve_memory_ref(ref, 2) == [memory_id]:
                out.append(ref)
    return out


def _check(mem: Knotwork, ids: list[str]) -> None:
    shown = mem.short_ids(ids)
    assert set(shown) == set(ids)
    for full, short in shown.items():
        assert len(short) >= MIN_REF_LENGTH
        assert full.startswith(short) or full.endswith(short)
        assert mem.resolve(short) == full, (full, short)  # the round trip
        assert mem.resolve(short.lower()) == full  # copy-paste in either case
        assert len(short) == min(map(len, _unique_refs(mem, full))), (full, short)  # and it is the shortest


def test_many_memories_added_in_the_same_millisecond_get_distinct_resolvable_ids(bare: Knotwork) -> None:
    added = bare.add_many([{"content": f"bulk memory {i}"} for i in range(400)])
    ids = [m.id for m in added]
    # ULIDs drawn back to back share their time part (10 chars): many ids of one millisecond
    assert max(Counter(i[:10] for i in ids).values()) >= 5
    _check(bare, ids)
    assert len(set(bare.short_ids(ids).values())) == len(ids)


# Ids over a two-letter alphabet: their 8-char prefixes and suffixes collide all the time,
# and one id's prefix is often another's suffix.
crowded_ids = st.lists(st.text(alphabet="AB", min_size=ID_LENGTH - 1, max_size=ID_LENGTH - 1).map(lambda t: "0" + t),
                       min_size=2, max_size=30, unique=True)


@given(crowded_ids)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_shown_ids_round_trip_even_when_prefixes_and_suffixes_collide(ids: list[str]) -> None:
    records = [
        {"id": i, "content": f"memory {i}", "created_at": "2026-01-01", "updated_at": "2026-01-01", "valid_at": "2026-01-01"}
        for i in ids
    ]
    with knotwork.open(":memory:", settings=NO_VECTORS) as mem:
        assert mem.import_records(records).added == len(ids)
        _check(mem, ids)


def test_every_tool_that_takes_an_id_accepts_the_shown_id(bare: Knotwork) -> None:
    a, b = (m.id for m in bare.add_many([{"content": "first of a pair"}, {"content": "second of a pair"}]))
    sa, sb = bare.short_ids([a, b]).values()
    assert bare.get(sa).id == a
    assert bare.history(sa)[-1].id == a
    rel = bare.link(sa, sb, "relates_to")
    assert (rel.from_id, rel.to_id) == (a, b)
    assert [r.memory.id for r in bare.related(sb)] == [a]
    assert bare.graph(sa).center == a
    assert bare.search("pair", center=sa, recipe="memory_node_distance")
    assert bare.update(sa, content="first, changed").id == a
    assert bare.delete(sb).id == b


def test_an_unknown_id_is_shown_whole(bare: Knotwork) -> None:
    absent = "00000000000000000000000000"
    assert bare.short_ids([absent]) == {absent: absent}
