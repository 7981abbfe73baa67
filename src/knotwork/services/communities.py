"""Communities of the knowledge graph: detected, stored, refreshed where facts changed.

Every change to an entity's facts (a new fact, a retired one, a deletion, a
merge) marks the entity *dirty* in the store. :meth:`CommunityService.refresh`
re-runs detection on the connected components of the dirty entities only
(``knowledge.communities`` explains why that equals a full rebuild), and
:meth:`CommunityService.rebuild` recomputes a workspace from scratch.
Reading communities refreshes first, so what is read is never stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from knotwork.domain import ids
from knotwork.domain.models import ALL_WORKSPACES
from knotwork.domain.temporal import now
from knotwork.knowledge import communities as algo
from knotwork.knowledge.models import Community

SUMMARY_CHARS = 280


class CommunityService:
    def __init__(self, store: Any) -> None:
        self.store = store

    def _workspaces(self, scope: str | None) -> list[str]:
        """The concrete workspaces a scope covers: W and global, global only, or every one."""
        if scope == ALL_WORKSPACES:
            return sorted(set(self.store.kg_graph_workspaces()) | set(self.store.kg_dirty_workspaces()))
        return ["", scope] if scope else [""]

    def _groups(self, ws: str, g: Any, comps: Sequence[Sequence[str]], at: datetime) -> list[tuple[Community, list[str]]]:
        found = [grp for comp in comps for grp in algo.detect(g, comp)]
        members = [m for grp in found for m in grp.members]
        names = {eid: e.name for eid, e in self.store.kg_get_entities(members).items()}
        facts = self.store.kg_facts_touching(members, workspace=ALL_WORKSPACES, at=at, include_invalid=False) if members else []
        out = []
        for grp in found:
            inside = set(grp.members)
            strong = sorted(
                (f for f in facts if f.subject_id in inside and f.object_id in inside),
                key=lambda f: (-(grp.degree[f.subject_id] + grp.degree[f.object_id]), f.fact),
            )
            texts = list(dict.fromkeys(f.fact for f in strong))
            c = Community(ids.new_id(), ws or None, algo.name(grp, names), algo.summary(grp, names, texts, SUMMARY_CHARS), ())
            out.append((c, list(grp.members)))
        return out

    def rebuild(self, scope: str | None) -> None:
        """Recompute every community of the workspaces in ``scope`` from the current facts."""
        at = now()
        for ws in self._workspaces(scope):
            with self.store.transaction():
                g = algo.graph(self.store.kg_edges(ws, at))
                groups = self._groups(ws, g, algo.components(g), at)
                self.store.kg_replace_communities(ws, groups, at)
                self.store.kg_clear_dirty(ws)

    def refresh(self, scope: str | None) -> int:
        """Re-run detection on the components whose facts changed; returns how many entities that covered."""
        at = now()
        covered = 0
        for ws in self._workspaces(scope):
            dirty = self.store.kg_dirty(ws)
            if not dirty:
                continue
            with self.store.transaction():
                g = algo.graph(self.store.kg_edges(ws, at))
                stored = [(c.id, set(m)) for c, m in self.store.kg_communities(ws) if (c.workspace or "") == ws]
                affected = set(dirty)
                # An old community that loses or gains members is dropped whole: its members' components
                # are recomputed too (a removed fact can split a component; each piece holds an end of it).
                while True:
                    nodes = {n for comp in algo.components(g, affected) for n in comp} | affected
                    grown = nodes | {m for _, members in stored if members & nodes for m in members}
                    if grown == affected:
                        break
                    affected = grown
                comps = algo.components(g, affected)
                drop = [cid for cid, members in stored if members & affected]
                self.store.kg_swap_communities(ws, drop, self._groups(ws, g, comps, at), at)
                self.store.kg_clear_dirty(ws, dirty)
            covered += sum(len(c) for c in comps)
        return covered

    def list(self, scope: str | None, entity_ids: Sequence[str] | None = None, limit: int = 20) -> list[Community]:
        """Communities in scope, largest first (only those holding one of ``entity_ids`` when given)."""
        self.refresh(scope)
        wanted = set(entity_ids) if entity_ids is not None else None
        rows = [(c, m) for c, m in self.store.kg_communities(scope) if wanted is None or wanted & set(m)]
        rows = rows[:limit]
        names = {eid: e.name for eid, e in self.store.kg_get_entities([m for _, ms in rows for m in ms]).items()}
        degree = self.store.kg_degree([m for _, ms in rows for m in ms]) if rows else {}
        out = []
        for c, members in rows:
            ranked = sorted(members, key=lambda m: (-degree.get(m, 0), names.get(m, m)))
            out.append(Community(c.id, c.workspace, c.name, c.summary, tuple(names[m] for m in ranked if m in names)))
        return out

    def of(self, entity_ids: Sequence[str]) -> dict[str, Community]:
        """The stored community of each entity (as last refreshed; members not filled in)."""
        membership = self.store.kg_community_of(entity_ids)
        if not membership:
            return {}
        by_id = self.store.kg_get_communities(list(set(membership.values())))
        return {eid: by_id[cid] for eid, cid in membership.items() if cid in by_id}
