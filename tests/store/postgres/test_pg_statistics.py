"""PostgreSQL right after a bulk load: the store analyzes its memory tables itself, so the planner never plans
searches over tables it has no statistics for (autovacuum may take a minute to get there)."""

from __future__ import annotations

import psycopg

from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from knotwork.store.postgres.store import ANALYZE_MIN_ROWS
from tests._fakes import RandomEmbedder


def _reltuples(url: str, table: str) -> float:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()[0]


def test_a_bulk_load_is_analyzed_once_it_commits_and_a_few_writes_are_not(postgres_database) -> None:
    url = postgres_database.fresh()
    analyzed: list[str] = []
    settings = Settings()
    tracer = lambda sql, params: analyzed.append(sql) if sql.startswith("ANALYZE") else None  # noqa: E731
    with Knotwork(open_store(url, settings, tracer=tracer), settings, embedder=RandomEmbedder()) as mem:
        for i in range(5):
            mem.add(f"a single note {i}")
        assert analyzed == []  # a few writes leave the statistics to autovacuum
        bulk = ANALYZE_MIN_ROWS + 100
        mem.add_many([{"content": f"loaded row {i}", "workspace": f"w{i % 4}"} for i in range(bulk)])
        assert len(analyzed) == 1
        # analyzed after the load committed: the statistics count every row it wrote (a small table is read whole)
        assert _reltuples(url, "memories") == bulk + 5
        assert _reltuples(url, "memory_vectors") == bulk + 5
        mem.add_many([{"content": f"a little more {i}"} for i in range(50)])
        assert len(analyzed) == 1  # 50 rows on 1,105: not worth analyzing again
