"""A tiny deterministic embedder and the stores built on it, shared by the tests of several folders.

``RandomEmbedder`` gives one pseudo-random unit vector per text (``|`` splits a text into chunks), so that long
random write sequences stay fast and every vector can be recomputed from its text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from knotwork import Knotwork
from knotwork.app import open_store
from knotwork.config import Settings

DIM = 8


class RandomEmbedder:
    """One pseudo-random unit vector per text; ``|`` splits a text into chunks."""

    model_id = "test-random@1"
    dim = DIM
    max_tokens = 512

    def chunks(self, text: str) -> list[str]:
        return text.split("|")

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.embed_query(t) for t in texts], dtype=np.float32).reshape(len(texts), DIM)

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)


def open_fake(path: Path | str) -> Knotwork:
    """A store (a SQLite file, or the PostgreSQL database a URL names) with a random-vector embedder."""
    return Knotwork(open_store(str(path), Settings()), embedder=RandomEmbedder())


def chunky(i: int) -> str:
    """Text ``i``: one chunk, two, or (every 7th) thirty, more than the index over-fetches per memory."""
    parts = 30 if i % 7 == 0 else 2 if i % 3 == 0 else 1
    return "|".join(f"text {i} part {p}" for p in range(parts))


def open_ann(path: Path, min_rows: int = 1, embedder: RandomEmbedder | None = None) -> Knotwork:
    settings = Settings(vector_ann_min_rows=min_rows)
    return Knotwork(open_store(str(path), settings), settings, embedder=embedder or RandomEmbedder())


def fill_without_graph(path: Path, n: int = 60_000) -> None:
    """``n`` memories with random unit vectors and no graph yet: large enough that the graph's build, started
    by the next process that searches, is still inside hnswlib a moment later."""
    rng = np.random.default_rng(5)
    with open_ann(path, min_rows=10**9) as mem:
        with mem.store.transaction():
            stored = mem.store.insert_memories([mem._draft(f"memory {i}") for i in range(n)])
            vectors = rng.standard_normal((len(stored), DIM)).astype("<f4")
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            for m, v in zip(stored, vectors):
                mem.store.put_vectors(m.id, [v.tobytes()])
