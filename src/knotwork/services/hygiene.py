"""Memory hygiene on top of the store: consolidation on add, snapshots, expiry, duplicates and merges.

Called by the ``Knotwork`` facade (``add``, ``find_duplicates``, ``merge``,
``prune``, ``prune_snapshots``). Decisions come from the pure rules of
``knotwork.hygiene``; this module finds their inputs. An add's decisions go
down as a plan (:class:`~knotwork.services.addplan.AddPlan`) that the write
path (:meth:`~knotwork.services.writes.WritePath.apply`) writes in one
transaction: nothing here calls back up to the facade, and the write path
asks nothing of the deciding side while it holds the write lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from knotwork.domain import rules
from knotwork.domain.models import FIRST_PRUNE, SNAPSHOT, Memory, MemoryFilter
from knotwork.domain.temporal import now, to_text
from knotwork.errors import InvalidInput, quote
from knotwork.hygiene import consolidate as rules_c
from knotwork.hygiene import judge
from knotwork.hygiene.judge import ConsolidationJudge
from knotwork.hygiene.instructions import Instructions
from knotwork.knowledge.llm import ChatEndpoint
from knotwork.search.lexical import query_terms
from knotwork.services import links, lookup
from knotwork.services.addplan import AddPlan, Link, Step

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.services.knowledge import GraphInput
    from knotwork.services.writes import WritePath


CANDIDATES = 8  # nearest memories a new one is compared with


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


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What a store check found wrong, and what it repaired (``ok``: nothing is wrong now)."""

    problems: list[str]
    repaired: list[str]
    orphans: dict[str, int]

    @property
    def ok(self) -> bool:
        return not self.problems and not any(self.orphans.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": self.problems, "repaired": self.repaired, "orphans": self.orphans}


def _snapshot_key(m: Memory) -> str | None:
    return m.tags.get("key") if m.category == SNAPSHOT else None


class Hygiene:
    """The hygiene operations of one ``Knotwork``."""

    def __init__(self, writes: WritePath, settings: Settings, instructions: Instructions) -> None:
        self.writes = writes
        self.store = writes.store
        self.instructions = instructions
        self.judge = (
            ConsolidationJudge(
                ChatEndpoint(settings.kg_llm_url, settings.kg_llm_model, settings.kg_llm_api_key, settings.consolidation_llm_timeout),
                instructions.prose(),
            )
            if settings.kg_llm_url and settings.consolidation_llm
            else None
        )

    # -- add --------------------------------------------------------------------
    def add(self, draft: Memory, graph: GraphInput, *, consolidate: bool, force: bool) -> Memory:
        return self.add_many([draft], [graph], consolidate=consolidate, force=force)[0]

    def add_many(self, drafts: list[Memory], graphs: list[GraphInput], *, consolidate: bool, force: bool) -> list[Memory]:
        """Each draft decided as one ``add`` would decide it (:meth:`plan`), then the plan written in one
        transaction by the write path (``WritePath.apply``): all land or none."""
        with self.writes.enrichment.writing():  # the enrichment worker defers to an add in flight
            return self.writes.apply(self.plan(drafts, graphs, consolidate=consolidate, force=force))

    def plan(self, drafts: list[Memory], graphs: list[GraphInput], *, consolidate: bool, force: bool) -> AddPlan:
        """What an add of ``drafts`` writes, each item decided in order; nothing is written here.

        An item is compared with the store and with the items before it in the batch (same workspace and
        partition), so a batch that repeats itself is consolidated too. Decisions are made before the write
        lock is taken (they read the vector index, which an open transaction must not sync); the write path
        then applies them in one transaction.
        """
        for name, flag in (("consolidate", consolidate), ("force", force)):
            if not isinstance(flag, bool):
                raise InvalidInput(name, f"must be true or false, got {quote(flag)}")
        writes = self.writes
        steps: list[Step | None] = [None] * len(drafts)
        kept: list[int] = []
        for i, draft in enumerate(drafts):
            reason = None if force else self.instructions.ignore_reason(draft.content, draft.category)
            if reason:
                # Trigger: the store/ignore rules say this text is not worth keeping. Outcome: nothing is
                # stored; the draft comes back (its id resolves to nothing) with the reason.
                steps[i] = Step("IGNORE", reason=reason)
            else:
                kept.append(i)
        # Exact duplicates are decided by content alone: of the store (stored once, the insert answers
        # with the existing memory), or of an earlier item (the same answer as that item).
        first: dict[tuple, int] = {}
        stored_before: set[int] = set()
        for i in kept:
            d = drafts[i]
            key = (d.workspace, d.agent_id, d.content_hash)
            if key in first:
                steps[i] = Step("REPEAT", f"#{first[key]}", "same content as an earlier item of the batch")
                continue
            first[key] = i
            if self.store.find_memory_by_hash(*key):
                stored_before.add(i)
                steps[i] = Step("STORE")
        fresh = [i for i in first.values() if i not in stored_before]
        weighed = [i for i in fresh if _snapshot_key(drafts[i]) is None]
        times = writes.times
        vectors: dict[int, list[bytes]] = {}
        if writes.embedder and weighed:
            with times.stage("embed"):
                vectors = dict(zip(weighed, writes.vectors([drafts[i].content for i in weighed])))
        decided: dict[int, rules_c.Decision] = {}
        others: dict[int, rules_c.Decision] = {}
        if consolidate:
            with times.stage("decide"):
                decided = self._decide(drafts, graphs, weighed, vectors, others)
        for i in weighed:
            steps[i] = self._step(drafts, i, decided[i], others.get(i), vectors.get(i)) if i in decided else Step("STORE")
        for i in fresh:
            if steps[i] is None:
                steps[i] = Step("SNAPSHOT", key=_snapshot_key(drafts[i]))
        planned = tuple(s for s in steps if s is not None)
        assert len(planned) == len(drafts)  # every item has its step
        repeats = sum(s.kind == "REPEAT" for s in planned)
        counts = (("duplicates_detected", repeats + len(stored_before)), ("ignored_adds", len(drafts) - len(kept)))
        return AddPlan(
            tuple(drafts), tuple(graphs), MappingProxyType({i: tuple(v) for i, v in vectors.items()}),
            planned, tuple((name, n) for name, n in counts if n),
        )

    def _step(self, drafts: list[Memory], i: int, decision: rules_c.Decision,
              other: rules_c.Decision | None = None, vectors: list[bytes] | None = None) -> Step:
        """One consolidation decision other than ADD as a step. A SUPERSEDE names its link: the new memory
        retires the stored one, or (an older value arriving late) the stored one retires the new one. A value
        between two others writes more links (``also``): the decision on the other side of the draft's
        valid_at among the current candidates (``other``, :meth:`_between`), and, for a late value, the older
        values the stored later one had retired (:meth:`_retired_between`).

        Trigger for the second: the value this add states held before the stored one (its ``valid_at`` is
        earlier). Why: values are ordered by valid_at, not by arrival. Outcome: the stored memory supersedes
        the new one, which is stored retired from the stored one's valid_at; the answer is an ADD that says so.
        """
        target = decision.target or ""
        if decision.kind != "SUPERSEDE":
            return Step(decision.kind, target, decision.reason)
        then = self._valid_at(drafts, target)  # an earlier item of the batch: its draft's valid_at
        link = self._link(drafts, i, decision, then)
        also: list[Link] = []
        if other is not None:
            side = self._link(drafts, i, other, self._valid_at(drafts, other.target or ""))
            if side.arrived_late != link.arrived_late:  # both on one side of the draft: one link says it
                also.append(side)
        if link.arrived_late and not target.startswith("#"):
            named = {a.target for a in also}
            also += [a for a in self._retired_between(drafts[i], i, target, vectors) if a.target not in named]
        return Step("SUPERSEDE", target, decision.reason, link, tuple(also))

    def _retired_between(self, draft: Memory, i: int, later: str, vectors: list[bytes] | None) -> tuple[Link, ...]:
        """The older values a late draft retires too: those the stored ``later`` memory retired that held when
        the draft's value began, where consolidation reads the draft as their change.

        Trigger: an older value arriving late ("200", dated May) after the stored later one ("300", September)
        had retired an older one still ("100", January). Why: values are ordered by valid_at; left alone, "100"
        stays current up to September beside "200", and a reader ``as_of`` June is given two values. Outcome:
        the draft supersedes "100" as well (retired from the draft's valid_at, its note naming the draft), when
        the rules, asked of the two as a newer and an older text, read a change; else nothing."""
        found = []
        for rel in self.store.links_touching([later], "outgoing", ["supersedes"]):
            old = self.store.get_memory(rel.to_id)
            if old is None or old.invalid_at is None or not old.valid_at < draft.valid_at < old.invalid_at \
                    or (old.workspace, old.agent_id) != (draft.workspace, draft.agent_id):
                continue
            if vectors and self.writes.embedder is not None:
                import numpy as np

                a, b = (np.frombuffer(v, dtype="<f4") for v in (vectors[0], self.writes.vectors([old.content])[0][0]))
                score = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0))
            else:
                score = rules_c.overlap(draft.content, old.content)
            decision = rules_c.decide(draft.content, [(old.id, old.content, score)])
            if decision.kind == "SUPERSEDE":
                found.append(Link(f"#{i}", old.id, {"consolidation": decision.reason}))
        return tuple(found)

    def _valid_at(self, drafts: list[Memory], target: str) -> datetime:
        """When the stored memory (or the earlier batch item ``#<index>``) ``target`` holds from."""
        if target.startswith("#"):
            return drafts[int(target[1:])].valid_at
        return lookup.current(self.store, target).valid_at

    @staticmethod
    def _link(drafts: list[Memory], i: int, decision: rules_c.Decision, then: datetime) -> Link:
        """The supersedes link of a SUPERSEDE: the draft retires ``decision.target``, or (its value held before the
        target's, ``then``) the target retires the draft."""
        target = decision.target or ""
        if drafts[i].valid_at < then:
            return Link(target, f"#{i}", {"consolidation": decision.reason, "arrived_late": True})
        return Link(f"#{i}", target, {"consolidation": decision.reason})

    def _decide(
        self, drafts: list[Memory], graphs: list[GraphInput], weighed: list[int], vectors: dict[int, list[bytes]],
        others: dict[int, rules_c.Decision] | None = None,
    ) -> dict[int, rules_c.Decision]:
        """Consolidation decisions other than ADD for the ``weighed`` items, each against the store and against
        the earlier items of the batch that will be stored (a batch target is named ``#<index>``); a SUPERSEDE's
        other end, where the draft's value came between two stored ones, goes to ``others`` (:meth:`_between`)."""
        plan: dict[int, rules_c.Decision] = {}
        near = self._near_in_batch(drafts, weighed, vectors)
        for pos, i in enumerate(weighed):
            draft = drafts[i]
            found = self.candidates(draft, vectors.get(i))
            for j, score in near(pos):
                if j not in plan or plan[j].kind == "SUPERSEDE":  # j is stored as a memory of its own
                    found.append((f"#{j}", drafts[j].content, score))
            found.sort(key=lambda c: -c[2])
            decision = rules_c.decide(draft.content, found[:CANDIDATES], self._stated_later(drafts, i, found[:CANDIDATES]))
            if self.judge is not None and judge.unclear(decision, found):
                ruled = self.judge.decide(draft.content, found)
                self.store.bump_counter("consolidation_llm_asked" if ruled else "consolidation_llm_failed")
                decision = ruled or decision
            if decision.kind == "UPDATE" and (graphs[i].entities or graphs[i].facts):
                continue  # the caller's entities and facts need a memory of their own to rest on: ADD
            if decision.kind != "ADD":
                plan[i] = decision
            if decision.kind == "SUPERSEDE" and others is not None:
                if other := self._between(drafts, i, decision, found):
                    others[i] = other
        return plan

    def _between(self, drafts: list[Memory], i: int, decision: rules_c.Decision,
                 found: list[tuple[str, str, float]]) -> rules_c.Decision | None:
        """The other end of a SUPERSEDE whose draft states a value between two stored ones.

        Trigger: an older note arriving late ("Docs are hosted on GitHub Pages", March) that supersedes a stored
        older value (Read the Docs, January) while a stored later one (Netlify, June) would retire it, or the
        other way round. Why: values are ordered by valid_at; one link retires one memory, and the draft would
        stay current beside the later value. Outcome: the decision against the candidates on the other side of
        the draft's valid_at, when it is a SUPERSEDE too: both links are written.
        """
        at = drafts[i].valid_at
        then = self._valid_at(drafts, decision.target or "")
        rest = [c for c in found[:CANDIDATES] if c[0] != decision.target]
        if not rest:
            return None
        stored = self.store.get_memories([mid for mid, _, _ in rest if not mid.startswith("#")])  # one read
        dates = {mid: drafts[int(mid[1:])].valid_at if mid.startswith("#") else stored[mid].valid_at
                 for mid, _, _ in rest if mid.startswith("#") or mid in stored}
        rest = [c for c in rest if c[0] in dates]
        side = [c for c in rest if (dates[c[0]] > at) != (then > at) and dates[c[0]] != at]
        if not side:
            return None
        later = {mid for mid, _, _ in side if dates[mid] > at}
        other = rules_c.decide(drafts[i].content, side, later)
        return other if other.kind == "SUPERSEDE" else None

    def _stated_later(self, drafts: list[Memory], i: int, found: list[tuple[str, str, float]]) -> set[str]:
        """The candidates of several clauses (a ";"), or with a closing phrase of when or why, or a change said
        from A to B (:func:`~knotwork.hygiene.consolidate.read_by_date`), whose ``valid_at`` is later than the
        draft's.

        Trigger: an older value arriving late ("The default timeout is 5 minutes", dated April) against a stored
        later memory of several clauses ("Bumped the default timeout to 20 minutes; large repositories hit the
        limit"). Why: consolidation reads the later text's clauses one by one and the earlier text whole (the one
        that would retire must be wholly replaced), and only the dates say which is which. Outcome: those
        candidates' ids, for :func:`~knotwork.hygiene.consolidate.decide`; a read of the stored ones' dates only
        when a candidate reads so."""
        several = [mid for mid, text, _ in found if rules_c.read_by_date(text)]
        if not several:
            return set()
        at = drafts[i].valid_at
        later = {mid for mid in several if mid.startswith("#") and drafts[int(mid[1:])].valid_at > at}
        stored = self.store.get_memories([mid for mid in several if not mid.startswith("#")])
        return later | {mid for mid, m in stored.items() if m.valid_at > at}

    @staticmethod
    def _near_in_batch(
        drafts: list[Memory], weighed: list[int], vectors: dict[int, list[bytes]]
    ) -> Callable[[int], list[tuple[int, float]]]:
        """For the item at position ``pos`` of ``weighed``: the earlier items of its workspace and partition that
        come near it, with their similarity (cosine of first chunks, or word overlap without an embedder)."""
        import numpy as np

        group = [(drafts[i].workspace, drafts[i].agent_id) for i in weighed]
        sims = None
        if vectors and all(vectors.get(i) for i in weighed):
            matrix = np.stack([np.frombuffer(vectors[i][0], dtype="<f4") for i in weighed])
            sims = matrix @ matrix.T
        else:
            sets = [set(rules_c.words(drafts[i].content)) for i in weighed]

        def near(pos: int) -> list[tuple[int, float]]:
            if sims is not None:
                row = sims[pos, :pos]
                earlier = np.nonzero(row >= rules_c.READER_COSINE)[0].tolist()
                scored = [(q, float(row[q])) for q in earlier]
            else:
                mine = sets[pos]
                scored = [(q, len(mine & sets[q]) / (len(mine | sets[q]) or 1)) for q in range(pos)]
            return [(weighed[q], s) for q, s in scored if s >= rules_c.READER_COSINE and group[q] == group[pos]]

        return near

    def candidates(self, draft: Memory, vectors: list[bytes] | None) -> list[tuple[str, str, float]]:
        """(id, content, similarity) of current memories of the draft's own workspace and partition that come
        near it, nearest first: cosine with an embedder, word overlap without one."""
        at = now()
        flt = MemoryFilter(workspace=draft.workspace, agent_id=draft.agent_id)
        # Inside a caller's open transaction the index must not sync (it would take in vectors a rollback
        # may take back, see SimilarLists.transaction): word overlap over the full-text index serves then.
        if vectors and self.writes.index is not None and not self.store.in_transaction():
            import numpy as np

            query = np.frombuffer(vectors[0], dtype="<f4")
            hits = self.writes.index.search(query, CANDIDATES, draft.workspace)
            scored = [(h.memory_id, h.similarity) for h in hits if h.similarity >= rules_c.READER_COSINE]
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

    # -- snapshots ----------------------------------------------------------------
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
            with self.writes.transaction():
                self.writes.purge(drop)
            self.store.bump_counter("snapshots_pruned", len(drop))
        self.store.set_counter("last_snapshot_prune", to_text(now()))
        return len(drop)

    def upgrade(self) -> None:
        """Run the snapshot prune once on a store that has never had one (an upgrade)."""
        if FIRST_PRUNE not in self.store.counters():
            self.prune_snapshots()
            self.store.set_counter(FIRST_PRUNE, to_text(now()))

    # -- consistency ------------------------------------------------------------------
    def check(self, repair: bool) -> CheckReport:
        """The database's and the full-text index's own checks, memories without vectors, orphaned rows.
        With ``repair``: a full-text index that disagrees with the memories is built again, and memories
        without vectors are embedded (when an embedder is configured)."""
        if not isinstance(repair, bool):
            raise InvalidInput("repair", f"must be true or false, got {repair!r}")
        problems = self.store.integrity_problems()
        repaired: list[str] = []
        if repair and any(p.startswith("full-text index") for p in problems):
            self.store.rebuild_text_index()
            repaired.append("full-text index rebuilt")
            problems = self.store.integrity_problems()
        if self.writes.embedder is not None and (missing := self.store.count_without_vectors()):
            if repair:
                self.writes.embed_missing()
                repaired.append(f"{missing} memories without vectors embedded")
            else:
                problems.append(f"vectors: {missing} memories have none")
        return CheckReport(problems, repaired, self.store.count_orphans())

    # -- expiry -------------------------------------------------------------------
    def prune(self) -> PruneReport:
        """Purge expired memories (vectors, links, facts that rested on them alone) and prune snapshots."""
        at = now()
        expired = 0
        while batch := self.store.expired_memory_ids(at, 500):
            with self.writes.transaction():
                self.writes.purge(batch)
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
        if self.writes.index is None:
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
            m = lookup.current(self.store, ref)
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
                links.link(self.store, kept.id, m.id, "supersedes", {"merged": True})
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
