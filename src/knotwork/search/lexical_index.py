"""In-process BM25 over the store's memories, one inverted index per scope.

Why not FTS5's ``bm25()``: an FTS5 ``MATCH … ORDER BY bm25 LIMIT n`` scores
every row any query term matches, one row at a time, and a question of
8-15 words matches most of a conversation store. On a 6k-turn store that was
~8 ms of a 12 ms search; the same postings scored as NumPy arrays take a
fraction of a millisecond (bench/RESULTS.md). The index keeps itself in step
with the store the way the vector index does: every write to a memory's text
leaves a numbered row in ``memory_changes`` (migration 0020), and each search
first reads the newest number and applies only what changed, so writes by
other processes are seen before the next answer.

Scores. Each scope (a workspace, or the global scope) has its own postings;
a search sees its workspace and the global scope, and the statistics BM25
needs (document count, average length, document frequencies) are those of
what the search sees, so one workspace's vocabulary does not weigh on
another's ranking. Besides the raw BM25 score, each hit carries two numbers
in [0, 1] that mean the same for every query and store, so fusion and
``min_score`` can rely on them:

- ``relevance``: the score over the most any document could score for the
  query (every term, ``idf·(k1+1)``), the theoretical min-max of Bruch et
  al., "An Analysis of Fusion Functions for Hybrid Retrieval" (2023). It
  orders documents as BM25 does; the default fusion uses this one.
- ``coverage``: the score over what *this* document would score holding every
  query term once — the share of the query's information (idf) the document
  holds, with a bonus for repeats, at most 1 (``Recipe.lexical_scale =
  "coverage"``). Measured, not the default: it saturates on long memories
  that hold every common word of a question (LongMemEval session recall@5
  0.726 against 0.818; bench/RESULTS.md).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.search.lexical import analyze, name_key

K1 = 1.2
B = 0.75
_KEEP_WEIGHTS = 4096  # postings at least this long keep their term weights between searches
_DENSE_FROM = 0.25  # a kept term in at least this share of a scope's documents keeps its weights as one dense array
_COMPACT_FROM = 1000  # a scope renumbers its slots once more than this many (and a quarter of them) are dead
TAGGED_MOST = 2000  # the most memories a tag filter may let through for the index to answer it (see _tag_filter)


def IDF(n: int, df: int) -> float:  # noqa: N802
    """Lucene's idf, always positive: in a store of a few memories every term still counts.

    Robertson-Sparck Jones idf with FTS5's floor gave LongMemEval session
    recall@5 0.818 against 0.814, but a term in half of a small workspace's
    memories then counted for nothing, and two-memory workspaces answered
    from vectors alone (bench/RESULTS.md).
    """
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, slots=True)
class LexicalHit:
    memory_id: str
    bm25: float
    relevance: float  # bm25 / the best score any document could reach for the query, in [0, 1]
    coverage: float = 0.0  # bm25 / what this document would score holding every query term once, at most 1


class _Scope:
    """The postings of one scope: per term, the slots of the documents it occurs in and how often."""

    __slots__ = ("done", "pending", "lengths", "alive", "ids", "live", "total_length", "_norms", "_weights", "_dense")

    def __init__(self) -> None:
        self.done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        # Kept between searches while the store does not change: the length norms for one average length, and
        # the long postings' term weights for those norms (see :meth:`weights`).
        self._norms: tuple[float, np.ndarray, np.ndarray] | None = None
        self._weights: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._dense: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # the commonest terms' weights, one per document
        self.pending: dict[int, tuple[list[int], list[int]]] = {}
        self.lengths = np.zeros(0, dtype=np.float32)
        self.alive = np.zeros(0, dtype=bool)
        self.ids: list[str] = []
        self.live = 0
        self.total_length = 0.0

    def add(self, memory_id: str, counts: Counter[int], length: int) -> int:
        slot = len(self.ids)
        self.ids.append(memory_id)
        self.lengths = np.append(self.lengths, np.float32(length))
        self.alive = np.append(self.alive, True)
        self.live += 1
        self.total_length += length
        for term, tf in counts.items():
            slots, tfs = self.pending.setdefault(term, ([], []))
            slots.append(slot)
            tfs.append(tf)
        return slot

    def remove(self, slot: int) -> None:
        if self.alive[slot]:
            self.alive[slot] = False
            self.live -= 1
            self.total_length -= float(self.lengths[slot])

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray] | None:
        if term in self.pending:
            slots, tfs = self.pending.pop(term)
            new = (np.asarray(slots, dtype=np.int32), np.asarray(tfs, dtype=np.float32))
            old = self.done.get(term)
            self.done[term] = new if old is None else (np.concatenate([old[0], new[0]]), np.concatenate([old[1], new[1]]))
        return self.done.get(term)

    def norms(self, avgdl: float) -> np.ndarray:
        """Each document's BM25 length norm, ``K1 * (1 - B + B * length / avgdl)``."""
        cached = self._norms
        if cached is None or cached[0] != avgdl or cached[1] is not self.lengths:
            self._weights, self._dense = {}, {}
            cached = self._norms = (avgdl, self.lengths, K1 * (1 - B + B * self.lengths / avgdl))
        return cached[2]

    def accumulate(
        self, score: np.ndarray, postings: tuple[np.ndarray, np.ndarray], term: int, norm: np.ndarray, idf: float
    ) -> None:
        """Add a term's BM25 score, ``idf`` times its weight, to ``score`` (one per document of the scope).

        Trigger: a term in a quarter or more of a large scope's documents (at a million memories of a small
        vocabulary, every query term is in about half of them). Why: adding through its postings gathers and
        scatters one entry per document it occurs in, several times the cost of adding one dense array over the
        whole scope (bench/RESULTS.md, "Scale, round 3"). Outcome: its weights are kept as a dense array, zero where it
        does not occur, dropped with the other kept weights; the sums are the same float32 sums.
        """
        slots = postings[0]
        if len(slots) < _KEEP_WEIGHTS or len(slots) < _DENSE_FROM * len(self.ids):
            score[slots] += idf * self.weights(postings, term, norm)
            return
        cached = self._dense.get(term)
        if cached is None or cached[0] is not slots or len(cached[1]) != len(score):
            tf = postings[1]
            dense = np.zeros(len(self.ids), dtype=np.float32)
            dense[slots] = tf * (K1 + 1) / (tf + norm[slots])
            cached = self._dense[term] = (slots, dense)
        score += idf * cached[1]

    def weights(self, postings: tuple[np.ndarray, np.ndarray], term: int, norm: np.ndarray) -> np.ndarray:
        """A term's BM25 weight in each document it occurs in, before its idf: ``tf * (K1 + 1) / (tf + norm)``.

        Trigger: a term in many documents (the commonest words of a large store: at a million memories, one
        in half of them). Why: computing its weights took most of a search's BM25 stage. Outcome: they are
        kept until the norms or the term's postings change (any write changes the average length, so a
        search after a write computes them again); short postings are computed each time.
        """
        slots, tf = postings
        if len(slots) < _KEEP_WEIGHTS:
            return tf * (K1 + 1) / (tf + norm[slots])
        cached = self._weights.get(term)
        if cached is None or cached[0] is not slots:
            cached = self._weights[term] = (slots, tf * (K1 + 1) / (tf + norm[slots]))
        return cached[1]

    def build(self, docs: Sequence[tuple[str, Counter[int], int]]) -> list[int]:
        """Add many documents at once (a full load): postings built with one sort instead of per-term appends."""
        start = len(self.ids)
        terms: list[int] = []
        freqs: list[int] = []
        owners: list[int] = []
        lengths = np.empty(len(docs), dtype=np.float32)
        for i, (memory_id, counts, length) in enumerate(docs):
            self.ids.append(memory_id)
            terms += counts.keys()
            freqs += counts.values()
            owners += [start + i] * len(counts)
            lengths[i] = length
        self.lengths = np.concatenate([self.lengths, lengths])
        self.alive = np.concatenate([self.alive, np.ones(len(docs), dtype=bool)])
        self.live += len(docs)
        self.total_length += float(lengths.sum())
        if terms:
            t = np.asarray(terms, dtype=np.int64)
            order = np.argsort(t, kind="stable")
            t = t[order]
            slots = np.asarray(owners, dtype=np.int32)[order]
            tfs = np.asarray(freqs, dtype=np.float32)[order]
            cuts = np.flatnonzero(np.diff(t)) + 1
            for term, s, f in zip(t[np.concatenate([[0], cuts])].tolist(), np.split(slots, cuts), np.split(tfs, cuts)):
                self.postings(term)  # fold pending ones first, so slots stay in order
                old = self.done.get(term)
                self.done[term] = (s, f) if old is None else (np.concatenate([old[0], s]), np.concatenate([old[1], f]))
        return list(range(start, len(self.ids)))

    def compact(self) -> dict[int, int]:
        """Drop dead documents; returns old slot → new slot for the live ones."""
        for term in list(self.pending):
            self.postings(term)
        keep = np.flatnonzero(self.alive)
        renumber = np.full(len(self.alive), -1, dtype=np.int32)
        renumber[keep] = np.arange(len(keep), dtype=np.int32)
        done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for term, (slots, tfs) in self.done.items():
            live = self.alive[slots]
            if live.any():
                done[term] = (renumber[slots[live]], tfs[live])
        self.done = done
        self.lengths = self.lengths[keep]
        self.alive = np.ones(len(keep), dtype=bool)
        self.ids = [self.ids[i] for i in keep.tolist()]
        return {int(old): i for i, old in enumerate(keep.tolist())}


