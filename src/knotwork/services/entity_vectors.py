"""The entity vectors a knowledge service resolves names against, held in memory per workspace."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from knotwork.domain.models import ALL_WORKSPACES

PRUNE_FROM = 1024  # entity vectors held before EntityVectors first looks for deleted entities


class EntityVectors:
    """Every entity vector of the store, one growing matrix per workspace, caught up incrementally.

    Resolving a name asks for its workspace's vectors once per entity of every
    memory added: one matrix per workspace, grown by doubling, answers that
    with a view instead of rebuilding and filtering the whole store's matrix
    (which made ingest slow down as the graph grew).

    New rows are read by rowid; deleted entities (a forgotten memory's
    orphans, merged duplicates) leave no trace to read, so they are looked for
    whenever the rows held have grown by a quarter since the last look
    (:meth:`_prune`): the rows held then stay within a bounded share of the live
    ones, and a long-running process whose memories are replaced does not grow.
    """

    def __init__(self, store: Any, dim: int) -> None:
        self.store = store
        self.dim = dim
        self.parts: dict[str, tuple[list[str], np.ndarray]] = {}  # workspace -> (ids, buffer)
        self.last = 0
        self._held = 0  # rows held, over every workspace
        self._looked = 0  # rows held right after the last look for deleted entities
        self._lock = threading.Lock()

    def sync(self) -> None:
        with self._lock:
            fresh = self.store.kg_entity_vectors(self.last)
            for rowid, eid, ws, blob in fresh:
                ids, buffer = self.parts.get(ws) or ([], np.zeros((16, self.dim), dtype=np.float32))
                if len(ids) == len(buffer):
                    buffer = np.concatenate([buffer, np.zeros_like(buffer)])
                buffer[len(ids)] = np.frombuffer(blob, dtype="<f4")
                ids.append(eid)
                self.parts[ws] = (ids, buffer)
                self.last = rowid
            self._held += len(fresh)
            if fresh and self._held > max(PRUNE_FROM, self._looked + self._looked // 4):
                self._prune()

    def _prune(self) -> None:
        """Drop the rows of entities the store no longer has (called with the lock held)."""
        live = set(self.store.kg_entity_ids())
        for ws, (ids, buffer) in list(self.parts.items()):
            keep = [i for i, eid in enumerate(ids) if eid in live]
            if len(keep) == len(ids):
                continue
            if not keep:
                del self.parts[ws]
                continue
            kept = np.zeros((max(16, 2 * len(keep)), self.dim), dtype=np.float32)
            kept[: len(keep)] = buffer[keep]
            self.parts[ws] = ([ids[i] for i in keep], kept)
        self._held = self._looked = sum(len(ids) for ids, _ in self.parts.values())

    def of(self, workspace: str | None, exact: bool) -> tuple[list[str], np.ndarray] | None:
        """(ids, vectors) of the entities of ``workspace`` (with the global scope's unless ``exact``)."""
        self.sync()
        ws = workspace or ""
        if workspace == ALL_WORKSPACES:
            names = list(self.parts)
        elif exact or not ws:
            names = [ws]
        else:
            names = ["", ws]
        parts = [(ids[:], buffer[: len(ids)]) for n in names if n in self.parts for ids, buffer in [self.parts[n]] if ids]
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        return [i for ids, _ in parts for i in ids], np.concatenate([m for _, m in parts])
