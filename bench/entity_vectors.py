"""How many entity-resolution decisions int8 entity vectors would change, on a store's own entities.

    .venv/bin/python bench/entity_vectors.py STORE.db [STORE.db ...]

Reads the entity vectors of a store kept as float16 (before migration 0029: copy a store first, or
open it with an older knotwork) and compares every pair of entities of one workspace as
``Resolver.by_vector`` would (knowledge/resolve.py): a pair resolves to one entity when their
cosine reaches ``EMBED_COSINE``, or ``EMBED_COSINE_WITH_SPELLING`` with the spelling agreeing
(trigram Jaccard ≥ ``EMBED_SPELLING_JACCARD``), their numbers equal and their types compatible.
Prints, for float16 and for int8 with a scale (store/sqlite/scaled.py), the pairs past each cosine
bar and the pairs whose decision differs between the two. No labels are involved: this measures
agreement with the float16 decisions, not their quality.
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import numpy as np

from knotwork.knowledge import resolve
from knotwork.store.sqlite import halves, scaled


def decisions(path: Path) -> None:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT v.entity_id, e.workspace, e.name, e.type, v.vector FROM entity_vectors v JOIN entities e ON e.id = v.entity_id"
    ).fetchall()
    conn.close()
    half = np.stack([np.frombuffer(halves.unpack(r[4]), "<f4") for r in rows])
    eight = np.stack([np.frombuffer(scaled.unpack(scaled.pack(halves.unpack(r[4]))), "<f4") for r in rows])
    grams = [resolve.grams(resolve.normalize(r[2])) for r in rows]
    numbers = [resolve.numbers(r[2]) for r in rows]
    pairs = changed = 0
    bars = {resolve.EMBED_COSINE_WITH_SPELLING: [0, 0, 0], resolve.EMBED_COSINE: [0, 0, 0]}
    worst = 0.0
    for ws in sorted({r[1] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r[1] == ws]
        a, b = half[idx] @ half[idx].T, eight[idx] @ eight[idx].T
        worst = max(worst, float(np.abs(a - b).max()) if len(idx) else 0.0)
        for x in range(len(idx)):
            for y in range(x + 1, len(idx)):
                i, j = idx[x], idx[y]
                pairs += 1
                for bar, counts in bars.items():
                    counts[0] += a[x, y] >= bar
                    counts[1] += b[x, y] >= bar
                    counts[2] += (a[x, y] >= bar) != (b[x, y] >= bar)
                if max(a[x, y], b[x, y]) < resolve.EMBED_COSINE_WITH_SPELLING:
                    continue
                if numbers[i] != numbers[j] or not resolve.compatible(rows[i][3], rows[j][3]):
                    continue
                spelled = resolve.jaccard(grams[i], grams[j]) >= resolve.EMBED_SPELLING_JACCARD

                def joins(s: float) -> bool:
                    return s >= resolve.EMBED_COSINE or (s >= resolve.EMBED_COSINE_WITH_SPELLING and spelled)

                if joins(float(a[x, y])) != joins(float(b[x, y])):
                    changed += 1
                    print(f"  changed: {rows[i][2]!r} / {rows[j][2]!r}: float16 {a[x, y]:.4f}, int8 {b[x, y]:.4f}")
    print(f"{path}: {len(rows)} entity vectors, {pairs} pairs within a workspace; largest cosine change {worst:.4f}")
    for bar, (h, e, d) in bars.items():
        print(f"  cosine >= {bar}: float16 {h} pairs, int8 {e}, crossing the bar {d}")
    print(f"  resolution decisions that differ: {changed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", type=Path, nargs="+")
    for path in parser.parse_args().stores:
        decisions(path)


if __name__ == "__main__":
    main()
