"""Entity-name vectors with the bundled embedder: batched at ingest, used by node search and resolution."""

from __future__ import annotations

from knotwork import Knotwork


def test_entity_vectors_are_written_and_searched(mem: Knotwork) -> None:
    mem.add_many([
        {"content": "The ReportsModule uses Redis for caching."},
        {"content": "I live in Berlin.", "entities": [{"name": "Berlin", "summary": "capital of Germany"}]},
    ])
    with_vector = {r[0] for r in mem.store._run(
        "SELECT e.name FROM entities e JOIN entity_vectors v ON v.entity_id = e.id")}
    # natural-language names get a vector; names spelled exactly (code, known technologies) do not
    assert "Berlin" in with_vector and not with_vector & {"ReportsModule", "Redis"}
    hits = mem.search_nodes("city in germany")  # no shared word: found by its vector
    assert hits and hits[0].entity.name == "Berlin"
    mem.add("The ReportsModule also uses redis.")  # known names: no new entity
    assert [h.entity.name for h in mem.search_nodes("redis")].count("Redis") == 1


def test_names_are_embedded_once_and_only_when_spelling_cannot_resolve_them(mem: Knotwork) -> None:
    embedded: list[str] = []
    inner = mem.knowledge.embedder
    real = inner.embed

    def spy(texts: list[str]):  # type: ignore[no-untyped-def]
        embedded.extend(texts)
        return real(texts)

    inner.embed = spy  # the real model still runs; this only records what it is asked
    try:
        mem.add_many([
            {"content": "x", "entities": [{"name": "Maximilian Fischer", "type": "person"}], "workspace": "a"},
            {"content": "y", "entities": [{"name": "Maximilian Fischer", "type": "person"}], "workspace": "b"},
            {"content": "z", "entities": [{"name": "src/billing/api.py", "type": "file"}]},
        ])
        assert embedded.count("Maximilian Fischer") == 1  # two workspaces, one embedding
        assert "src/billing/api.py" not in embedded
        embedded.clear()
        mem.add("w", entities=[{"name": "Maximillian Fischer", "type": "person"}], workspace="a")  # a typo: spelling resolves it
        assert embedded == ["w"]  # the memory itself only
        assert mem.entity("Maximillian Fischer", workspace="a").name == "Maximilian Fischer"
    finally:
        inner.embed = real
