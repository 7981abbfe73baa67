"""Memory hygiene on top of the store: consolidation on add, snapshots, expiry, duplicates and merges.

Called by the ``Knotwork`` facade (``add``, ``find_duplicates``, ``merge``,
``prune``, ``prune_snapshots``). Decisions come from the pure rules of
``knotwork.hygiene``; this module finds their inputs and writes their outcome.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.domain import rules
from knotwork.domain.models import SNAPSHOT, Memory, MemoryFilter
from knotwork.domain.temporal import now, to_text
from knotwork.errors import InvalidInput, quote
from knotwork.hygiene import consolidate as rules_c
from knotwork.hygiene.instructions import Instructions
from knotwork.search.lexical import query_terms

if TYPE_CHECKING:
    from knotwork.service import Knotwork
    from knotwork.services.knowledge import GraphInput

CANDIDATES = 8  # nearest memories a new one is compared with
FIRST_PRUNE = "snapshots_first_prune"  # set once the upgrade's snapshot prune has run


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """Memories of one workspace and partition that say nearly the same (cosine >= the threshold), oldest first."""

    ids: list[str]
    score: float  # the lowest pair similarity that joined the group
    workspace: str | None
    agent_id: str | None
    previews: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"ids": self.ids, "score": round(self.score, 4), "workspace": self.workspace,
                "agent_id": self.agent_id, "previews": self.previews}


@dataclass(frozen=True, slots=True)
class MergeReport:
    """``kept`` supersedes each of ``merged``: they are retired (readable, with history and links), not deleted."""

    kept: str
    merged: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"kept": self.kept, "merged": self.merged}


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What a prune removed: expired memories (with their vectors, links and the facts that rested on them alone)
    and snapshots beyond the latest of each day."""

    expired: int
    snapshots: int
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"expired": self.expired, "snapshots": self.snapshots, "at": to_text(self.at)}


def _snapshot_key(m: Memory) -> str | None:
    return m.tags.get("key") if m.category == SNAPSHOT else None


