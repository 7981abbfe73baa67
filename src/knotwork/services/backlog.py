"""The graph's queue as counts, read from the store alone: what ``status`` and ``stats`` report.

Counting needs no part of the enrichment engine (services/enrichment.py), which brings the
knowledge graph, networkx and NumPy with it; ``knotwork stats`` reads these counts without
building it.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knotwork.store.protocol import Store

MAX_ATTEMPTS = 5  # claims of one queued memory before it is left as failed (services/enrichment.py)
LAST_BATCH = "enrich_last_batch"  # store meta: {by, at, memories} of the newest batch read in, written with it
FAILURES_SHOWN = 5


def counts(store: Store, within: Collection[str] | None = None) -> dict[str, int]:
    """{pending, running, failed} of the store's queue (``within``: of the memories of those workspaces)."""
    return store.enrich_counts(MAX_ATTEMPTS, within)


def failures(store: Store, limit: int = FAILURES_SHOWN) -> list[dict[str, Any]]:
    """Queued memories whose read-in failed (oldest first): {memory_id, attempts, error, given_up}; given up: tried
    ``MAX_ATTEMPTS`` times, left aside until ``retry_enrichment`` (the others are tried again, one at a time)."""
    return [{"memory_id": mid, "attempts": n, "error": error, "given_up": n >= MAX_ATTEMPTS}
            for mid, n, error in store.enrich_failed(limit)]


def worker(store: Store) -> dict[str, Any]:
    """The graph's worker as the store shows it: ``process`` (a worker process holds the store's worker lock now)
    and ``last_batch`` ({by: host:pid:token, at, memories} of the newest batch read in, or None)."""
    from knotwork.services.drainer import worker_running

    raw = store.get_meta(LAST_BATCH)
    return {"process": worker_running(store), "last_batch": json.loads(raw) if raw else None}
