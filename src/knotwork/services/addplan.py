"""What an add will write, decided before anything is: the plan hygiene hands the write path.

``Hygiene.plan`` (services/hygiene.py) reads the store, the vector index and the store/ignore rules and
decides every item of an ``add``/``add_many``; ``WritePath.apply`` (services/writes.py) writes the plan in
one transaction and answers. The plan is a value: frozen, made of ids, texts and flags, so that what an
add decided can be read (and tested) apart from how it is written, and so that the write path needs
nothing from the deciding side (nor from the facade above both) while it holds the write lock.

A memory the same transaction stores is named ``#<index>`` (its item in the batch): its id is known only
once it is written, because an item whose content is already stored answers with the stored memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knotwork.domain.models import Memory
    from knotwork.services.knowledge import GraphInput

#: The kinds of step, each with what the write path does with it:
#: ``STORE``      insert the draft (an exact duplicate of a stored memory comes back as that memory)
#: ``IGNORE``     write nothing; the draft comes back with the reason (store/ignore rules)
#: ``REPEAT``     write nothing; the answer is the one of the earlier item ``target`` (same content)
#: ``NOOP``       write nothing; the answer is the stored memory ``target``
#: ``UPDATE``     ``target`` takes the draft's text (a new version; tags, artifacts and evidence merged)
#: ``SUPERSEDE``  insert the draft, then write ``link`` (one of the two retires the other), then the links of
#:               ``also`` when the draft's value came between two others (it retires the older, the later
#:               retires it)
#: ``SNAPSHOT``   keep the latest snapshot of ``key`` and the draft's day: insert the draft and purge that
#:               day's earlier ones, or, when a later one is kept, write nothing (answer NOOP)
STEPS = ("STORE", "IGNORE", "REPEAT", "NOOP", "UPDATE", "SUPERSEDE", "SNAPSHOT")

# Why a SNAPSHOT step names its key and not the snapshots it replaces: which snapshots of that key and day
# are stored is read under the write lock (as ``STORE`` finds an exact duplicate under it), so that two
# processes adding snapshots of one key at once keep one; read before the lock, both would keep theirs.


@dataclass(frozen=True, slots=True)
class Link:
    """A ``supersedes`` link to write: ``source`` retires ``target`` (a memory id or ``#<index>``)."""

    source: str
    target: str
    metadata: Mapping[str, Any]

    @property
    def arrived_late(self) -> bool:
        """The stored memory supersedes the new one: the new one's value held before the stored one's."""
        return bool(self.metadata.get("arrived_late"))


@dataclass(frozen=True, slots=True)
class Step:
    """What the add does with one item (see :data:`STEPS`)."""

    kind: str
    target: str | None = None  # the memory the step touches or answers with (an id or ``#<index>``)
    reason: str | None = None  # why, as the answer tells it
    link: Link | None = None  # SUPERSEDE
    also: tuple[Link, ...] = ()  # SUPERSEDE of a value between two others: more supersedes links (see Hygiene._step)
    key: str | None = None  # SNAPSHOT: the snapshot's key

    def __post_init__(self) -> None:
        if self.kind not in STEPS:
            raise ValueError(f"unknown step {self.kind!r}")


@dataclass(frozen=True, slots=True)
class AddPlan:
    """Every item of one add, decided: the drafts (as validated), the caller's graph input, each new text's
    vectors (computed once, before the decision that compared them), and one step per item, in order.

    ``counts``: the health counters the add bumps once it is written (exact duplicates, ignored items);
    the counters of a step (``duplicates_merged``, ``superseded_on_add``…) go with that step's writes.
    """

    drafts: tuple[Memory, ...]
    graphs: tuple[GraphInput, ...]
    vectors: Mapping[int, tuple[bytes, ...]]
    steps: tuple[Step, ...]
    counts: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if not len(self.drafts) == len(self.graphs) == len(self.steps):
            raise ValueError("a plan has one draft, one graph input and one step per item")

    def written(self) -> list[int]:
        """The items that write, in order (all but IGNORE and REPEAT): one transaction when there is any."""
        return [i for i, s in enumerate(self.steps) if s.kind not in ("IGNORE", "REPEAT")]

    def inserted(self) -> list[int]:
        """The items inserted together, first thing in the transaction (a SNAPSHOT is inserted at its turn,
        once the day's snapshots of its key are read)."""
        return [i for i, s in enumerate(self.steps) if s.kind in ("STORE", "SUPERSEDE")]
