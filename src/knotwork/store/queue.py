"""What both stores' enrichment queues decide alike (store/sqlite/enrich.py, store/postgres/enrich.py)."""

from __future__ import annotations

from typing import Any


def first_untried(rows: list[Any], attempts: int) -> list[Any]:
    """Of claimable rows in queue order, those to take now: a row tried before alone (a memory that failed, or
    whose worker died reading it in, must not take a batch of others down with it again), else the rows up to
    the first one tried before (column ``attempts`` of each row)."""
    if rows and rows[0][attempts] > 0:
        return rows[:1]
    out = []
    for r in rows:
        if r[attempts] > 0:
            break
        out.append(r)
    return out
