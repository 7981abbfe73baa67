"""Communities of entities: label propagation over the graph of current facts.

The graph is undirected; an edge joins the two entities of a fact, weighted by
how many current facts join them (the weight ranks members; networkx's
semi-synchronous label propagation itself counts neighbours). Detection runs
on each connected component on its own, over nodes and edges in sorted order,
so it is deterministic and a component's communities depend only on that
component. That is
what makes the incremental refresh exact: when new facts touch a few
entities, re-running only their components gives the same communities a full
rebuild would.

Label propagation rather than Louvain: on the small, sparse components a
memory store has, Louvain's modularity splits a hub from its leaves (a
library and the one service using it become two communities), while label
propagation keeps such a star together and still cuts two dense groups
joined by a single fact.

A community is named after its most connected members and summarised by its
size and its strongest facts. Components of a single entity are not
communities (an entity needs a fact to be in the graph at all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

NAME_MEMBERS = 3
SUMMARY_FACTS = 4


@dataclass(frozen=True, slots=True)
class Group:
    """One detected community: members, most connected first."""

    members: tuple[str, ...]
    degree: Mapping[str, int]  # weighted degree inside the community


def graph(edges: Iterable[tuple[str, str]]) -> nx.Graph:
    """The weighted, undirected entity graph of these (subject, object) pairs."""
    weights = Counter(tuple(sorted(e)) for e in edges if e[0] != e[1])
    g = nx.Graph()
    g.add_nodes_from(sorted({n for pair in weights for n in pair}))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weights.items()))
    return g


def components(g: nx.Graph, around: Iterable[str] | None = None) -> list[list[str]]:
    """Connected components (sorted node lists), all of them or only those holding a node of ``around``."""
    if around is None:
        return sorted(sorted(c) for c in nx.connected_components(g))
    seen: set[str] = set()
    out = []
    for node in sorted(set(around)):
        if node in g and node not in seen:
            comp = nx.node_connected_component(g, node)
            seen |= comp
            out.append(sorted(comp))
    return sorted(out)


def detect(g: nx.Graph, component: Sequence[str]) -> list[Group]:
    """Label-propagation communities of one connected component, each with its members ranked by connection."""
    sub = nx.Graph()
    sub.add_nodes_from(sorted(component))
    sub.add_weighted_edges_from(sorted((a, b, d["weight"]) for a, b, d in g.subgraph(component).edges(data=True)))
    if sub.number_of_nodes() < 2:
        return []
    parts = nx.community.label_propagation_communities(sub)
    groups = []
    for part in parts:
        if len(part) < 2:
            continue
        inner = sub.subgraph(part)
        degree = {n: int(d) for n, d in inner.degree(weight="weight")}
        members = tuple(sorted(part, key=lambda n: (-degree[n], n)))
        groups.append(Group(members, degree))
    return sorted(groups, key=lambda grp: grp.members)


def name(group: Group, names: Mapping[str, str]) -> str:
    """The community's name: its most connected members (``Redis, Kafka, BillingService``)."""
    return ", ".join(names.get(m, m) for m in group.members[:NAME_MEMBERS])


def summary(group: Group, names: Mapping[str, str], facts: Sequence[str], limit: int) -> str:
    """Size, the members around which it turns, and a few of its facts, within ``limit`` characters."""
    head = f"{len(group.members)} entities around {name(group, names)}"
    text = head + (": " + "; ".join(facts[:SUMMARY_FACTS]) if facts else "")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(";", 1)[0].rstrip(",; ")
    return (cut if len(cut) > len(head) else text[: limit - 1].rstrip()) + "…"
