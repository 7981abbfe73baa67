"""Ages, by one rule on every surface: the CLI and compact answers (render/compact.py), the hooks' recall
(text/recall.py) and the web UI (``age`` and ``ageOf`` in web/src/dom.ts, the same units).

Trigger: one memory read "1y ago" in the CLI (from ``valid_at``), "1m" in the web UI (from ``created_at``)
and "90w ago" in a hook (weeks). Outcome: a memory's age is how long ago it became true (``valid_at``), in
m/h/d/mo/y; where the time it was stored (``created_at``) reads differently, it is shown beside it
(``1y ago (stored 1mo ago)``). A memory imported or told late ("we moved to Valkey in March") is as old as
what it says, and the reader still sees that it is new to the store.
"""

from __future__ import annotations

from datetime import datetime

from knotwork.domain.models import Memory


def ago(dt: datetime, now: datetime) -> str:
    """``now``, ``5m ago``, ``2h ago``, ``3d ago``, ``4mo ago``, ``2y ago`` (``in 3d`` for the future)."""
    seconds = (now - dt).total_seconds()
    span = abs(seconds)
    for unit, size, below in (("m", 60, 3600), ("h", 3600, 86400), ("d", 86400, 86400 * 30), ("mo", 86400 * 30, 86400 * 365)):
        if span < below:
            count = int(span // size)
            break
    else:
        unit, count = "y", int(span // (86400 * 365))
    if unit == "m" and count == 0:
        return "now"
    return f"{count}{unit} ago" if seconds >= 0 else f"in {count}{unit}"


def age(m: Memory, now: datetime) -> str:
    """A memory's age, by one rule on every surface (CLI, compact answers, hooks, the web UI's
    ``web/src/dom.ts``): how long ago it became true (``valid_at``), and, when the time it was stored
    (``created_at``) reads differently, that beside it: ``1y ago (stored 1mo ago)``."""
    true_since, stored = ago(m.valid_at, now), ago(m.created_at, now)
    return true_since if stored == true_since else f"{true_since} (stored {stored})"
