"""An add is one pipeline: hygiene decides a plan (``Hygiene.plan``), the write path applies it
(``WritePath.apply``) in one transaction. On both backends: each kind of step is planned as the rules decide
and applied as planned (a plan changed by hand is applied as changed: the write path decides nothing), and
a fault in the middle of applying a plan leaves nothing written."""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.domain.models import SUPERSEDED_BY
from knotwork.services.addplan import AddPlan, Link, Step
from tests._sql import execute, query

OLD_AT, NEW_AT = "2025-01-10T09:00:00Z", "2025-06-02T09:00:00Z"
NEW_TIME = datetime(2025, 6, 2, 9, tzinfo=UTC)
OLD_VALUE = "Harbor's primary database is MySQL 5.7, running on a single RDS instance."
NEW_VALUE = "Harbor's primary database is PostgreSQL 16 since the March migration."
# what each step answers with
ANSWER = {"STORE": "ADD", "IGNORE": "IGNORE", "REPEAT": "NOOP", "NOOP": "NOOP", "UPDATE": "UPDATE",
          "SUPERSEDE": "SUPERSEDE"}


@pytest.fixture
def pmem(target: str, tmp_path: Path) -> Iterator[Knotwork]:
    """A store on each backend whose instructions come from an empty home (the default store/ignore rules)."""
    with knotwork.open(target, settings=Settings(home=tmp_path / "home")) as m:
        yield m


def plan_of(mem: Knotwork, items: list[dict[str, Any]], consolidate: bool = True) -> AddPlan:
    """The plan ``add_many(items)`` would apply, decided and not written."""
    drafts, graphs = mem.writes.drafts(items)
    for graph in graphs:
        graph.supersede = consolidate
    return mem.hygiene.plan(drafts, graphs, consolidate=consolidate, force=False)


def ref(name: str | None, out: list[knotwork.Memory]) -> str | None:
    return out[int(name[1:])].id if name and name.startswith("#") else name


def test_each_kind_of_step_is_planned_then_applied_as_planned(pmem: Knotwork) -> None:
    stored = pmem.add("The billing service uses Python 3.11 in production", workspace="w")
    plan = plan_of(pmem, [
        {"content": "the billing service uses python 3.11 in production.", "workspace": "w"},
        {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "w"},
        {"content": "The deploy window is Tuesday at 14:00 UTC, announced in #ops", "workspace": "w"},
        {"content": "Maybe the cache is stale", "workspace": "w"},
        {"content": "The billing service uses Python 3.12 in production", "workspace": "w"},
        {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "w"},
    ])
    steps = plan.steps
    assert [s.kind for s in steps] == ["NOOP", "STORE", "UPDATE", "IGNORE", "SUPERSEDE", "REPEAT"]
    assert [s.target for s in steps] == [stored.id, None, "#1", None, stored.id, "#1"]
    assert steps[4].link == Link("#4", stored.id, {"consolidation": steps[4].reason})
    assert steps[4].reason.startswith("value changed: ") and steps[3].reason
    assert plan.counts == (("duplicates_detected", 1), ("ignored_adds", 1))
    assert plan.inserted() == [1, 4] and plan.written() == [0, 1, 2, 4]
    with pytest.raises(dataclasses.FrozenInstanceError):
        steps[0].kind = "STORE"  # type: ignore[misc]
    assert pmem.store.count_memories() == 1 and pmem.list_links("*") == []  # deciding wrote nothing

    out = pmem.writes.apply(plan)
    assert [m.decision for m in out] == [ANSWER[s.kind] for s in steps]
    assert [m.touched for m in out] == [ref(s.target, out) if s.target else None for s in steps[:5]] + [out[1].id]
    assert [m.reason for m in out[:5]] == [s.reason for s in steps[:5]]
    window, new = out[1], out[4]
    assert out[2].id == window.id and pmem.get(window.id).content == plan.drafts[2].content
    assert [m.version for m in pmem.history(window.id)] == [1, 2]
    [link] = pmem.list_links("*")
    assert (link.from_id, link.to_id, link.type, link.metadata) == (new.id, stored.id, "supersedes", dict(steps[4].link.metadata))
    retired = pmem.get(stored.id)
    assert retired.invalid_at == new.valid_at and retired.metadata[SUPERSEDED_BY] == {"id": new.id, "reason": steps[4].reason}
    assert out[5].duplicate and out[5].id == window.id
    health = pmem.stats().health
    assert (health["ignored_adds"], health["superseded_on_add"], health["duplicates_merged"]) == (1, 1, 1)


