"""Vectors on disk as float16: half the bytes of the float32 the rest of knotwork passes them in.

The SQLite store takes and gives float32 little-endian bytes (the protocol's form) and keeps
float16 little-endian bytes (migration 0024 converted the vectors stored before). A unit vector's
components lie in [-1, 1], where float16 keeps about three significant digits: a cosine moves by
about 1e-4, and recall on the benchmark data sets moves by less than their third decimal
(bench/RESULTS.md, "Peers, round 2"). numpy is imported on first use, so that opening a store for
a command that reads no vectors does not pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence


def pack(blob: bytes) -> bytes:
    """float32 little-endian bytes as float16 little-endian bytes."""
    import numpy as np

    if len(blob) % 4:
        raise ValueError(f"a float32 vector has a multiple of 4 bytes, got {len(blob)}")
    return np.frombuffer(blob, dtype="<f4").astype("<f2").tobytes()


def unpack(blob: bytes) -> bytes:
    """float16 little-endian bytes as float32 little-endian bytes."""
    import numpy as np

    return np.frombuffer(blob, dtype="<f2").astype("<f4").tobytes()


def unpack_rows(rows: Sequence[Sequence], column: int) -> list[tuple]:
    """``rows`` with their ``column`` (float16 bytes) as float32 bytes, converted in one pass."""
    if not rows:
        return []
    import numpy as np

    wide = np.frombuffer(b"".join(r[column] for r in rows), dtype="<f2").astype("<f4").tobytes()
    out, start = [], 0
    for r in rows:
        end = start + 2 * len(r[column])
        out.append((*r[:column], wide[start:end], *r[column + 1 :]))
        start = end
    return out


def migrate_function(blob: bytes | None) -> bytes | None:
    """SQL ``knotwork_half(vector)`` for migration 0024: a stored float32 vector as float16."""
    return None if blob is None else pack(bytes(blob))
