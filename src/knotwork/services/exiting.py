"""Stores still open when the interpreter exits: closed first, without waiting for their graph.

Trigger: a script that never called ``close()``. Why: its worker threads may be inside native code (the
parser, the model, hnswlib building the vector graph) while the interpreter ends, which aborts the process
("terminate called without an active exception", exit 134), and its queued memories would wait for the next
process that opens the store. Outcome: at exit each store left open is closed with ``wait=False``: its threads
are stopped and joined, and what is queued is handed to a worker process that outlives this one
(services/drainer.py).
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any

_OPEN: weakref.WeakSet[Any] = weakref.WeakSet()


def opened(store: Any) -> None:
    """``store`` (anything with ``close(wait=...)``) is open: close it at exit unless :func:`closed` first."""
    _OPEN.add(store)


def closed(store: Any) -> None:
    _OPEN.discard(store)


def _close_at_exit() -> None:
    for store in list(_OPEN):
        try:
            store.close(wait=False)
        except Exception:  # noqa: BLE001 - exiting: one store that cannot close must not keep the others open
            pass


atexit.register(_close_at_exit)
