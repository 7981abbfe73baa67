"""Which extracted facts are stored and shown, and what one memory's reading hands the next one's.

- :func:`stored`: the offline candidates at least ``kg_min_store`` sure (the fact scorer's calibrated
  probability, :mod:`knotwork.knowledge.scorer`).
- :func:`shown`: what a read shows without ``min_confidence``: every fact but the offline extraction's
  under ``kg_min_confidence``; with it, the facts at least that sure (0: every stored fact).
- :func:`retiring`: the confidence a scored fact keeps when it retires an older value of its subject.
- :func:`contexts`: the people earlier memories of each scope named (:mod:`knotwork.knowledge.carry`),
  so that "she" or "my sister" in a new memory is the person an earlier one named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from knotwork.domain.temporal import now
from knotwork.knowledge import validate
from knotwork.knowledge.extract import extract_many
from knotwork.knowledge.models import Extraction, Fact, FactDraft
from knotwork.knowledge.resolve import normalize

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.domain.models import Memory

#: Extractors whose confidence is the fact scorer's calibrated probability: the store floor and the default
#: reading floor apply to their facts; a caller's or an LLM's confidence is its own word.
SCORED = frozenset({"rules", "parser"})
#: The newest memories of a scope looked through for the one before a batch (an older one is too far back to
#: be what "she" refers to).
LOOK_BACK = 20


def stored(facts: Sequence[FactDraft], settings: Settings) -> list[FactDraft]:
    """The offline candidates worth storing: those the scorer gives at least ``kg_min_store``.

    Trigger: a candidate under the floor. Why: a wrong fact costs more than a missing one, and under
    the floor most candidates are wrong (bench/RESULTS.md). Outcome: it is not stored; its names stay
    entities of the memory."""
    return [f for f in facts if f.confidence >= settings.kg_min_store]


def shown(facts: Sequence[Fact], min_confidence: Any, settings: Settings) -> list[Fact]:
    """The facts a reader sees: those at least ``min_confidence`` sure when it is given (0: every stored
    fact); by default, every fact but the offline extraction's under ``kg_min_confidence``.

    Trigger: a read without ``min_confidence``. Why: the scorer's confidence is the probability that an
    extracted fact is right, and the default (chosen on dev, bench/RESULTS.md) keeps what is shown right
    at least 0.92 of the time there; a caller's confidence is on the caller's own scale, so a caller's
    fact is shown unless the reader asks for a floor. Outcome: less-sure extracted facts stay stored and
    come back with ``min_confidence=0``."""
    floor = validate.confidence(min_confidence, "min_confidence", None)
    if floor is not None:
        return [f for f in facts if f.confidence >= floor]
    default = settings.kg_min_confidence
    return [f for f in facts if f.extractor not in SCORED or f.confidence >= default]


def retiring(confidence: float, origin: str, retired: Sequence[Fact]) -> float:
    """The confidence a new fact is stored with when storing it retires ``retired`` (older values of the same
    subject and predicate: a change "from A to B", or a new value of a single-valued predicate).

    Trigger: an extracted fact that retires an older extracted value scored higher. Why: the retirement
    happens whatever the new fact's confidence; left lower, the new value could fall under the reading
    default while the old one is retired, and a reader would see no current value at all (or, before the
    retirement, the old one as current). The older value's confidence says the subject held such a value;
    the new memory says it changed. Outcome: the new fact is at least as sure as the value it retires
    (caller and LLM facts, on their own scales, neither lift nor are lifted)."""
    if origin not in SCORED:
        return confidence
    return max([confidence] + [g.confidence for g in retired if g.extractor in SCORED])


def extract(store: Any, drafts: Sequence[Memory], settings: Settings | None = None) -> list[Extraction]:
    """The offline extraction of each draft (in the drafts' order), each scope's drafts read in the order they
    were added from the context the scope's earlier memories left; with the learned proposer's facts when
    ``settings.kg_proposer`` is on."""
    order = sorted(range(len(drafts)), key=lambda i: drafts[i].id)
    carried = contexts(store, drafts)
    floor = settings.kg_min_store if settings is not None and settings.kg_proposer else None
    found = extract_many([drafts[i].content for i in order], [carried[i] for i in order], floor)
    out: list[Extraction] = [Extraction()] * len(drafts)
    for i, extracted in zip(order, found):
        out[i] = extracted
    return out


def contexts(store: Any, drafts: Sequence[Memory]) -> list[dict[str, str]]:
    """One context per draft; the drafts of one scope share one, to be read in id order (the order they
    were added). It starts from the store: who the writer's relatives are (the current ``X <rel>_of User``
    facts of the scope) and the one person the scope's memory before the batch named, if it named exactly
    one (two or more: "she" could be either, so nobody)."""
    out: dict[str, dict[str, str]] = {}
    for draft in sorted(drafts, key=lambda d: d.id):
        ws = draft.workspace or ""
        if ws not in out:
            out[ws] = _start(store, draft)
    return [out[d.workspace or ""] for d in drafts]


def _start(store: Any, first: Memory) -> dict[str, str]:
    ws = first.workspace or None
    at = now()
    context: dict[str, str] = {}
    user = store.kg_lookup_norms(ws, [normalize("User")]).get(normalize("User"))
    if user is not None:
        for f in reversed(store.kg_facts_touching([user], workspace=ws, at=at, include_invalid=False, limit=200)):
            if f.object_id == user and f.predicate.endswith("_of") and f.subject_id != user:
                context["rel:" + f.predicate[:-3]] = f.subject  # the newest says who she is now
    before = next((m for m in store.recent_memories(ws, LOOK_BACK, at)
                   if m.id < first.id and (m.workspace or None) == ws), None)
    if before is not None:
        mentioned = store.kg_mentions([before.id]).get(before.id, [])
        people = [e.name for e in store.kg_get_entities(mentioned).values()
                  if e.type == "person" and e.name not in ("User", "Team")]
        if len(people) == 1:
            context["person"] = people[0]
    return context
