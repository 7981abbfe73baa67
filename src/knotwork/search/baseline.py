"""What unrelated text scores in a workspace: the baseline the "answerable" rule reads a best hit against.

Trigger: the learned rule of :mod:`~knotwork.search.answerable`, fitted on stores of notes and meetings, let
most questions a store of everyday chats cannot answer through (bench/RESULTS.md, LongMemEval 0.35): in such a
store every score runs higher, and a best hit of 0.18 there is what a real answer scores elsewhere. Why: the
fused score is absolute (it means the same in every query), but how high a query about nothing the store holds
still scores depends on the store: on how many memories it has and how close its texts sit to any question. A
rule that reads the score alone cannot tell "high for this store" from "high". Outcome: each workspace is asked
the fixed off-topic :data:`PROBES` once, and the median of their best hits (score, cosine and best cosine) is
its baseline; weights can read the best hit less it. The median of many varied probes moves little when one
probe happens to find a real memory (a store of chats holds a cake recipe), which a mean or a 90th percentile
would follow.

The baseline is computed lazily, at a workspace's first judged search when the rule's weights read it (one
search per probe; the shipped weights do not read it yet, bench/RESULTS.md), kept in the
process and in the store's meta table (``answerable_baseline:<workspace>``) with the number of memories the
workspace held then, the probes' version and the embedder, and computed again only when the workspace has
grown or shrunk by :data:`GROWTH` (or the probes or the embedder changed). A search otherwise pays a dictionary
lookup: the number of memories it compares with is one the rule already reads.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

#: Forty fixed texts no store is expected to be about, of many kinds, so that their median stands for "a
#: question this store cannot answer" whatever the store holds: general-knowledge and how-to questions,
#: first-person questions of everyday life (what a personal store is asked), questions of trades far from
#: software, keyword strings, single words and strings of no word at all. Written before any was searched;
#: none is a question of bench/data/unanswerable/.
PROBES: tuple[str, ...] = (
    "Who built the first mechanical clock in Europe?", "What is the national flower of Japan?",
    "How tall is the tallest tree in the world?", "In which year was the printing press invented?",
    "Which element has the atomic number 79?", "Who composed the Four Seasons?",
    "What is the longest bone in the human body?", "Which desert covers most of Mongolia?",
    "How do I tune a ukulele to open G?", "How do I whittle a wooden spoon?",
    "How do I get red wine out of a carpet?", "What is the best way to sharpen a chisel?",
    "How do you fold a paper crane?", "How should I store fresh basil?",
    "What did I name my goldfish?", "Where did I park the camper van last summer?",
    "When is my aunt's watercolour exhibition?", "Which size of wetsuit did I order?",
    "What did my dentist say about the crown?", "How much did I pay for the piano lessons?",
    "Who looked after my tortoise in August?", "What time does my cousin's flight from Reykjavik land?",
    "Which COBOL copybook defines the ledger record?", "What is the refresh rate of the stadium scoreboard?",
    "How many pallets fit in the refrigerated container?", "Which crane operator is certified for the tower crane?",
    "What is the bitrate of the radio station's stream?", "Who signs off the irrigation schedule for the orchard?",
    "quartz lantern pebble orchid saxophone", "velvet turnip compass cinnamon",
    "marmalade tractor nebula whistle cobalt", "flamingo", "origami swan", "medieval siege engines",
    "plorft wundle gax", "qwhee blorntak", "asdkj fhweo pqzx",
    "Where can I rent a canoe for the weekend?", "Which train goes to the coast on Sunday mornings?",
    "Is it going to snow in the mountains this week?",
)
#: The baseline is computed again when the workspace's number of memories has changed by this factor.
GROWTH = 1.5
META_KEY = "answerable_baseline:"
PARTS = ("score", "vector", "vector_top")


def version(probes: Sequence[str] = PROBES) -> str:
    """A short digest of the probes: a stored baseline of other probes is not this one."""
    return hashlib.sha256("\n".join(probes).encode("utf-8")).hexdigest()[:12]


def median_of(rows: Sequence[Sequence[float]]) -> dict[str, float]:
    """The median of each part (:data:`PARTS`) over the probes' best hits (a probe that finds nothing scores 0)."""
    import numpy as np

    a = np.asarray(rows, dtype=float).reshape(-1, len(PARTS))
    return {p: round(float(np.median(a[:, i])), 6) if len(a) else 0.0 for i, p in enumerate(PARTS)}


def current(recorded: dict[str, Any] | None, live: int, model: str | None, probes: Sequence[str] = PROBES) -> bool:
    """Whether a recorded baseline still stands for a workspace of ``live`` memories embedded by ``model``."""
    if not recorded or recorded.get("probes") != version(probes) or recorded.get("model") != model:
        return False
    then = max(int(recorded.get("live", 0)), 1)
    return then / GROWTH < max(live, 1) < then * GROWTH


class Baselines:
    """Each workspace's baseline, computed once (see the module) and kept in the process and the store.

    ``probe(text, workspace)`` runs one search of the judged recipe with no rule applied and returns its best
    hit's (score, cosine, best cosine), or None when it finds nothing; ``store`` is read and written through
    ``get_meta`` and ``set_meta`` only; ``computed`` counts the workspaces computed in this process."""

    def __init__(self, store: Any, probe: Callable[[str, str | None], tuple[float, float, float] | None],
                 model: str | None, probes: Sequence[str] = PROBES) -> None:
        self.store, self.probe, self.model, self.probes = store, probe, model, tuple(probes)
        self._known: dict[str | None, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.computed = 0

    def __call__(self, workspace: str | None, live: int) -> dict[str, float]:
        """The baseline of ``workspace`` (of ``live`` memories now): median best-hit score, cosine, best cosine."""
        known = self._known.get(workspace)
        if known is None or not current(known, live, self.model, self.probes):
            known = self._stored(workspace)
            if not current(known, live, self.model, self.probes):
                known = self._compute(workspace, live)
            with self._lock:
                self._known[workspace] = known
        return {p: known[p] for p in PARTS}

    def known(self, workspace: str | None, live: int) -> dict[str, float] | None:
        """The baseline of ``workspace`` if one is kept and current, else None; never asks a probe (``explain``
        shows it when known: a search that only shows it should not pay for it)."""
        known = self._known.get(workspace)
        if known is None or not current(known, live, self.model, self.probes):
            known = self._stored(workspace)
            if not current(known, live, self.model, self.probes):
                return None
            with self._lock:
                self._known[workspace] = known
        return {p: known[p] for p in PARTS}

    def _key(self, workspace: str | None) -> str:
        return META_KEY + ("" if workspace is None else workspace)

    def _stored(self, workspace: str | None) -> dict[str, Any] | None:
        raw = self.store.get_meta(self._key(workspace))
        try:
            got = json.loads(raw) if raw else None
        except ValueError:
            return None  # not ours to read: computed again
        return got if isinstance(got, dict) and all(isinstance(got.get(p), (int, float)) for p in PARTS) else None

    def _compute(self, workspace: str | None, live: int) -> dict[str, Any]:
        rows = [self.probe(text, workspace) or (0.0, 0.0, 0.0) for text in self.probes]
        known = {**median_of(rows), "live": live, "probes": version(self.probes), "model": self.model}
        self.computed += 1
        try:
            self.store.set_meta(self._key(workspace), json.dumps(known, sort_keys=True))
        except Exception:  # noqa: BLE001 - a store that cannot be written keeps the baseline in the process only
            pass
        return known