class Hygiene:
    """The hygiene operations of one ``Knotwork``."""

    def __init__(self, mem: Knotwork, instructions: Instructions) -> None:
        self.mem = mem
        self.store = mem.store
        self.instructions = instructions

    # -- add --------------------------------------------------------------------
    def add(self, draft: Memory, graph: GraphInput, *, consolidate: bool, force: bool) -> Memory:
        if not isinstance(consolidate, bool):
            raise InvalidInput("consolidate", f"must be true or false, got {quote(consolidate)}")
        if not isinstance(force, bool):
            raise InvalidInput("force", f"must be true or false, got {quote(force)}")
        mem = self.mem
        if not force:
            reason = self.instructions.ignore_reason(draft.content, draft.category)
            if reason:
                # Trigger: the store/ignore rules say this text is not worth keeping. Outcome: nothing is
                # stored; the draft comes back (its id resolves to nothing) with the reason.
                self.store.bump_counter("ignored_adds")
                return draft.decided("IGNORE", None, reason)
        if self.store.find_memory_by_hash(draft.workspace, draft.agent_id, draft.content_hash):
            self.store.bump_counter("duplicates_detected")
            return mem._insert([draft], [graph])[0]
        key = _snapshot_key(draft)
        if key is not None:
            return self._add_snapshot(draft, graph, key)
        vectors = mem._vectors([draft.content])[0] if mem.embedder else None
        if consolidate:
            decision = self.decide(draft, vectors)
            if decision.kind == "NOOP":
                self.store.bump_counter("duplicates_detected")
                return mem.get(decision.target).decided("NOOP", decision.target, decision.reason)
            if decision.kind == "UPDATE" and not (graph.entities or graph.facts):
                self.store.bump_counter("duplicates_detected")
                self.store.bump_counter("duplicates_merged")
                old = mem.get(decision.target)
                updated = mem.update(
                    old.id,
                    content=draft.content,
                    tags={**old.tags, **draft.tags},
                    artifacts=list(dict.fromkeys(old.artifacts + draft.artifacts)),
                    evidence=list(dict.fromkeys(old.evidence + draft.evidence)),
                    importance=max(old.importance, draft.importance),
                )
                return updated.decided("UPDATE", old.id, decision.reason)
            if decision.kind == "SUPERSEDE":
                with self.store.transaction():
                    new = mem._insert([draft], [graph], {draft.id: vectors} if vectors else None)[0]
                    mem.link(new.id, decision.target, "supersedes", {"consolidation": decision.reason})
                self.store.bump_counter("superseded_on_add")
                return new.decided("SUPERSEDE", decision.target, decision.reason)
        return mem._insert([draft], [graph], {draft.id: vectors} if vectors else None)[0]

    def candidates(self, draft: Memory, vectors: list[bytes] | None) -> list[tuple[str, str, float]]:
        """(id, content, similarity) of current memories of the draft's own workspace and partition that come
        near it, nearest first: cosine with an embedder, word overlap without one."""
        at = now()
        flt = MemoryFilter(workspace=draft.workspace, agent_id=draft.agent_id)
        # Inside a caller's open transaction the index must not sync (it would take in vectors a rollback
        # may take back, see SimilarLists.transaction): word overlap over the full-text index serves then.
        if vectors and self.mem.index is not None and not self.store.in_transaction():
            import numpy as np

            query = np.frombuffer(vectors[0], dtype="<f4")
            hits = self.mem.index.search(query, CANDIDATES, draft.workspace)
            scored = [(h.memory_id, h.similarity) for h in hits if h.similarity >= rules_c.CANDIDATE_COSINE]
        else:
            found = self.store.fts_candidates(query_terms(draft.content), flt, CANDIDATES, at)
            texts = self.store.content_starts([mid for mid, _ in found], 100_000)
            scored = sorted(((mid, rules_c.overlap(draft.content, texts.get(mid, ""))) for mid, _ in found), key=lambda p: -p[1])
        allowed = self.store.filter_memory_ids([mid for mid, _ in scored], flt, at)
        memories = self.store.get_memories([mid for mid, _ in scored if mid in allowed])
        return [
            (mid, memories[mid].content, score)
            for mid, score in scored
            if mid in memories and memories[mid].workspace == draft.workspace and memories[mid].agent_id == draft.agent_id
        ]

    def decide(self, draft: Memory, vectors: list[bytes] | None) -> rules_c.Decision:
        return rules_c.decide(draft.content, self.candidates(draft, vectors))

    # -- snapshots ----------------------------------------------------------------
    def _add_snapshot(self, draft: Memory, graph: GraphInput, key: str) -> Memory:
        day = draft.valid_at.date()
        same_day = [r for r in self.store.snapshot_rows(draft.workspace, draft.agent_id, key) if r[4].date() == day]
        later = [r for r in same_day if r[4] > draft.valid_at]
        if later:  # a later snapshot of that day is already kept: this older one adds nothing
            return self.mem.get(later[-1][0]).decided("NOOP", later[-1][0], f"a later snapshot of {day} is kept")
        with self.mem._similar.transaction():
            new = self.mem._insert([draft], [graph])[0]
            self.mem._purge([r[0] for r in same_day])
        if same_day:
            self.store.bump_counter("snapshots_replaced", len(same_day))
            return new.decided("ADD", same_day[-1][0], f"replaced {len(same_day)} earlier snapshot(s) of {day}")
        return new

    def prune_snapshots(self) -> int:
        """Keep the latest snapshot of each day per (workspace, partition, key); returns how many went."""
        keep: dict[tuple, str] = {}
        drop: list[str] = []
        for mid, workspace, agent, key, valid_at in self.store.snapshot_rows(everywhere=True):  # oldest first
            group = (workspace, agent, key, valid_at.date())
            if group in keep:
                drop.append(keep[group])
            keep[group] = mid
        if drop:
            with self.mem._similar.transaction():
                self.mem._purge(drop)
            self.store.bump_counter("snapshots_pruned", len(drop))
        self.store.set_counter("last_snapshot_prune", to_text(now()))
        return len(drop)

    def upgrade(self) -> None:
        """Run the snapshot prune once on a store that has never had one (an upgrade)."""
        if FIRST_PRUNE not in self.store.counters():
            self.prune_snapshots()
            self.store.set_counter(FIRST_PRUNE, to_text(now()))

    # -- expiry -------------------------------------------------------------------
    def prune(self) -> PruneReport:
        """Purge expired memories (vectors, links, facts that rested on them alone) and prune snapshots."""
        at = now()
        expired = 0
        while batch := self.store.expired_memory_ids(at, 500):
            with self.mem._similar.transaction():
                self.mem._purge(batch)
            expired += len(batch)
        if expired:
            self.store.bump_counter("expired_purged", expired)
        snapshots = self.prune_snapshots()
        self.store.set_counter("last_prune", to_text(at))
        return PruneReport(expired, snapshots, at)

    # -- duplicates ------------------------------------------------------------------
    def find_duplicates(self, threshold: Any, workspace: Any, agent_id: Any, limit: Any) -> list[DuplicateGroup]:
        level = rules.threshold(threshold)
        scope, partition, size = rules.scope(workspace), rules.partition(agent_id), rules.limit(limit)
        if self.mem.index is None:
            raise InvalidInput("embedder", "finding near-duplicates needs an embedder (KNOTWORK_EMBEDDER=none)")
        pairs = self.store.similar_pairs(level)
        at = now()
        flt = MemoryFilter(workspace=scope, agent_id=partition)
        allowed = self.store.filter_memory_ids(list({i for p in pairs for i in p[:2]}), flt, at)
        memories = self.store.get_memories(sorted(allowed))
        parent: dict[str, str] = {}

        def root(x: str) -> str:
            while parent.get(x, x) != x:
                x = parent[x]
            return x

        lowest: dict[str, float] = {}
        for a, b, score in pairs:
            ma, mb = memories.get(a), memories.get(b)
            if not ma or not mb or (ma.workspace, ma.agent_id) != (mb.workspace, mb.agent_id):
                continue
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[ra] = rb
                lowest[rb] = min(score, lowest.get(ra, 1.0), lowest.get(rb, 1.0))
        groups: dict[str, list[Memory]] = {}
        for mid in parent.keys() | set(parent.values()):
            groups.setdefault(root(mid), []).append(memories[mid])
        out = []
        for r, members in groups.items():
            members.sort(key=lambda m: (m.created_at, m.id))
            out.append(DuplicateGroup(
                [m.id for m in members], lowest.get(r, level), members[0].workspace, members[0].agent_id,
                [m.content[:80] for m in members],
            ))
        out.sort(key=lambda g: (-g.score, g.ids[0]))
        return out[:size]

    def merge(self, ids: Any) -> MergeReport:
        if not isinstance(ids, list | tuple) or not all(isinstance(i, str) for i in ids):
            raise InvalidInput("ids", "expected a list of memory ids")
        memories: list[Memory] = []
        for ref in ids:
            m = self.mem.get(ref)
            if m.id not in {x.id for x in memories}:
                memories.append(m)
        if len(memories) < 2:
            raise InvalidInput("ids", "give at least two different memories to merge")
        if len({m.workspace for m in memories}) > 1:
            raise InvalidInput(
                "ids", "memories of different workspaces cannot be merged: "
                + ", ".join(sorted({repr(m.workspace or 'global') for m in memories}))
            )
        if len({m.agent_id for m in memories}) > 1:
            raise InvalidInput("ids", "memories of different partitions (agent_id) cannot be merged")
        kept, others = memories[0], memories[1:]
        with self.store.transaction():
            for m in others:
                self.mem.link(kept.id, m.id, "supersedes", {"merged": True})
        self.store.bump_counter("duplicates_merged", len(others))
        return MergeReport(kept.id, [m.id for m in others])



class PruneWorker:
    """Runs ``prune`` every ``interval`` seconds on a daemon thread until :meth:`stop`; the first run comes
    ``first_after`` seconds after the start (at most a minute), not while the server is starting."""

    def __init__(self, prune: Callable[[], object], interval: float, first_after: float = 60.0) -> None:
        self.prune = prune
        self.interval = interval
        self.first_after = min(first_after, interval)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="knotwork-prune", daemon=True)

    def start(self) -> PruneWorker:
        self._thread.start()
        return self

    def _run(self) -> None:
        wait = self.first_after
        while not self._stop.wait(wait):
            wait = self.interval
            try:
                self.prune()
            except Exception:  # noqa: BLE001 - a busy database now is no reason to stop for good
                logging.getLogger("knotwork.hygiene").warning("prune failed; trying again later", exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
