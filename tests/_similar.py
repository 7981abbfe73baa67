"""The ``similar`` lists a store keeps, checked against a brute-force computation over the vectors in its file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from knotwork import Knotwork
from knotwork.store.sqlite import scaled


def expected(path: Path) -> dict[str, list[float]]:
    """Brute force from the file: each embedded memory's 5 best scores among the memories it can see."""
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT v.memory_id, m.workspace, v.vector FROM memory_vectors v JOIN memories m ON m.id = v.memory_id"
    ).fetchall()
    conn.close()
    chunks: dict[str, list[np.ndarray]] = {}
    workspace: dict[str, str] = {}
    for mid, ws, blob in rows:
        chunks.setdefault(mid, []).append(np.frombuffer(scaled.unpack(blob), dtype="<f4"))  # kept as int8 with a scale
        workspace[mid] = ws
    out = {}
    for a in chunks:
        scores = [
            float(max(x @ y for x in chunks[a] for y in chunks[b]))
            for b in chunks
            if b != a and workspace[b] in ("", workspace[a])
        ]
        out[a] = sorted(scores, reverse=True)[:5]
    return out


def stored(path: Path) -> dict[str, list[tuple[str | None, float]]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT memory_id, neighbour_id, score FROM memory_similar ORDER BY memory_id, rank").fetchall()
    conn.close()
    out: dict[str, list[tuple[str | None, float]]] = {}
    for mid, neighbour, score in rows:
        out.setdefault(mid, []).append((neighbour, score))
    return out


def check(mem: Knotwork, path: Path) -> None:
    """Every embedded memory has 5 slots holding its true 5 nearest visible memories, with true scores."""
    want = expected(path)
    have = stored(path)
    assert set(have) == set(want)
    for mid, slots in have.items():
        assert len(slots) == 5
        filled = [(n, s) for n, s in slots if n is not None]
        assert [n for n, _ in slots] == [n for n, _ in filled] + [None] * (5 - len(filled)), "empty slots come last"
        # The file keeps vectors as int8 with a scale (store/sqlite/scaled.py) and an add scores its fresh float32
        # vectors against them: a component of these 8-dimension unit vectors moves by up to half a step (the
        # largest component / 254, under 4e-3), so a cosine recomputed from the file differs by up to about 1e-2.
        assert [s for _, s in filled] == pytest.approx(want[mid], abs=1e-2), mid
        visible = {"", mem.get(mid).workspace or ""}
        assert all((mem.get(n).workspace or "") in visible for n, _ in filled)
