"""Vectors on disk as int8 with one scale per vector: a quarter of float32's bytes.

The SQLite store takes and gives float32 little-endian bytes (the protocol's form). A vector is
kept as a float32 scale (little-endian) followed by one int8 per component, the component divided
by the scale and rounded, with the scale = the largest absolute component / 127. Read back, the
components are made unit length again (vectors are stored L2-normalised, so the scale cancels out).

Entity-name vectors are kept this way since migration 0029: they decide entity resolution by a
cosine bar (knowledge/resolve.py), which they move by less than 0.004 (bench/entity_vectors.py
counts how many resolution decisions of a store's entities would change). Memory (passage) vectors
since migration 0030, which converts the float16 ones stored before (store/sqlite/halves.py):
a MiniLM passage's cosine with a query moves by 3e-4 on average and by less than 2e-3 (float16:
1e-5); bench/ranked_diff.py compares the ranked lists of every benchmark question before and after,
and bench/RESULTS.md has the figures. ``knotwork reembed`` recomputes every vector from the text.
"""

from __future__ import annotations

from collections.abc import Sequence

HEAD = 4  # bytes of the scale


def pack(blob: bytes) -> bytes:
    """float32 little-endian bytes as a float32 scale and int8 components."""
    import numpy as np

    if len(blob) % 4:
        raise ValueError(f"a float32 vector has a multiple of 4 bytes, got {len(blob)}")
    v = np.frombuffer(blob, dtype="<f4")
    top = float(np.abs(v).max()) if len(v) else 0.0
    scale = top / 127 if top > 0 else 1.0
    return np.asarray([scale], dtype="<f4").tobytes() + np.round(v / scale).astype(np.int8).tobytes()


def _decode(blobs: Sequence[bytes]) -> list[bytes]:
    """Unit-length float32 bytes of packed vectors; vectors of one width are decoded in one pass."""
    import numpy as np

    if not blobs:
        return []
    width = len(blobs[0])
    if any(len(b) != width for b in blobs):
        return [row for blob in blobs for row in _decode([blob])]
    raw = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), width)
    # The scale cancels out once the vector is made unit length, so it is not applied: the floats read back
    # then depend on the int8 components alone, and a vector that goes out (export, migrate) and comes back
    # packs to the same components and reads back bit for bit the same.
    v = raw[:, HEAD:].view(np.int8).astype("<f4")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    v /= np.where(norms > 0, norms, 1.0)
    data = v.astype("<f4", copy=False).tobytes()
    step = 4 * (width - HEAD)
    return [data[i : i + step] for i in range(0, len(data), step)]


def unpack(blob: bytes) -> bytes:
    """What :func:`pack` wrote, as float32 little-endian bytes of unit length."""
    return _decode([blob])[0]


def unpack_rows(rows: Sequence[Sequence], column: int) -> list[tuple]:
    """``rows`` with their ``column`` (packed) as float32 bytes, decoded in one pass."""
    wide = _decode([r[column] for r in rows])
    return [(*r[:column], w, *r[column + 1 :]) for r, w in zip(rows, wide)]


def migrate_function(blob: bytes | None) -> bytes | None:
    """SQL ``knotwork_scaled(vector)`` for migrations 0029 and 0030: a stored float16 vector as int8 with its scale."""
    from knotwork.store.sqlite import halves

    return None if blob is None else pack(halves.unpack(bytes(blob)))
