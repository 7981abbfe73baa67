"""A store written before a technology's short name joined its entity holds two entities ("PostgreSQL" and
"Postgres"); opening it joins them once (services/spellings.py): the full name's entity keeps every fact, mention
and source, the short name stays as its alias, a value retired by its own other spelling runs on, and a second
run changes nothing. Entities of types that disagree, and a short name with no full name beside it, are left
alone. The old store is written as the code before wrote it (two entities, each with its facts) through the store
API. Both backends."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.domain import ids
from knotwork.knowledge.models import Entity, Fact
from knotwork.knowledge.resolve import grams, normalize
from knotwork.services import spellings

JAN, JUN = datetime(2024, 1, 10, 12, tzinfo=timezone.utc), datetime(2024, 6, 10, 12, tzinfo=timezone.utc)
QUIET = Settings(embedder="none", kg_extract="none")  # memories only: the graph below is written by hand


def _entity(mem: Knotwork, ws: str | None, name: str, type_: str | None) -> str:
    e = Entity(ids.new_id(), ws, name, type_, "", JAN, JAN)
    mem.store.kg_insert_entity(e, normalize(name), grams(normalize(name)))
    return e.id


def _fact(mem: Knotwork, ws: str | None, s: tuple[str, str], p: str, o: tuple[str, str], source: str, at: datetime,
          conf: float = 0.9) -> str:
    fid = ids.new_id()
    mem.store.kg_insert_fact(Fact(fid, ws, s[0], s[1], p, o[0], o[1], f"{s[1]} {p} {o[1]}", at, None, at,
                                  None, None, "rules", (source,), conf))
    return fid


def _old_store(target: str, mark: str = "") -> dict[str, str]:
    """The rows the code before wrote for five memories, and the memory ids; ``mark``: the join the store
    records ("": none, as a store from before)."""
    with knotwork.open(target, settings=QUIET) as mem:
        m1 = mem.add("Harbor's primary database is PostgreSQL.", workspace="w", valid_at=JAN).id
        m2 = mem.add("Harbor's primary database is Postgres.", workspace="w", valid_at=JUN).id
        m3 = mem.add("The orders service keeps its queue in Postgres.", workspace="w", valid_at=JUN).id
        m4 = mem.add("TS reviewed the TypeScript migration.", workspace="w", valid_at=JUN).id
        m5 = mem.add("The cache runs on Postgres.", workspace="v", valid_at=JUN).id
        with mem.store.transaction():
            harbor, orders = _entity(mem, "w", "Harbor", "project"), _entity(mem, "w", "orders service", "component")
            full, short = _entity(mem, "w", "PostgreSQL", "technology"), _entity(mem, "w", "Postgres", "technology")
            ts, typescript = _entity(mem, "w", "TS", "person"), _entity(mem, "w", "TypeScript", "technology")
            cache, other = _entity(mem, "v", "cache", "component"), _entity(mem, "v", "Postgres", "technology")
            first = _fact(mem, "w", (harbor, "Harbor"), "has_primary_database", (full, "PostgreSQL"), m1, JAN,
                          conf=0.8)
            second = _fact(mem, "w", (harbor, "Harbor"), "has_primary_database", (short, "Postgres"), m2, JUN)
            mem.store.kg_retire_fact(first, JUN, JUN, second)  # retired by its own other spelling, as a change
            _fact(mem, "w", (orders, "orders service"), "uses", (short, "Postgres"), m3, JUN)
            _fact(mem, "w", (ts, "TS"), "uses", (typescript, "TypeScript"), m4, JUN)
            _fact(mem, "v", (cache, "cache"), "runs_on", (other, "Postgres"), m5, JUN)
            for mid, ents in ((m1, [harbor, full]), (m2, [harbor, short]), (m3, [orders, short]),
                              (m4, [ts, typescript]), (m5, [cache, other])):
                mem.store.kg_add_mentions(mid, ents)
        mem.store.set_counter(spellings.JOINED, mark)
        assert len(spellings.pairs(mem.store)) == 1
    return {"m1": m1, "m2": m2, "m3": m3, "first": first, "full": full, "short": short, "other": other, "ts": ts}


def test_opening_an_old_store_joins_a_short_name_to_its_full_name(target: str) -> None:
    old = _old_store(target)
    with knotwork.open(target, settings=QUIET) as mem:
        pg = mem.entity("Postgres", workspace="w")
        assert pg.id == old["full"] == mem.entity("PostgreSQL", workspace="w").id
        assert pg.name == "PostgreSQL" and "Postgres" in pg.aliases
        assert not mem.store.kg_get_entities([old["short"]])  # the short name's entity is gone, its name an alias
        # the restatement was never a change: one fact, from the first memory's time on, current, said twice
        (db,) = [f for f in mem.entity_facts("Harbor", workspace="w", include_invalid=True, min_confidence=0)
                 if f.predicate == "has_primary_database"]
        assert (db.id, db.object, db.invalid_at, db.valid_at) == (old["first"], "PostgreSQL", None, JAN)
        assert set(db.sources) == {old["m1"], old["m2"]} and db.confidence == pytest.approx(0.9)
        (uses,) = mem.entity_facts("orders service", workspace="w", min_confidence=0)
        assert (uses.object, set(uses.sources)) == ("PostgreSQL", {old["m3"]})
        mentions = mem.store.kg_mentions([old["m1"], old["m2"], old["m3"]])
        assert all(old["full"] in mentions[m] for m in ("m1", "m2", "m3") for m in [old[m]])
        # left alone: types that disagree, and another workspace with no full name
        assert mem.entity("TS", workspace="w").id == old["ts"] != mem.entity("TypeScript", workspace="w").id
        assert mem.entity("Postgres", workspace="v").id == old["other"]
        assert mem.store.counters()[spellings.JOINED] == spellings.DIGEST


def test_joining_twice_changes_nothing(target: str) -> None:
    _old_store(target)
    with knotwork.open(target, settings=QUIET) as mem:
        facts = sorted(mem.store.kg_facts_touching(mem.store.kg_entities_by_norm("*", normalize("PostgreSQL"))),
                       key=lambda f: f.id)
        assert spellings.pairs(mem.store) == []
        assert spellings.join(mem.store, lambda: mem.knowledge) == 0
        again = sorted(mem.store.kg_facts_touching(mem.store.kg_entities_by_norm("*", normalize("PostgreSQL"))),
                       key=lambda f: f.id)
        assert again == facts and len(facts) == 2  # Harbor's database and what the orders service uses


def test_a_new_store_is_recorded_as_joined(target: str) -> None:
    with knotwork.open(target, settings=QUIET) as mem:
        assert not spellings.due(mem.store.counters())


def test_an_import_of_an_old_export_joins_them_too(target: str, tmp_path: Path) -> None:
    # the old store's rows, left as they are at open (its mark says joined), exported with their two entities
    old = _old_store(target, mark=spellings.DIGEST)
    with knotwork.open(target, settings=QUIET) as mem:
        assert mem.entity("Postgres", workspace="w").id == old["short"]
        records = list(mem.export())
    with knotwork.open(str(tmp_path / "fresh.db"), settings=QUIET) as fresh:
        fresh.import_records(records)
        pg = fresh.entity("Postgres", workspace="w")
        assert pg.id == old["full"] == fresh.entity("PostgreSQL", workspace="w").id and "Postgres" in pg.aliases
        (db,) = [f for f in fresh.entity_facts("Harbor", workspace="w", include_invalid=True, min_confidence=0)
                 if f.predicate == "has_primary_database"]
        assert (db.invalid_at, set(db.sources)) == (None, {old["m1"], old["m2"]})
