"""Which query terms are worth sending to the full-text index.

The same policy as SQLite's (store/sqlite/termstats.py, whose docstring
gives the measurements): below ``MIN_ROWS`` rows every term is sent; above,
terms in more than half of the rows are left out, then the commonest of the
rest while their document frequencies add up to more than
``POSTINGS_BUDGET``. Here the reason is the same cost in another engine:
BM25 (store.py, ``fts_candidates``) reads the tsvector of every row that
matches any term before the best can be picked, so a query's cost is the
sum of its terms' document frequencies. Each kept term's idf is FTS5's,
``log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6, so both stores weigh
words alike.

Document frequencies come from the GIN index (a count of the rows matching
one term, so the stemmer applies) and are cached per process; the cache is
dropped when enough writes happened to move the row count by a tenth.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from knotwork.store.sqlite.termstats import MIN_ROWS, POSTINGS_BUDGET

__all__ = ["MIN_ROWS", "POSTINGS_BUDGET", "TermStats"]

MEAN_SAMPLE = 20_000  # rows the mean length (BM25's avgdl) is taken over


class TermStats:
    """Document frequencies of terms in one tsvector column, cached; and the column's row count and mean length."""

    def __init__(self, run: Callable[[str, Sequence[object]], Any], table: str = "memories", column: str = "tsv") -> None:
        self._run = run
        self._table = table
        self._column = column
        self._lock = threading.Lock()
        self._df: dict[str, int] = {}
        self._rows = -1
        self._clock = 0
        self.mean_length = 1.0  # mean words per row (BM25's avgdl)

    def _row_count(self) -> int:
        # The store's write clock (one tick per write transaction) is one indexed read; the exact
        # count is taken only when enough writes happened since to move it by a tenth.
        clock = self._run("SELECT n FROM store_clock", ()).fetchone()[0]
        if self._rows < 0 or abs(clock - self._clock) * 10 > max(self._rows, 1):
            rows = self._run(f"SELECT count(*) FROM {self._table}", ()).fetchone()[0]
            # The mean length in words, over a sample: reading every row's tsvector costs seconds at 10^6 rows.
            mean = self._run(
                f"SELECT avg((SELECT sum(coalesce(array_length(positions, 1), 1)) FROM unnest(s.{self._column})))"
                f" FROM (SELECT {self._column} FROM {self._table} LIMIT {MEAN_SAMPLE}) s",
                (),
            ).fetchone()[0] or 1.0
            self._rows, self.mean_length, self._clock = rows, max(float(mean), 1.0), clock
            self._df.clear()
        return self._rows

    def informative(self, terms: Sequence[str]) -> list[tuple[str, float]]:
        """The terms worth matching, rarest first, each with its idf (FTS5's: see the module docstring)."""
        with self._lock:
            rows = self._row_count()
            counted = sorted((self._frequency(t), t) for t in dict.fromkeys(terms))
            if rows >= MIN_ROWS:
                useful = [(df, t) for df, t in counted if df * 2 <= rows]
                keep, postings = [], 0
                for df, term in useful:
                    if keep and postings + df > POSTINGS_BUDGET:
                        break
                    keep.append((df, term))
                    postings += df
                counted = keep
            # A term's count and the row count are read at different moments: rows another process committed in
            # between can make the count pass the rows it is read against; such a term is as common as can be.
            return [(t, max(math.log(max(rows - df + 0.5, 1e-9) / (df + 0.5)), 1e-6)) for df, t in counted if df]

    def _frequency(self, term: str) -> int:
        df = self._df.get(term)
        if df is None:
            df = self._df[term] = self._run(
                f"SELECT count(*) FROM {self._table} WHERE {self._column} @@ plainto_tsquery('knotwork_english', %s)", (term,)
            ).fetchone()[0]
        return df
