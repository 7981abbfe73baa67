"""The graph's queue as counts, read from the store alone: what ``status`` and ``stats`` report.

Counting needs no part of the enrichment engine (services/enrichment.py), which brings the
knowledge graph, networkx and NumPy with it; ``knotwork stats`` reads these counts without
building it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from knotwork.store.protocol import Store

MAX_ATTEMPTS = 5  # claims of one queued memory before it is left as failed (services/enrichment.py)


def counts(store: Store, within: Collection[str] | None = None) -> dict[str, int]:
    """{pending, running, failed} of the store's queue (``within``: of the memories of those workspaces)."""
    return store.enrich_counts(MAX_ATTEMPTS, within)
