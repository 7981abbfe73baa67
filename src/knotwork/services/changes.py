"""Values that change, as the knowledge service writes them: which subject and predicate a change is about, which stored values were stated as a turn ("now …"), and which older memories a change supersedes."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from knotwork.domain.models import Memory
from knotwork.knowledge import extract as rules_extract
from knotwork.knowledge.cues import TURNS
from knotwork.knowledge.facts import lone_later
from knotwork.knowledge.models import Fact, FactDraft
from knotwork.knowledge.resolve import normalize
from knotwork.knowledge.vocabulary import fit

if TYPE_CHECKING:
    from knotwork.config import Settings


def names_word(text: str, name: str) -> bool:
    """Does ``text`` name ``name`` as a whole word (any case)?"""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


class ValueChanges:
    """The store reads behind a value change (no writes: the knowledge service writes what they find)."""

    def __init__(self, store: Any, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    def turns(self, predicate: str, object_id: str, valid_at: datetime | None, stored: Sequence[Fact]) -> set[str]:
        """The stored facts, starting after ``valid_at`` with nothing else held then, that their memories state
        as a turn ("is now deployed on Z", "switched to Z"): the turn is not kept on the fact, so those memories
        are read again, only when such a later value is there (a value arriving after the one that replaced it)."""
        if (predicate not in TURNS and predicate != "uses") or self.settings.kg_extract != "rules":
            return set()
        later = [g for g in lone_later(object_id, valid_at, stored) if g.extractor in ("rules", "parser")]
        if not later:
            return set()
        memories = self.store.get_memories(sorted({m for g in later for m in g.sources}))
        said = {m: rules_extract.extract(x.content) for m, x in memories.items()}
        return {g.id for g in later for m in g.sources if m in said and any(
            d.turn and d.predicate == predicate and normalize(d.object) == normalize(g.object)
            and normalize(d.subject) == normalize(g.subject) for d in said[m].facts)}

    def redirect(self, memory: Memory, facts: Sequence[FactDraft], entity_of: dict[str, str]) -> list[FactDraft]:
        """Trigger: a change stated under the change verbs' predicate ("moved the docs site from Netlify to Vercel":
        ``uses``) whose subject holds the replaced value under another predicate only ("docs site runs_on
        Netlify"). Why: the stored predicate says which relation changed; under ``uses`` the change would
        retire nothing and leave Netlify current. Outcome: when exactly one other predicate holds the old value
        for that subject (current at the memory's time) and the new value fits it, the change is stated under
        that predicate instead; otherwise the fact stays as it was found."""
        out: list[FactDraft] = []
        for f in facts:
            subject_id = entity_of.get(normalize(f.subject))
            old_id = entity_of.get(normalize(f.replaces)) if f.replaces else None
            if subject_id is None or old_id is None:
                out.append(f)
                continue
            held = {x.predicate for x in self.store.kg_facts_touching(
                [old_id], workspace=memory.workspace, at=memory.valid_at, include_invalid=False)
                if x.subject_id == subject_id and x.object_id == old_id}
            if f.predicate in held or len(held) != 1:
                out.append(f)
                continue
            predicate = next(iter(held))
            fits = fit(predicate, f.subject, f.subject_type, f.object, f.object_type, f.replaces) > 0
            out.append(replace(f, predicate=predicate) if fits else f)
        return out

    def held_by_one(self, memory: Memory, facts: Sequence[FactDraft], entity_of: dict[str, str]) -> list[FactDraft]:
        """Trigger: "we moved from Redis to Valkey" when the graph holds "session store uses Redis". Why: "we"
        speaks for the team's systems, and the value that changed is the system's. Outcome: when exactly one
        other subject holds the replaced value (same predicate, current at the memory's time), the change is
        stated for it too (its Redis retires, Valkey starts); with none or several, only the team's.

        Trigger: none holds it under the same predicate, but the memory names a system that holds it under
        another ("we switched CI from Jenkins to GitHub Actions" when the graph holds "CI runs_on Jenkins").
        Why: the change is that system's, and its predicate says which relation changed. Outcome: when exactly
        one fact of a named subject holds the replaced value, and the new value fits that predicate's kinds,
        the change is stated for that subject and predicate; otherwise nothing more."""
        out: list[FactDraft] = []
        for f in facts:
            old_id = entity_of.get(normalize(f.replaces)) if f.replaces and f.subject == "Team" else None
            if old_id is None:
                continue
            holding = [x for x in self.store.kg_facts_touching(
                [old_id], workspace=memory.workspace, at=memory.valid_at, include_invalid=False)
                if x.object_id == old_id and x.subject != "Team"]
            holders = {x.subject_id: x for x in holding if x.predicate == f.predicate}
            if not holders:
                named = [x for x in holding if names_word(memory.content, x.subject)
                         and fit(x.predicate, x.subject, None, f.object, f.object_type, f.replaces) > 0]
                holders = {(x.subject_id, x.predicate): x for x in named}  # type: ignore[misc]
            if len(holders) == 1:
                held = next(iter(holders.values()))
                entity_of.setdefault(normalize(held.subject), held.subject_id)
                out.append(FactDraft(held.subject, held.predicate, f.object, replaces=f.replaces,
                                     object_type=f.object_type, confidence=f.confidence))
        return out

    def supersede_stated(self, memory: Memory, ended: list[str], report: Callable[[str, str, str], None]) -> None:
        """The memory layer sees a value change the graph saw.

        Trigger: this memory's facts retired facts that earlier memories stated ("moved from Redis to
        Valkey" after "the session store uses Redis"). Why: the older memory now says something no longer
        true, whatever its wording. Outcome: an older memory none of whose facts is still open (so it
        states nothing else that holds) is reported to ``report`` (the service's ``on_value_changed``), which links this memory
        to it with ``supersedes``; a memory that still states another open fact is left alone, unless this
        memory states that fact too ("The worker moved from Redis to Valkey; the worker still uses Celery" after
        "The worker uses Celery and Redis": the Celery fact, restated, is not lost with the older memory)."""
        facts = self.store.kg_get_facts(list(dict.fromkeys(ended)))
        olds = {m for f in facts.values() for m in f.sources if m != memory.id}
        if not olds:
            return
        counts = self.store.kg_fact_counts(sorted(olds))
        for old in sorted(olds):
            # its own facts, and those it shares only with this memory: ended here (this memory restated them,
            # e.g. to end them), or restated and still open
            ours = self.store.kg_get_facts(self.store.kg_facts_only_from(old, also=memory.id))
            restated = {f.id for f in ours.values() if memory.id in f.sources and f.invalid_at is None}
            stated = {i: f for i, f in ours.items() if memory.id not in f.sources or i in facts or i in restated}
            if not stated or counts.get(old, 0) != len(stated):
                continue  # another memory states some of its facts too: not this memory's change alone
            if all(f.invalid_at is not None or f.id in restated for f in stated.values()) and any(
                    f.invalid_at is not None for f in stated.values()):
                changed = next(f for f in facts.values() if old in f.sources)
                report(memory.id, old, f"stated value changed: {changed.fact}")

    def follow_superseded(self, memory_id: str) -> list[tuple[str, datetime, str, tuple[str, str]]]:
        """The graph follows a value change consolidation saw.

        Trigger: a ``supersedes`` link made by consolidation (metadata ``consolidation``) touches this memory
        ("Harbor's primary database is PostgreSQL 16" superseding "... is MySQL 5.7", in either arrival order).
        Why: the older memory's value no longer holds, and a fact that only it states must not stay current.
        Outcome: (fact id, invalid_at, superseded_by, its two entities) for each open fact stated by the older memory alone whose
        subject and predicate a fact stated by the newer memory alone has with another object: it retires at
        the newer memory's ``valid_at``, superseded by that fact. Nothing when either memory has no facts yet
        (the one read in later finds the link then) or when the two share no subject and predicate."""
        out: list[tuple[str, datetime, str, tuple[str, str]]] = []
        for link in self.store.links_touching([memory_id], "both", ["supersedes"]):
            if "consolidation" not in link.metadata:
                continue
            newer = self.store.get_memory(link.from_id)
            if newer is None:
                continue
            later = self.store.kg_get_facts(self.store.kg_facts_only_from(link.from_id))
            if not later:
                continue
            earlier = self.store.kg_get_facts(self.store.kg_facts_only_from(link.to_id))
            for old in earlier.values():
                if old.invalid_at is not None:
                    continue
                for new in later.values():
                    if (new.subject_id, new.predicate) == (old.subject_id, old.predicate) and new.object_id != old.object_id:
                        out.append((old.id, newer.valid_at, new.id, (old.subject_id, old.object_id)))
                        break
        return out
