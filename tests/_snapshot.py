"""Everything a move of a whole store must keep, read through the store protocol as plain values."""

from __future__ import annotations

from contextlib import closing

from knotwork import Settings
from knotwork.app import open_store
from knotwork.services import transfer


def snapshot(location: str) -> dict[str, object]:
    """Everything a move must keep, as plain values."""
    with closing(open_store(location, Settings())) as store:
        memories = list(store.iter_memories())
        ids = [m.id for m in memories]
        vectors = store.vectors_by_memory(ids)
        entity_ids, facts = transfer._graph(store, ids)
        entities = store.kg_get_entities(entity_ids)
        return {
            "memories": memories,
            "history": {i: store.memory_versions(i) for i in ids},
            "links": sorted(store.stored_links()),
            "vectors": {i: v[1] for i, v in vectors.items()},
            "similar": store.similar_lists(ids),
            "entities": sorted((e.id, e.name, e.type, e.summary, e.aliases, e.created_at) for e in entities.values()),
            "facts": sorted(facts.values(), key=lambda f: f.id),
            "mentions": store.kg_mentions(ids),
            "model": store.get_meta(transfer.MODEL_KEY),
        }
