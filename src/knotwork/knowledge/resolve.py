"""Entity resolution: which stored entity a name means, if any.

In order, cheapest first:

1. the normalised name (case, spaces, ``_-./`` and a leading ``the`` ignored,
   so ``ReportsModule``, ``reports_module`` and ``Reports Module`` are one)
   against every entity's name and aliases, then a technology's other
   spelling (``Postgres`` / ``PostgreSQL``, ``k8s`` / ``Kubernetes``:
   ``lexicon.SHORT_NAMES``, the list consolidation reads as one value too);
2. fuzzy matching of names: Jaccard similarity of character trigrams;
3. cosine similarity of embeddings of name (+ the caller's summary).

Fuzzy and embedding matches never join names whose numbers differ
(``Python 3.11`` / ``Python 3.12``, ``PR-12`` / ``PR-13``) nor entities of
two different known types. A matched surface form is recorded as an alias,
so the next mention resolves at step 1.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knotwork.knowledge.lexicon import SHORT_NAMES

if TYPE_CHECKING:  # the stores import search_terms; a process that never resolves by vector needs no NumPy
    import numpy as np

FUZZY_MIN_LENGTH = 5
FUZZY_JACCARD = 0.8
#: Names alone are short texts: MiniLM puts related-but-different names
#: ("dark mode" / "light mode") near 0.8, so the bar is high, and lower only
#: when the spelling agrees too.
EMBED_COSINE = 0.93
EMBED_COSINE_WITH_SPELLING = 0.80
EMBED_SPELLING_JACCARD = 0.5

_DIGITS = re.compile(r"\d+")
_LEADING_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


def normalize(name: str) -> str:
    """The exact-match key of a name."""
    text = unicodedata.normalize("NFKC", name).strip()
    text = _LEADING_ARTICLE.sub("", text)
    if text[:1] in "@#" and len(text) > 1:
        text = text[1:]
    text = text.casefold()
    key = "".join(ch for ch in text if ch.isalnum() or ch in "+#")
    return key or text


def _same_name_groups() -> dict[str, tuple[str, ...]]:
    groups: dict[str, set[str]] = {}
    for short, full in SHORT_NAMES.items():
        groups.setdefault(normalize(full), {normalize(full)}).add(normalize(short))
    return {norm: tuple(sorted(group - {norm})) for group in groups.values() for norm in group}


def same_names(norm: str) -> tuple[str, ...]:
    """The other normalised spellings of the technology whose normalised name is ``norm`` (none for most names).

    Why not fold them into :func:`normalize`: stores keep the keys they were written with (no migration), so
    ``Postgres`` resolves to an existing ``PostgreSQL`` entity as an alias, and the other way round.
    """
    return _SAME_NAMES.get(norm, ())


def grams(norm: str) -> set[str]:
    """Character trigrams of a normalised name, with ends marked."""
    padded = f"^{norm}$"
    if len(padded) <= 3:
        return {padded}
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


_SAME_NAMES = _same_name_groups()


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def numbers(name: str) -> tuple[str, ...]:
    return tuple(_DIGITS.findall(name))


def compatible(type_a: str | None, type_b: str | None) -> bool:
    return type_a is None or type_b is None or type_a == type_b


@dataclass(frozen=True, slots=True)
class Candidate:
    entity_id: str
    name: str
    type: str | None


class Resolver:
    """Fuzzy and embedding matching against one workspace's entities.

    ``store`` gives trigram candidates and their names; ``vectors`` returns
    (entity ids, matrix) of the workspace's entity vectors (or None).
    """

    def __init__(
        self,
        store: object,
        vectors: Callable[[str | None], tuple[list[str], np.ndarray] | None] | None = None,
    ) -> None:
        self.store = store
        self.vectors = vectors

    def fuzzy(self, workspace: str | None, name: str, type_: str | None, after: str | None = None) -> str | None:
        """The entity whose name is spelled nearly like ``name`` (only those created after id ``after``, if given)."""
        norm = normalize(name)
        if len(norm) < FUZZY_MIN_LENGTH:
            return None
        mine = grams(norm)
        found = self.store.kg_gram_candidates(workspace, sorted(mine), limit=8, after=after)  # type: ignore[attr-defined]
        if not found:
            return None
        # Even the best candidate cannot reach the bar without sharing this many trigrams.
        need = FUZZY_JACCARD * len(mine)
        ids = [eid for eid, shared in found if shared >= need * 0.9]
        if not ids:
            return None
        theirs = self.store.kg_gram_counts(ids)  # type: ignore[attr-defined]
        rows = self.store.kg_get_entities(ids)  # type: ignore[attr-defined]
        best, best_score = None, 0.0
        for eid in ids:
            e = rows.get(eid)
            if e is None or numbers(e.name) != numbers(name) or not compatible(e.type, type_):
                continue
            score = jaccard(mine, theirs.get(eid, set()))
            if score >= FUZZY_JACCARD and score > best_score:
                best, best_score = eid, score
        return best

    def by_vector(self, workspace: str | None, name: str, type_: str | None, vector: np.ndarray | None) -> str | None:
        if vector is None or self.vectors is None:
            return None
        known = self.vectors(workspace)
        if not known or not known[0]:
            return None
        import numpy as np

        ids, matrix = known
        sims = matrix @ vector
        order = np.argsort(-sims)[:5]
        candidates = [ids[i] for i in order if sims[i] >= EMBED_COSINE_WITH_SPELLING]
        if not candidates:
            return None
        rows = self.store.kg_get_entities(candidates)  # type: ignore[attr-defined]
        mine = grams(normalize(name))
        for i in order:
            e = rows.get(ids[i])
            if e is None or numbers(e.name) != numbers(name) or not compatible(e.type, type_):
                continue
            if sims[i] >= EMBED_COSINE or jaccard(mine, grams(normalize(e.name))) >= EMBED_SPELLING_JACCARD:
                if sims[i] >= EMBED_COSINE_WITH_SPELLING:
                    return e.id
        return None


def best_canonical(ids: Sequence[str], degree: dict[str, int]) -> str:
    """The most connected entity (ties: the oldest id)."""
    return sorted(ids, key=lambda i: (-degree.get(i, 0), i))[0]


_IDENT_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def search_terms(text: str) -> str:
    """``text`` plus the words hidden in its identifiers, for full-text search.

    ``ReportsModule`` also indexes as ``Reports Module``, ``parse_config`` as
    ``parse config``, ``src/billing/api.py`` as ``src billing api py``.
    """
    extra = []
    for token in re.findall(r"[\w./:-]+", text):
        parts = _IDENT_PARTS.findall(token)
        if len(parts) > 1:
            extra.append(" ".join(parts))
    return " ".join([text, *extra])
