"""A technology's two spellings held as two entities by a store written before they were one.

Since "Postgres" and "PostgreSQL", "JS" and "JavaScript", "k8s" and "Kubernetes" … resolve to one entity
(``knowledge.lexicon.SHORT_NAMES``, ``knowledge.resolve.same_names``), a new mention of either becomes an alias of
the entity already stored. A store written before holds two entities, each with its own facts, and a fact
restated with the other spelling may have retired the first ("… primary database is PostgreSQL", then "… is
Postgres").

:func:`join` mends such a store once, when it is opened (as the first snapshot prune is run for an upgraded
store), and after an import that carried a graph: in each workspace, the entity of a short name is merged into
the entity of its full name (``KnowledgeService.join``: facts and mentions move, the short name stays as an
alias, facts that now say one thing fold into one with every source, and a value retired by its own other
spelling runs on). Only entities
of compatible types are joined, as the resolver joins them. The store records the list it was joined under
(:data:`JOINED`): a store already joined is not read again, and a longer list is applied once more. Running
it twice changes nothing (the short name resolves to the full name's entity after the first).

Why not a numbered migration (``store/<engine>/migrations``): those are SQL, one file per engine, and this
needs the resolver's keys and the graph service's folding of facts; a repair run by the service does the same on
both engines, and stays out of a bare ``open_store``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from knotwork.knowledge.lexicon import SHORT_NAMES
from knotwork.knowledge.resolve import compatible, normalize

if TYPE_CHECKING:
    from knotwork.services.knowledge import KnowledgeService
    from knotwork.store.protocol import Store

#: The store counter that holds the digest of the short-name list the store's entities were last joined under.
JOINED = "short_names_joined"
#: full name's key -> the keys of its short names (a spelling whose key is the full name's needs nothing)
GROUPS: dict[str, tuple[str, ...]] = {}
for _short, _full in SHORT_NAMES.items():
    if normalize(_short) != normalize(_full):
        GROUPS[normalize(_full)] = tuple(sorted({*GROUPS.get(normalize(_full), ()), normalize(_short)}))
DIGEST = hashlib.sha256(json.dumps(sorted(GROUPS.items())).encode()).hexdigest()[:16]


def due(counters: dict[str, str]) -> bool:
    """Whether a store with these counters has not been joined under the current list."""
    return counters.get(JOINED) != DIGEST


def pairs(store: Store) -> list[tuple[str, str, str | None]]:
    """(the full name's entity, a short name's entity, workspace) of every pair still apart, of compatible types."""
    keys = [k for full, shorts in GROUPS.items() for k in (full, *shorts)]
    out: list[tuple[str, str, str | None]] = []
    for ws in store.kg_graph_workspaces():
        scope = ws or None
        found = store.kg_lookup_norms(scope, keys)
        for full, shorts in GROUPS.items():
            keep = found.get(full)
            for drop in (found.get(s) for s in shorts):
                if keep is None or drop is None or drop == keep:
                    continue
                types = store.kg_entity_notes([keep, drop])
                if keep in types and drop in types and compatible(types[keep][0], types[drop][0]):
                    out.append((keep, drop, scope))
    return out


def join(store: Store, knowledge: Callable[[], KnowledgeService]) -> int:
    """Join every pair :func:`pairs` finds (``knowledge``: the graph service, built only when there is one) and
    record the list the store was joined under; returns how many entities were joined."""
    joined = 0
    if found := pairs(store):
        graph = knowledge()
        for keep, drop, ws in found:
            with store.transaction():
                if len(store.kg_entity_notes([keep, drop])) == 2:  # another process may have joined them first
                    graph.join(keep, drop, ws)
                    joined += 1
    store.set_counter(JOINED, DIGEST)
    return joined
