"""The storage protocol every backend implements, whole.

Methods are named after capabilities, not tables. Every method that writes is
atomic on its own; ``transaction()`` groups several into one. The contract is
split by concern (``store/contract/``): memories, links, vectors, the
knowledge graph, the durable queues, hygiene. :class:`Store` is all of them;
a service that needs only one concern may be typed against its part.
tests/store/test_store_contract.py fails when code outside ``store/`` calls a store
method no part declares, or when a backend lacks one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from knotwork.store.contract.hygiene import Hygiene
from knotwork.store.contract.knowledge import KnowledgeGraph
from knotwork.store.contract.links import Links
from knotwork.store.contract.memories import Memories
from knotwork.store.contract.queue import EnrichItem, Queues
from knotwork.store.contract.vectors import Vectors

__all__ = ["EnrichItem", "Hygiene", "KnowledgeGraph", "Links", "Memories", "Queues", "Store", "Tracer", "Vectors"]

Tracer = Callable[[str, Sequence[Any]], None]


@runtime_checkable
class Store(Memories, Links, Vectors, KnowledgeGraph, Queues, Hygiene, Protocol):
    """A place to keep memories: every part of the contract."""

    location: str
    # True when a read on one thread never waits for another thread's open write transaction (and reads
    # only what is committed); False when reads share the writer's lock (an in-memory SQLite database).
    concurrent_reads: bool
