"""What the store needs from an embedding model, and the error it raises.

The store keeps one vector per chunk (the text, or the passages of a long one) of a memory and compares them by dot
product, so every embedder promises float32, L2-normalised rows of a fixed
size, and a ``model_id`` that changes whenever the vector space changes (the
store records it and refuses to mix vectors of two models).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # NumPy loads with the first vector: opening a store to read it needs none
    import numpy as np


class EmbeddingError(Exception):
    """An embedder could not produce vectors: the model failed to load, a
    server failed or answered with the wrong number or size of vectors.

    ``url`` and ``status`` are set when a remote endpoint is involved, so a
    caller can report which server failed and how.
    """

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class MissingDependencyError(EmbeddingError, ImportError):
    """An optional package that the chosen embedder needs is not installed.

    Also an ``ImportError`` so that code which already guards optional
    imports catches it; the message says what to ``pip install``, and
    ``name`` is the missing package.
    """

    def __init__(self, message: str, *, package: str) -> None:
        super().__init__(message)
        self.name = package


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model as the store uses it.

    Attributes:
        model_id: Stable name of the vector space, stored next to the vectors
            (e.g. ``"minilm-l6-v2-int8@1"``, ``"openai:<base_url>:<model>"``).
        dim: Length of every vector.
        max_tokens: The model's window; text past it is cut off by
            :meth:`embed`, which is why long memories go through
            :meth:`chunks` first.
    """

    model_id: str
    dim: int
    max_tokens: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: shape ``(len(texts), dim)``, float32, rows of
        unit L2 norm, in input order; ``(0, dim)`` for no texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query, shape ``(dim,)``, read-only.

        Served from an LRU cache, because agents repeat the same queries."""
        ...

    def chunks(self, text: str) -> list[str]:
        """What ``text`` is embedded as: ``[text]`` when it is one passage
        long; otherwise its passages, runs of whole sentences that together
        cover all of it (search scores a memory by its best one)."""
        ...


__all__ = ["Embedder", "EmbeddingError", "MissingDependencyError"]
