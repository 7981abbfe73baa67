"""Which query terms are worth sending to FTS5.

FTS5's ``bm25()`` gives a term the idf ``log((N - n + 0.5) / (n + 0.5))``,
clamped to a tiny positive number when that is below zero, i.e. when the
term is in more than half of the ``N`` rows. Such a term changes no ranking,
yet every row it occurs in must be matched and scored: in a store of chat
turns, "the", "to" and "you" each match over 80% of the rows, and sending
them made a BM25 query score nearly every row (about 3× slower on the
LongMemEval pool, with identical recall; bench/README.md).

The same holds, less sharply, for any common term: FTS5 must score every row
that matches any term, so a query's cost is the sum of its terms' document
frequencies, while its ranking rests on the rare ones. So terms are taken
rarest first until their document frequencies add up to
``POSTINGS_BUDGET``; this bounds the cost of a query however large the store
grows. Measured through the default recipe on LongMemEval (10k rows,
session R@5 / turn R@10): 20,000 postings 0.852 / 0.825, 10,000 0.854 /
0.825, 5,000 0.844 / 0.816, 3,000 0.830 / 0.810 (with BM25 a third as
costly as at 10,000). 10,000 it is.

Trigger: a store of at least ``MIN_ROWS`` rows. Why: below that, scoring every
row is cheap and a term in most rows may be all a query has. Outcome: terms
in more than half of the rows are left out of the MATCH expression (all of
them, if a query has nothing else: then BM25 has nothing to say and the
other sources answer), then the commonest of the rest while the budget is
exceeded (the rarest term always stays).

Document frequencies come from the FTS index itself (a ``count(*)`` of one
quoted term, so the tokenizer's stemming applies) and are cached per
process; the cache is dropped when the row count has moved by a tenth, so
other processes' writes are taken into account soon enough for a decision
that only needs to be roughly right.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

MIN_ROWS = 200
POSTINGS_BUDGET = 10_000


class TermStats:
    """Document frequencies of terms in one FTS5 table, cached."""

    def __init__(self, run: Callable[[str, Sequence[object]], sqlite3.Cursor], table: str = "memories_fts") -> None:
        self._run = run
        self._table = table
        self._lock = threading.Lock()
        self._df: dict[str, int] = {}
        self._rows = -1
        self._top = 0

    def _row_count(self) -> int:
        # max(rowid) is an O(log n) upper bound of the row count; the exact
        # count is taken only when it moved enough to matter.
        top = self._run(f"SELECT coalesce(max(rowid), 0) FROM {self._table}", ()).fetchone()[0]
        if self._rows < 0 or abs(top - self._top) * 10 > max(self._rows, 1):
            self._rows = self._run(f"SELECT count(*) FROM {self._table}", ()).fetchone()[0]
            self._top = top
            self._df.clear()
        return self._rows

    def informative(self, terms: Sequence[str]) -> list[str]:
        """The terms worth matching, rarest first (see the module docstring)."""
        with self._lock:
            rows = self._row_count()
            if rows < MIN_ROWS:
                return list(terms)
            useful = sorted(((df, t) for t in terms if (df := self._frequency(t)) * 2 <= rows))
            keep, postings = [], 0
            for df, term in useful:
                if keep and postings + df > POSTINGS_BUDGET:
                    break
                keep.append(term)
                postings += df
            return keep

    def _frequency(self, term: str) -> int:
        df = self._df.get(term)
        if df is None:
            phrase = '"' + term.replace('"', '""') + '"'
            df = self._df[term] = self._run(
                f"SELECT count(*) FROM {self._table} WHERE {self._table} MATCH ?", (phrase,)
            ).fetchone()[0]
        return df