class LexicalIndex:
    """BM25 over every memory's text and names, kept in step with the store.

    A memory's document is its content followed by its names (evidence ids,
    artifacts, tag values; ``Store.memory_texts``). Each name is also kept
    whole (:func:`named`), for the search stage that ranks the memories a
    query names first.

    Each memory's tags are kept too, as postings (tag → memories, key → memories), so a search under a tag
    filter is answered where its candidates are made (:meth:`tagged`, ``search(tags=...)``) instead of by
    reading the tag rows of each candidate: a tag change writes a row in ``memory_changes`` like a text change
    (migration 0023 on SQLite, 0011 on PostgreSQL), so the postings follow every process's writes.
    """

    def __init__(self, store) -> None:
        self.store = store
        self._lock = threading.RLock()
        self._vocab: dict[str, int] = {}
        self._scopes: dict[str, _Scope] = {}
        self._where: dict[int, tuple[str, int]] = {}  # memory row number -> (scope, slot)
        self._named: dict[str, set[int]] = {}  # name key -> memory row numbers
        self._names_of: dict[int, tuple[str, ...]] = {}  # memory row number -> its name keys
        self._tags_of: dict[int, tuple[tuple[str, str], ...]] = {}  # memory row number -> its tags
        self._tagged: dict[tuple[str, str], set[int]] = {}  # (key, value) -> memory row numbers
        self._keyed: dict[str, set[int]] = {}  # key -> memory row numbers
        # (tags, mode, workspace) -> (memory ids, scope -> slot mask): kept until the index changes
        self._filters: dict[tuple, tuple[frozenset[str], dict[str, np.ndarray]] | None] = {}
        self._mark = 0
        self._loaded = False

    def __len__(self) -> int:
        return sum(s.live for s in self._scopes.values())

    # -- keeping in step ----------------------------------------------------
    def sync(self) -> None:
        """Catch up with memories added, removed or rewritten since the last sync (by any process)."""
        with self._lock:
            mark = self.store.text_mark()  # read before the texts, so nothing newer is missed
            if self._loaded and mark != self._mark:
                changed = self.store.texts_changed_after(self._mark)
                # Only the newest changes are kept (migration 0020): a first kept change just
                # after ours means none of ours was pruned; otherwise load everything again.
                self._filters = {}
                if self.store.first_text_change() > self._mark + 1:
                    self._reset()
                else:
                    for rowid in changed:
                        self._remove(rowid)
                    self._load(self.store.memory_texts(changed))
            if not self._loaded:
                self._load(self.store.memory_texts())
            self._mark = mark

    def _reset(self) -> None:
        self._vocab, self._scopes, self._where, self._loaded = {}, {}, {}, False
        self._named, self._names_of = {}, {}
        self._tags_of, self._tagged, self._keyed, self._filters = {}, {}, {}, {}

    def _counts(self, content: str, names: Sequence[str] = ()) -> tuple[Counter[int], int]:
        """A document's term counts (its content's and its names') and its length: its content's terms only,
        so that names add matches without making a memory read as longer (BM25's length norm)."""
        vocab = self._vocab
        terms = analyze(content)
        length = len(terms)
        for name in names:
            terms += analyze(name)
        return Counter(vocab.setdefault(t, len(vocab)) for t in terms), length

    def _name(self, rowid: int, names: Sequence[str], tags: Mapping[str, str]) -> None:
        keys = tuple(dict.fromkeys(k for n in names if len(k := name_key(n)) >= 2))
        if keys:
            self._names_of[rowid] = keys
            for key in keys:
                self._named.setdefault(key, set()).add(rowid)
        if tags:
            pairs = tuple(tags.items())
            self._tags_of[rowid] = pairs
            for pair in pairs:
                self._tagged.setdefault(pair, set()).add(rowid)
                self._keyed.setdefault(pair[0], set()).add(rowid)

    def _load(self, rows: Iterable[tuple[int, str, str, str, Sequence[str], Mapping[str, str]]]) -> None:
        """Index memories: a few one by one, many in one sorted build per scope.

        In row-number order, whatever order the store read them in: slots follow it, and which of several
        documents of equal score a search keeps at its ``k`` cut depends on their slots, so two backends holding
        the same memories keep the same ones (PostgreSQL's table order moves with every update; SQLite's is the
        row number's).
        """
        rows = sorted(rows, key=lambda r: r[0])
        if len(rows) <= 8:
            for row in rows:
                self._add(*row)
            self._loaded = True
            return
        by_scope: dict[str, tuple[list[int], list[tuple[str, Counter[int], int]]]] = {}
        for rowid, memory_id, workspace, content, names, tags in rows:
            rowids, docs = by_scope.setdefault(workspace or "", ([], []))
            rowids.append(rowid)
            docs.append((memory_id, *self._counts(content, names)))
            self._name(rowid, names, tags)
        for workspace, (rowids, docs) in by_scope.items():
            scope = self._scopes.setdefault(workspace, _Scope())
            for rowid, slot in zip(rowids, scope.build(docs)):
                self._where[rowid] = (workspace, slot)
        self._loaded = True

    def _add(self, rowid: int, memory_id: str, workspace: str, content: str, names: Sequence[str],
             tags: Mapping[str, str]) -> None:
        scope = self._scopes.setdefault(workspace or "", _Scope())
        self._where[rowid] = (workspace or "", scope.add(memory_id, *self._counts(content, names)))
        self._name(rowid, names, tags)

    def _remove(self, rowid: int) -> None:
        for key in self._names_of.pop(rowid, ()):
            holders = self._named[key]
            holders.discard(rowid)
            if not holders:
                del self._named[key]
        for pair in self._tags_of.pop(rowid, ()):
            for postings, at in ((self._tagged, pair), (self._keyed, pair[0])):
                holders = postings[at]
                holders.discard(rowid)
                if not holders:
                    del postings[at]
        where = self._where.pop(rowid, None)
        if where is None:
            return
        scope = self._scopes[where[0]]
        scope.remove(where[1])
        dead = len(scope.alive) - scope.live
        if dead > _COMPACT_FROM and dead > len(scope.alive) // 4:
            moved = scope.compact()
            for row, (ws, slot) in list(self._where.items()):
                if ws == where[0]:
                    self._where[row] = (ws, moved[slot])

    # -- search ---------------------------------------------------------------
    def _visible(self, workspace: str | None) -> list[_Scope]:
        return [self._scopes[n] for n in self._visible_names(workspace)]

    def _visible_names(self, workspace: str | None) -> list[str]:
        if workspace == ALL_WORKSPACES:
            return list(self._scopes)
        return [n for n in dict.fromkeys(["", workspace or ""]) if n in self._scopes]

    def named(self, keys: Sequence[str], workspace: str | None = ALL_WORKSPACES) -> dict[str, int]:
        """The memories a name of which equals one of ``keys`` (:func:`~knotwork.search.lexical.name_key`), each
        with how many visible memories hold its rarest such name; ``workspace`` as in :meth:`search`.

        In the order of ``keys``, then of the memories' row numbers (oldest first).
        """
        self.sync()
        with self._lock:
            visible = None if workspace == ALL_WORKSPACES else {"", workspace or ""}
            out: dict[str, int] = {}
            for key in keys:
                holders = [self._where[r] for r in sorted(self._named.get(key, ()))]
                ids = [self._scopes[ws].ids[slot] for ws, slot in holders if visible is None or ws in visible]
                for memory_id in ids:
                    out[memory_id] = min(out.get(memory_id, len(ids)), len(ids))
            return out

    def tagged(self, tags: Mapping[str, str | None], mode: str = "all",
               workspace: str | None = ALL_WORKSPACES) -> frozenset[str] | None:
        """The ids of the memories ``workspace`` sees (as in :meth:`search`) that hold ``tags``: every one (``mode``
        all) or at least one (any), a tag of value None by its key alone, as the store's tag filter reads them
        (store/where.py). Only the tags: a filter's other conditions (partition, validity, expiry) are the store's.
        None when more than :data:`TAGGED_MOST` memories of the store hold them.

        The same object comes back while the store does not change, so a caller may keep what it derives from it.
        """
        self.sync()
        with self._lock:
            found = self._tag_filter(tags, mode, workspace)
            return None if found is None else found[0]

    def _tag_filter(self, tags: Mapping[str, str | None], mode: str,
                    workspace: str | None) -> tuple[frozenset[str], dict[str, np.ndarray]] | None:
        """:meth:`tagged`'s memory ids, and per visible scope a mask of their slots (called with the lock held).

        Trigger: a search under a tag filter (a LangGraph namespace is one: every store search has it). Why:
        reading the tag rows of the memories a filter lets through took longer than the search itself (1.24 ms
        for 500 memories against 0.9 ms for the vector source's scan; bench/RESULTS.md). Outcome: the postings
        answer, and the answer is kept until the next change the index applies (any write empties the cache).
        Past :data:`TAGGED_MOST` memories (about a millisecond of Python to list them, again after every write)
        the answer is None and the store's SQL filter serves, as it did before.
        """
        key = (tuple(tags.items()), mode, workspace)
        if key in self._filters:
            return self._filters[key]
        holders = [self._tagged.get((k, v), set()) if v is not None else self._keyed.get(k, set()) for k, v in tags.items()]
        if len(self._filters) >= 64:  # many different filters between two writes: keep the newest
            self._filters.pop(next(iter(self._filters)))
        # any: a tag held by too many lets too many through; all: the tag held by fewest bounds the answer
        if holders and (max if mode == "any" else min)(map(len, holders)) > TAGGED_MOST:
            self._filters[key] = None
            return None
        rows: set[int] = set()
        if holders:
            rows = set().union(*holders) if mode == "any" else set.intersection(*sorted(holders, key=len))
        if len(rows) > TAGGED_MOST:
            self._filters[key] = None
            return None
        visible = None if workspace == ALL_WORKSPACES else {"", workspace or ""}
        masks: dict[str, np.ndarray] = {}
        ids: list[str] = []
        for row in rows:
            ws, slot = self._where[row]
            if visible is not None and ws not in visible:
                continue
            scope = self._scopes[ws]
            mask = masks.get(ws)
            if mask is None:
                mask = masks[ws] = np.zeros(len(scope.ids), dtype=bool)
            mask[slot] = True
            ids.append(scope.ids[slot])
        found = self._filters[key] = (frozenset(ids), masks)
        return found

    def idf(self, terms: Sequence[str], workspace: str | None = ALL_WORKSPACES) -> dict[str, float]:
        """Each of ``terms``' idf over the memories ``workspace`` sees (as :meth:`search` weighs it); 0 for a
        term no memory holds."""
        self.sync()
        with self._lock:
            scopes = self._visible(workspace)
            live = sum(s.live for s in scopes)
            out: dict[str, float] = {}
            for t in dict.fromkeys(terms):
                term = self._vocab.get(t)
                found = [(s, s.postings(term)) for s in scopes] if term is not None else []
                df = sum(int(s.alive[p[0]].sum()) for s, p in found if p is not None)
                out[t] = IDF(live, df) if df else 0.0
            return out

    def frequencies(self, terms: Sequence[str], workspace: str | None = ALL_WORKSPACES) -> tuple[dict[str, int], int]:
        """Each of ``terms``' document frequency over the memories ``workspace`` sees, and how many those are."""
        self.sync()
        with self._lock:
            scopes = self._visible(workspace)
            out: dict[str, int] = {}
            for t in dict.fromkeys(terms):
                term = self._vocab.get(t)
                found = [(s, s.postings(term)) for s in scopes] if term is not None else []
                out[t] = sum(int(s.alive[p[0]].sum()) for s, p in found if p is not None)
            return out, sum(s.live for s in scopes)

    def search(self, terms: Sequence[str], k: int, workspace: str | None = ALL_WORKSPACES,
               parts: Sequence[str] = (), tags: Mapping[str, str | None] | None = None, tags_mode: str = "all") -> list[LexicalHit]:
        """The ``k`` best BM25 matches for the (analyzed, distinct) query ``terms``, best first.

        ``workspace`` W sees W and the global scope; None the global scope only; ``*`` everything.
        ``parts`` (:func:`~knotwork.search.lexical.query_parts`) score like terms, but only in a document that
        holds one of ``terms``: they rank the memories that hold the asked words, never bring up another.
        ``tags`` (and ``tags_mode``, as in :meth:`tagged`): only the memories that hold them are returned (when
        more than :data:`TAGGED_MOST` do, the tags are not applied: the caller's filter keeps them out). The
        statistics stay those of every memory the search sees, so a memory scores as it does without the tags.
        """
        self.sync()
        with self._lock:
            scopes = self._visible(workspace)
            live = sum(s.live for s in scopes)
            if not live or not terms:
                return []
            avgdl = max(sum(s.total_length for s in scopes) / live, 1e-9)
            asked = list(dict.fromkeys(terms))
            extra = [t for t in dict.fromkeys(parts) if t not in set(asked)]
            # one array for every visible document, each scope's scores a view of it: no copy to rank them
            flat = np.zeros(sum(len(s.ids) for s in scopes), dtype=np.float32)
            bounds = np.cumsum([0] + [len(s.ids) for s in scopes]).tolist()
            scores = [flat[a:b] for a, b in zip(bounds, bounds[1:])]
            norms = [s.norms(avgdl) for s in scopes]
            best = self._accumulate(scopes, scores, norms, asked, live)
            if extra:
                more = np.zeros_like(flat)
                best += self._accumulate(scopes, [more[a:b] for a, b in zip(bounds, bounds[1:])], norms, extra, live)
                flat += np.where(flat > 0, more, 0)
            for s, score in zip(scopes, scores):
                if s.live != len(s.alive):  # dead documents score nothing
                    score[~s.alive] = 0
            filtered = self._tag_filter(tags, tags_mode, workspace) if tags else None
            if filtered is not None:
                masks = filtered[1]
                for name, score in zip(self._visible_names(workspace), scores):
                    mask = masks.get(name)
                    if mask is None:
                        score[:] = 0
                    else:
                        score[: len(mask)] *= mask  # a scope's documents added since: masked below
                        score[len(mask):] = 0
            return self._top(scopes, flat, norms, k, best)

    def _accumulate(self, scopes: list[_Scope], scores: list[np.ndarray], norms: list[np.ndarray], terms: list[str],
                    live: int) -> float:
        """Add each term's BM25 weight to ``scores`` (one array per scope); returns the most the terms could score."""
        ids = [self._vocab.get(t) for t in terms]
        best = 0.0
        for term, per_scope in zip(ids, [[s.postings(t) if t is not None else None for s in scopes] for t in ids]):
            # a scope without dead documents: every posting counts
            df = sum(len(p[0]) if s.live == len(s.alive) else int(s.alive[p[0]].sum()) for s, p in zip(scopes, per_scope) if p is not None)
            idf = IDF(live, df)
            # A term no memory holds still counts in the most a document could score: a
            # question about something never stored should not read as a full match of
            # its remaining function words.
            best += idf * (K1 + 1)
            for s, score, norm, p in zip(scopes, scores, norms, per_scope):
                if p is not None:
                    s.accumulate(score, p, term, norm, idf)
        return best

    @staticmethod
    def _top(scopes: list[_Scope], flat: np.ndarray, norms: list[np.ndarray], k: int, best: float) -> list[LexicalHit]:
        """The ``k`` best of ``flat`` (every visible document's score, scope after scope) as hits; ``best`` is the
        most any document could score."""
        take = min(k, int(np.count_nonzero(flat)))
        if not take or best <= 0:
            return []
        top = np.argpartition(-flat, take - 1)[:take] if take < len(flat) else np.arange(len(flat))
        top = top[np.argsort(-flat[top], kind="stable")]
        top = top[flat[top] > 0]
        # Every hit's scope, slot and length norm at once: per hit, NumPy's per-call overhead was most of the cost.
        ends = np.cumsum([len(s.ids) for s in scopes])
        scope_of = np.searchsorted(ends, top, side="right")
        slots = top - np.concatenate(([0], ends))[scope_of]
        norm = np.empty(len(top), dtype=np.float32)
        for i, scope_norms in enumerate(norms):  # not the norms of every document, to read a few of them
            mine = scope_of == i
            norm[mine] = scope_norms[slots[mine]]
        out: list[LexicalHit] = []
        for i, slot, value, n in zip(scope_of.tolist(), slots.tolist(), flat[top].tolist(), norm.tolist()):
            # what this document would score holding every query term once, at its own length
            whole = best / (1 + n)
            out.append(LexicalHit(scopes[i].ids[slot], value, min(1.0, value / best), min(1.0, value / whole)))
        return out
