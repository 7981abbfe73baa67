"""A scan of every vector in a SQLite file, and searches checked against it, for the vector index's tests."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork import ALL_WORKSPACES
from knotwork.search.vector_index import VectorIndex
from knotwork.store.sqlite import scaled
from tests._fakes import DIM

SPACES = [None, None, "a", "b", "c"]


Stored = list[tuple[str, str, np.ndarray]]


def stored_vectors(path: Path) -> Stored:
    """Every vector in the file as (memory id, workspace, vector), decoded (it is kept as int8 with a scale)."""
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT v.memory_id, m.workspace, v.vector FROM memory_vectors v JOIN memories m ON m.id = v.memory_id"
    ).fetchall()
    conn.close()
    return [(mid, ws, np.frombuffer(scaled.unpack(blob), dtype="<f4")) for mid, ws, blob in rows]


def full_scan(path: Path | Stored, query: np.ndarray, k: int, workspace: str | None) -> list[tuple[str, float]]:
    """The ``k`` best memories by their best chunk, from every vector in the file (or read from it already)."""
    best: dict[str, float] = {}
    for mid, ws, vector in stored_vectors(path) if isinstance(path, Path) else path:
        if workspace != ALL_WORKSPACES and ws not in ("", workspace or ""):
            continue
        score = float(vector @ query)
        best[mid] = max(best.get(mid, -np.inf), score)
    return sorted(best.items(), key=lambda p: -p[1])[:k]


def assert_exact(index: VectorIndex, path: Path, rng: random.Random) -> None:
    stored = stored_vectors(path)  # nothing writes during the check: one read of the file serves every query
    for _ in range(5):
        query = rng.choice([np.float32(1), np.float32(-1)]) * np.array([rng.gauss(0, 1) for _ in range(DIM)], dtype=np.float32)
        query /= np.linalg.norm(query)
        for workspace in [ALL_WORKSPACES, None, "a", "b", "c", "nobody-writes-here"]:
            got = [(h.memory_id, h.similarity) for h in index.search(query, 7, workspace)]
            want = full_scan(stored, query, 7, workspace)
            assert [m for m, _ in got] == [m for m, _ in want], workspace
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
