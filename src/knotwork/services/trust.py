"""Which extracted facts are stored and shown, and what one memory's reading hands the next one's.

- :func:`stored`: the offline candidates at least ``kg_min_store`` sure (the fact scorer's calibrated
  probability, :mod:`knotwork.knowledge.scorer`).
- :func:`shown`: what a read shows without ``min_confidence``: every fact but the offline extraction's
  under ``kg_min_confidence``; with it, the facts at least that sure (0: every stored fact).
- :func:`retiring`: a change's new value is at least as sure as the value it retires; :func:`preceding`: and
  the values it retires, down the chain, as sure as it; :func:`late_arrival`: the same rule in the other
  arrival order, an older value arriving late and the stored value it gave way to brought to the surer of
  the two.
- :func:`contexts`: the people earlier memories of each scope named (:mod:`knotwork.knowledge.carry`),
  so that "she" or "my sister" in a new memory is the person an earlier one named.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
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


def retiring(confidence: float, origin: str, retired: Sequence[Fact], shown: float) -> float:
    """The confidence a new fact is stored with when storing it retires ``retired`` (older values of the same
    subject and predicate: a change "from A to B", or a new value of a single-valued predicate).

    Trigger: an extracted fact that retires an older value it is less sure of than the reader was of that
    value, or a current value whose memory also ends an older value of the same subject and predicate in a
    sibling fact ("I no longer use Vim; switched to Helix": the change is stated by two facts, the
    retirement by the first). Why: the retirement happens whatever the new fact's confidence; left lower,
    the new value could fall under the reading default while the old one is retired, and a reader would see
    no current value at all (or, before the retirement, the old one as current). The older value's
    confidence says the subject held such a value; the new memory says it changed. Outcome: the new fact is
    at least as sure as an extracted value it retires, and at least at the reading default ``shown`` when it
    retires a caller's or an LLM's fact (shown whatever its own scale, which is not the scorer's). Caller
    and LLM facts are never lifted: their confidence is their own word."""
    if origin not in SCORED:
        return confidence
    return max([confidence] + [_held(g, shown) for g in retired])


def preceding(sure: float, origin: str, retired: Sequence[Fact], stored: Sequence[Fact],
              shown: float) -> tuple[float, list[str]]:
    """The confidence to raise to (``sure``, that of a new value that retires ``retired``; the reading default
    ``shown`` for a caller's or an LLM's) and the stored facts to raise: :func:`retiring` the other way round,
    and down the chain.

    Trigger: a new value retires an older extracted value of the same subject and predicate that is less sure
    than it ("Upgrade embedded pip from `20.1.2` to `20.2`" at 0.74 after "… from `20.0.2` to `20.1`" at 0.68).
    Why: a change's two values are read in one frame (this subject, this predicate); the newer reading says the
    frame holds, the older one said the value it held then. Left lower, the older value falls under the reading
    default while the newer one shows, and a reader asking ``as_of`` a date before the change sees no value at
    all. Outcome: each retired extracted value less sure than ``sure`` is raised to it, and so is each older
    extracted value it had itself retired in turn (``stored``: the facts of that subject and predicate). Only
    retired values are raised: what is current now is never lifted this way, and caller and LLM facts keep
    their own word."""
    level = sure if origin in SCORED else shown
    before: dict[str, list[str]] = {}  # a fact's id -> the retired facts it replaced
    for g in stored:
        if g.superseded_by is not None and g.invalid_at is not None:
            before.setdefault(g.superseded_by, []).append(g.id)
    todo, seen = [g.id for g in retired], set()
    while todo:
        if (i := todo.pop()) not in seen:
            seen.add(i)
            todo += before.get(i, [])
    return level, [g.id for g in stored if g.id in seen and g.extractor in SCORED and g.confidence < level]


def late_arrival(sure: float, origin: str, later: Fact | None, shown: float) -> tuple[float, float | None]:
    """When an extracted value arrives late, already retired in favour of the stored ``later``: the confidence it
    is stored with, and the confidence ``later`` is raised to (None: left as it is). :func:`retiring` and
    :func:`preceding` in the other arrival order.

    Trigger: the older memory came after the newer one. Why: a change's two values are read in one frame (this
    subject, this predicate); left under the reading default, the successor would leave the reader with the
    stale value ``as_of`` later and nothing current, and the late value would give no value ``as_of`` a date
    before the change. Outcome: both are brought to the surer of the two: the arriving value to at least
    ``later``'s confidence (the reading default ``shown`` when ``later`` is a caller's or an LLM's fact), and an
    extracted ``later`` less sure than the arriving value to its confidence (to ``shown`` when the arriving value
    is a caller's or an LLM's). A caller's or an LLM's fact keeps its own word, on either side."""
    if later is None:
        return sure, None
    arriving = max(sure, _held(later, shown)) if origin in SCORED else sure
    level = sure if origin in SCORED else shown
    return arriving, level if later.extractor in SCORED and later.confidence < level else None


def _held(fact: Fact, shown: float) -> float:
    return fact.confidence if fact.extractor in SCORED else shown


def extract(store: Any, drafts: Sequence[Memory], settings: Settings | None = None) -> list[Extraction]:
    """The offline extraction of each draft (in the drafts' order), each scope's drafts read in the order they
    were added from the context the scope's earlier memories left; with the learned proposer's facts when
    ``settings.kg_proposer`` is on."""
    order = sorted(range(len(drafts)), key=lambda i: drafts[i].id)
    carried = contexts(store, drafts)
    propose = None
    if settings is not None and settings.kg_proposer:
        from knotwork.knowledge import proposer

        propose = partial(proposer.propose, floor=settings.kg_min_store)
    found = extract_many([drafts[i].content for i in order], [carried[i] for i in order], propose)
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
