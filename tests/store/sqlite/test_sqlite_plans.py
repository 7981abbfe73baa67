"""SQLite looks a search's candidates up by id: a filter's workspace and partition terms beside a long list of ids
must not make the planner read every memory of the workspace through one of its indexes instead."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from knotwork import Settings
from knotwork.domain import temporal
from knotwork.domain.models import MemoryFilter
from knotwork.service import Knotwork
from knotwork.store.sqlite import SQLiteStore
from tests._fakes import RandomEmbedder


def _plans(path: Path, statements: list[tuple[str, list]]) -> list[str]:
    """EXPLAIN QUERY PLAN of each statement, as one line of its steps."""
    with sqlite3.connect(path) as conn:
        return [" | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)) for sql, params in statements]


def test_a_filter_over_many_ids_looks_them_up_and_keeps_exactly_what_it_lets_through(tmp_path: Path) -> None:
    path = tmp_path / "plans.db"
    seen: list[tuple[str, list]] = []
    tracer = lambda sql, params: seen.append((sql, list(params))) if "IN (?" in sql else None  # noqa: E731
    store = SQLiteStore(path, tracer=tracer)
    with Knotwork(store, Settings(), embedder=RandomEmbedder()) as mem:
        api = mem.add_many([{"content": f"api note {i}", "workspace": "api", "tags": {"n": str(i % 2)}} for i in range(60)])
        web = mem.add_many([{"content": f"web note {i}", "workspace": "web"} for i in range(60)])
        shared = mem.add_many([{"content": f"shared note {i}"} for i in range(20)])
        mine = mem.add_many([{"content": f"agent note {i}", "workspace": "api", "agent_id": "bot"} for i in range(10)])
        ids = [r.id for r in (*api, *web, *shared, *mine)]
        at = temporal.now() + timedelta(seconds=1)
        seen.clear()
        allowed = store.filter_memory_ids(ids, MemoryFilter(workspace="api"), at)
        assert allowed == {r.id for r in (*api, *shared)}  # the workspace and the global scope, shared partition
        tagged = store.filter_memory_ids(ids, MemoryFilter(workspace="api", tags={"n": "1"}), at)
        assert tagged == {r.id for r in api[1::2]}
        assert store.filter_memory_ids(ids, MemoryFilter(workspace="web", agent_id="bot"), at) == set()
    plans = _plans(path, seen)
    assert len(plans) == 3
    for plan in plans:
        assert "sqlite_autoindex_memories_1 (id=?)" in plan, plan  # each id looked up by the primary key
        assert "memories_thread" not in plan and "memories_workspace" not in plan, plan


def test_a_list_by_tag_is_driven_by_the_tag_and_pages_exactly(tmp_path: Path) -> None:
    path = tmp_path / "plans.db"
    seen: list[tuple[str, list]] = []
    tracer = lambda sql, params: seen.append((sql, list(params))) if "ORDER BY m.id DESC" in sql else None  # noqa: E731
    store = SQLiteStore(path, tracer=tracer)
    with Knotwork(store, Settings(), embedder=RandomEmbedder()) as mem:
        notes = mem.add_many([{"content": f"note {i}", "workspace": "api", "tags": {"key": f"k{i % 7}", "all": "yes"}}
                              for i in range(70)])
        mem.add_many([{"content": f"web note {i}", "workspace": "web", "tags": {"key": "k3"}} for i in range(10)])
        seen.clear()
        first = mem.list(workspace="api", tags={"key": "k3", "all": "yes"}, limit=6)
        rest = mem.list(workspace="api", tags={"key": "k3", "all": "yes"}, limit=6, cursor=first.next_cursor)
        assert [m.id for m in (*first, *rest)] == [m.id for m in reversed(notes[3::7])] and rest.next_cursor is None
        assert [m.id for m in mem.list(workspace="api", tags={"key": None}, limit=100)] == [m.id for m in reversed(notes)]
    for plan in _plans(path, seen):
        assert "memory_tags_kv" in plan and "sqlite_autoindex_memories_1 (id=?)" in plan, plan  # the tag drives
        assert "memories_identity" not in plan and "memories_workspace" not in plan, plan  # no workspace scan
