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


def test_vectors_of_deleted_entities_leave_memory(mem: Knotwork, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A memory forgotten takes its orphaned entities with it, and the in-memory entity vectors follow once
    the rows held have grown by a quarter: a process whose memories are replaced does not grow."""
    from knotwork.services import entity_vectors

    monkeypatch.setattr(entity_vectors, "PRUNE_FROM", 4)
    vectors = mem.knowledge.vectors

    def live() -> set[str]:
        return {r[0] for r in mem.store._run(
            "SELECT e.id FROM entities e JOIN entity_vectors v ON v.entity_id = e.id WHERE e.workspace = 'a'")}

    def held() -> list[str]:
        vectors.sync()
        return vectors.parts["a"][0]

    names = ["Anna Schmidt", "Boris Petrov", "Clara Jensen", "Dmitri Volkov", "Elena Rossi", "Farid Haddad"]
    added = [mem.add(f"{n} joined.", entities=[{"name": n, "type": "person"}], workspace="a") for n in names]
    before = live()
    assert set(held()) == before and len(before) >= 6
    for m in added[:5]:
        mem.delete(m.id)
    gone = before - live()
    assert len(gone) >= 5  # the five people went with their memories
    assert set(held()) == before  # nothing read so far tells the vectors
    for n in ["Greta Lindqvist", "Hugo Moreau", "Ines Duarte", "Jonas Weber"]:  # rows held grow past 5/4
        mem.add(f"{n} joined.", entities=[{"name": n, "type": "person"}], workspace="a")
    ids, matrix = vectors.of("a", exact=True)
    assert set(ids) == live() and not gone & set(ids)
    assert len(matrix) == len(ids) == vectors._held
    assert [h.entity.name for h in mem.search_nodes("Farid Haddad", workspace="a")][:1] == ["Farid Haddad"]