def test_an_older_value_and_a_days_snapshots_are_planned_then_applied(pmem: Knotwork) -> None:
    newer = pmem.add(NEW_VALUE, workspace="harbor", valid_at=NEW_AT)
    [late] = plan_of(pmem, [{"content": OLD_VALUE, "workspace": "harbor", "valid_at": OLD_AT}]).steps
    assert (late.kind, late.target) == ("SUPERSEDE", newer.id)
    assert late.link == Link(newer.id, "#0", {"consolidation": late.reason, "arrived_late": True})

    snap = {"category": "snapshot", "tags": {"key": "profile"}, "workspace": "w"}
    plan = plan_of(pmem, [
        {"content": "Profile: 10 open tickets", "valid_at": "2030-01-01T09:00:00Z", **snap},
        {"content": "Profile: 11 open tickets", "valid_at": "2030-01-01T10:00:00Z", **snap},  # later: replaces #0
        {"content": "Profile: 12 open tickets", "valid_at": "2030-01-01T08:00:00Z", **snap},  # older than #1: kept out
        {"content": OLD_VALUE, "workspace": "harbor", "valid_at": OLD_AT},
    ])
    # a snapshot step names its key; which of that key's snapshots the day holds is read under the write lock
    assert [(s.kind, s.key) for s in plan.steps] == [("SNAPSHOT", "profile")] * 3 + [("SUPERSEDE", None)]
    out = pmem.writes.apply(plan)
    assert [m.decision for m in out] == ["ADD", "ADD", "NOOP", "ADD"]
    assert (out[1].touched, out[2].touched, out[2].id) == (out[0].id, out[1].id, out[1].id)
    assert out[1].reason == "replaced 1 earlier snapshot(s) of 2030-01-01"
    kept = pmem.list(workspace="w", category="snapshot")
    assert [m.id for m in kept] == [out[1].id]
    assert out[3].touched == newer.id and out[3].reason.startswith(f"stored retired: {newer.id} states a later value")
    assert pmem.get(out[3].id).invalid_at == NEW_TIME  # stored retired from the newer memory's valid_at
    assert pmem.get(newer.id).invalid_at is None


def test_the_write_path_applies_the_plan_it_is_given(pmem: Knotwork) -> None:
    """A plan changed by hand is applied as changed: the write path re-decides nothing."""
    orders = pmem.add("We use Postgres for orders.", workspace="w")
    plan = plan_of(pmem, [{"content": "We use Redis for caching.", "workspace": "w"}])
    assert [s.kind for s in plan.steps] == ["STORE"]  # the rules keep both
    why = "value changed: postgres -> redis"
    forced = dataclasses.replace(plan, steps=(Step("SUPERSEDE", orders.id, why, Link("#0", orders.id, {"consolidation": why})),))
    [new] = pmem.writes.apply(forced)
    assert (new.decision, new.touched, new.reason) == ("SUPERSEDE", orders.id, why)
    assert pmem.get(orders.id).invalid_at == new.valid_at

    plan = plan_of(pmem, [{"content": "We use Kafka for events.", "workspace": "w"}])
    [noop] = pmem.writes.apply(dataclasses.replace(plan, steps=(Step("NOOP", new.id, "said already"),)))
    assert (noop.decision, noop.id, noop.reason) == ("NOOP", new.id, "said already")
    assert pmem.store.count_memories() == 2  # the Kafka text was not stored


def _create_link_fault(target: str, backend: str) -> None:
    """A real trigger that makes the store's write of a link fail."""
    if backend == "sqlite":
        execute(target, "CREATE TRIGGER fault_link BEFORE INSERT ON links BEGIN SELECT RAISE(ABORT, 'fault: link write'); END")
    else:
        execute(target, "CREATE FUNCTION fault_link() RETURNS trigger LANGUAGE plpgsql AS "
                        "$$ BEGIN RAISE EXCEPTION 'fault: link write'; END $$")
        execute(target, "CREATE TRIGGER fault_link BEFORE INSERT ON links FOR EACH ROW EXECUTE FUNCTION fault_link()")


def _drop_link_fault(target: str, backend: str) -> None:
    execute(target, "DROP TRIGGER fault_link" + ("" if backend == "sqlite" else " ON links"))


TABLES = ("memories", "memory_versions", "memory_tags", "memory_vectors", "memory_similar", "memory_changes", "links",
          "link_changes", "enrich_queue", "extraction_queue", "entities", "entity_mentions", "facts", "fact_sources")


def _contents(target: str) -> dict[str, Any]:
    out: dict[str, Any] = {t: query(target, f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    out["counters"] = sorted(query(target, "SELECT name, value FROM hygiene_counters"))
    out["old"] = query(target, "SELECT version, invalid_at, metadata FROM memories ORDER BY id")
    return out


def test_a_fault_while_applying_a_plan_leaves_nothing_written(pmem: Knotwork, target: str, backend: str) -> None:
    old = pmem.add(OLD_VALUE, workspace="harbor", valid_at=OLD_AT, entities=[{"name": "Harbor", "type": "project"}])
    before = _contents(target)
    _create_link_fault(target, backend)
    with pytest.raises(Exception, match="fault: link write") as caught:
        pmem.add(NEW_VALUE, workspace="harbor", valid_at=NEW_AT, entities=[{"name": "Harbor", "type": "project"}])
    # The fault landed inside the apply step, on a SUPERSEDE whose new memory this transaction had stored already.
    frames = [f for f, _ in traceback.walk_tb(caught.tb)]
    [applying] = [f for f in frames if f.f_code.co_name == "_apply" and f.f_code.co_filename.endswith("writes.py")]
    assert applying.f_locals["step"].kind == "SUPERSEDE" and applying.f_locals["i"] in applying.f_locals["placed"]
    assert "insert_link" in [f.f_code.co_name for f in frames]
    assert _contents(target) == before  # no memory, vector, queue row, mention, version or counter of the add
    assert pmem.get(old.id).invalid_at is None and len(pmem.history(old.id)) == 1

    _drop_link_fault(target, backend)
    new = pmem.add(NEW_VALUE, workspace="harbor", valid_at=NEW_AT, entities=[{"name": "Harbor", "type": "project"}])
    assert (new.decision, new.touched) == ("SUPERSEDE", old.id)  # the same add, once nothing fails, lands whole
    assert pmem.get(old.id).invalid_at == NEW_TIME and pmem.store.count_memories() == 2
