"""Entity-name vectors with the bundled embedder: batched at ingest, used by node search and resolution."""

from __future__ import annotations

from knotwork import Knotwork


def test_entity_vectors_are_written_and_searched(mem: Knotwork) -> None:
    mem.add_many([
        {"content": "The ReportsModule uses Redis for caching."},
        {"content": "I live in Berlin.", "entities": [{"name": "Berlin", "summary": "capital of Germany"}]},
    ])
    stored = mem.store._conn.execute("SELECT count(*) FROM entity_vectors").fetchone()[0]
    assert stored == mem.store._conn.execute("SELECT count(*) FROM entities").fetchone()[0] > 0
    hits = mem.search_nodes("city in germany")  # no shared word: found by its vector
    assert hits and hits[0].entity.name == "Berlin"
    mem.add("The ReportsModule also uses redis.")  # known names: no new entity
    assert [h.entity.name for h in mem.search_nodes("redis")].count("Redis") == 1
