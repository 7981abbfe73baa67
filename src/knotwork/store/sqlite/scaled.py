"""Entity-name vectors on disk as int8 with one scale per vector: a quarter of float32's bytes.

The SQLite store takes and gives float32 little-endian bytes (the protocol's form). An entity's
name vector is kept as a float32 scale (little-endian) followed by one int8 per component, the
component divided by the scale and rounded, with the scale = the largest absolute component / 127.
Read back, the vector is scaled and made unit length again (they are stored L2-normalised).

Only entity vectors are kept this way: they decide entity resolution by a cosine bar
(knowledge/resolve.py), which they move by less than 0.004 (bench/entity_vectors.py measures how
many resolution decisions of a store's entities would change); memory vectors rank passages and
stay float16 (store/sqlite/halves.py). Migration 0029 converts the float16 entity vectors stored
before; ``knotwork reembed`` recomputes every vector from the text.
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
    import numpy as np

    out = []
    for blob in blobs:
        scale = np.frombuffer(blob[:HEAD], dtype="<f4")[0]
        v = np.frombuffer(blob[HEAD:], dtype=np.int8).astype("<f4") * scale
        norm = float(np.linalg.norm(v))
        out.append((v / norm if norm > 0 else v).astype("<f4").tobytes())
    return out


def unpack(blob: bytes) -> bytes:
    """What :func:`pack` wrote, as float32 little-endian bytes of unit length."""
    return _decode([blob])[0]


def unpack_rows(rows: Sequence[Sequence], column: int) -> list[tuple]:
    """``rows`` with their ``column`` (packed) as float32 bytes."""
    wide = _decode([r[column] for r in rows])
    return [(*r[:column], w, *r[column + 1 :]) for r, w in zip(rows, wide)]


def migrate_function(blob: bytes | None) -> bytes | None:
    """SQL ``knotwork_scaled(vector)`` for migration 0029: a stored float16 vector as int8 with its scale."""
    from knotwork.store.sqlite import halves

    return None if blob is None else pack(halves.unpack(bytes(blob)))
