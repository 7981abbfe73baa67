"""A thread or tag filter in the vector source: a small thread in a large workspace still gets its nearest turns.

The vector source asks the index for the nearest memories and then filters them; a thread of twenty turns among
thousands of memories nearer the query had none of its own among them. Both backends, the bundled model.
"""

from __future__ import annotations

from dataclasses import replace

from knotwork import Knotwork
from knotwork.search.recipes import RECIPES

VECTOR_ONLY = replace(RECIPES["memory_hybrid"], name="vector_only", sources=("vector",), weights=(("vector", 1.0),), rerankers=())
QUERY = "airplane tickets to Portugal"
TARGET = "We booked the flight to Lisbon for the twelfth."  # shares no word with the query: only its vector finds it
FILLERS = [
    f"Airplane tickets to Portugal for guest {i}: {kind}."
    for i in range(300)
    for kind in ("window seat", "aisle seat", "economy fare")
]  # 900 memories nearer the query than the target, in other threads


def _store(mem: Knotwork) -> str:
    chat = [f"Turn {n} of the planning chat about the garden fence and paint colours." for n in range(19)]
    items = [{"content": text, "workspace": "w", "metadata": {"thread": f"other-{i % 50}"}} for i, text in enumerate(FILLERS)]
    items += [{"content": text, "workspace": "w", "metadata": {"thread": "trip"}, "tags": {"trip": "spring"}} for text in chat]
    items.append({"content": TARGET, "workspace": "w", "metadata": {"thread": "trip"}, "tags": {"trip": "spring"}})
    mem.add_many(items, consolidate=False, force=True)
    return next(h.memory.id for h in mem.search("booked flight Lisbon twelfth", workspace="w", thread="trip", limit=1))


def test_a_small_thread_or_tag_in_a_large_workspace_gets_its_nearest_memories_from_the_vector_source(mem: Knotwork) -> None:
    target = _store(mem)
    assert mem.get(target).content == TARGET
    assert mem.store.count_memories() == len(FILLERS) + 20
    unfiltered = [h.memory.id for h in mem.search(QUERY, workspace="w", recipe=VECTOR_ONLY, limit=100)]
    assert target not in unfiltered  # without the filter, a hundred fillers come first
    by_thread = mem.search(QUERY, workspace="w", thread="trip", recipe=VECTOR_ONLY, limit=5)
    assert target in [h.memory.id for h in by_thread]
    assert all(mem.get(h.memory.id).metadata["thread"] == "trip" for h in by_thread)
    assert mem.last_trace is not None and ("source:vector", len(by_thread)) in [s[:2] for s in mem.last_trace.stages]
    # The default recipe (BM25 beside it) finds it first among the thread's turns.
    assert mem.search(QUERY, workspace="w", thread="trip", limit=1)[0].memory.id == target
    # The same for a tag filter (one store for both: the fillers take the model a while).
    by_tag = mem.search(QUERY, workspace="w", tags={"trip": "spring"}, recipe=VECTOR_ONLY, limit=5)
    assert target in [h.memory.id for h in by_tag]
    assert all(mem.get(h.memory.id).tags == {"trip": "spring"} for h in by_tag)
    any_tag = mem.search(QUERY, workspace="w", tags={"trip": "spring", "none": "such"}, tags_mode="any", recipe=VECTOR_ONLY, limit=5)
    assert target in [h.memory.id for h in any_tag]
    # Both tags at once: no memory holds the second, so nothing, whatever the vectors say.
    assert mem.search(QUERY, workspace="w", tags={"trip": "spring", "none": "such"}, recipe=VECTOR_ONLY, limit=5) == []
