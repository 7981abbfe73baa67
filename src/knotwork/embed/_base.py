"""What every embedder shares: input checks, normalisation, the query cache
and chunking, so that each provider only has to turn texts into raw vectors.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from knotwork.embed._cache import QueryCache
from knotwork.embed._coalesce import Coalescer
from knotwork.embed._chunking import DEFAULT_PASSAGE_WORDS, Span, check_passage, estimated_spans, passages
from knotwork.embed.protocol import EmbeddingError

if TYPE_CHECKING:  # NumPy loads with the first vector: opening a store to read it needs none
    import numpy as np

#: Default size of the query-vector LRU cache (a 384-float vector is 1.5 KiB,
#: so the default costs about 1.5 MiB).
DEFAULT_QUERY_CACHE_SIZE = 1024


class BaseEmbedder(abc.ABC):
    """Implements :class:`~knotwork.embed.protocol.Embedder` around
    :meth:`_embed_raw`, which subclasses provide.

    Args:
        batch_size: Most texts sent to the model (or server) at once.
        query_cache_size: Entries in the LRU cache behind :meth:`embed_query`.
        chunk_tokens: Most tokens of one passage of :meth:`chunks`, counted
            like ``max_tokens`` (special tokens included); defaults to
            ``max_tokens``.
        passage_words: Most words of one passage of :meth:`chunks`.
    """

    model_id: str

    def __init__(
        self,
        *,
        batch_size: int,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        chunk_tokens: int | None = None,
        passage_words: int = DEFAULT_PASSAGE_WORDS,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.query_cache = QueryCache(query_cache_size)
        self.coalescer = Coalescer(self._embed_raw)  # concurrent embed() calls share model runs
        self._chunk_tokens = chunk_tokens
        self.passage_words = passage_words

    # -- what a provider supplies ---------------------------------------------

    @property
    @abc.abstractmethod
    def dim(self) -> int:
        """Length of every vector."""

    @property
    @abc.abstractmethod
    def max_tokens(self) -> int:
        """The model's window in tokens."""

    @abc.abstractmethod
    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        """Unnormalised vectors for a non-empty list, shape ``(len(texts), dim)``,
        in input order. Batching is the provider's business."""

    def _spans(self, text: str) -> Iterable[Span]:
        """Unsplittable pieces of ``text`` with their token costs; a provider
        with a tokenizer overrides this with exact counts."""
        return estimated_spans(text)

    #: Tokens the model adds around every text (e.g. [CLS] and [SEP]); they
    #: count against the window but are not part of any chunk.
    _special_tokens = 0

    # -- the Embedder protocol -------------------------------------------------

    @property
    def chunk_tokens(self) -> int:
        """Window of :meth:`chunks` in tokens, special tokens included."""
        return self._chunk_tokens if self._chunk_tokens is not None else self.max_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors for ``texts``, one row each, in order."""
        import numpy as np

        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        raw = self.coalescer(items)
        return self._normalise(raw, len(items))

    def embed_query(self, text: str) -> np.ndarray:
        """The (read-only, cached) vector of one query."""
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        return self.query_cache.get_or_compute(text, self._query_vector)

    def _query_vector(self, text: str) -> np.ndarray:
        """The uncached vector of a query; a provider whose model embeds
        queries differently from documents overrides this. A query does not
        queue behind the writes' runs (:attr:`coalescer`): it runs at once."""
        return self._normalise(self._embed_raw([text]), 1)[0]

    def chunks(self, text: str) -> list[str]:
        """``[text]`` if it is one passage long; else its passages: runs of
        whole sentences of at most :attr:`passage_words` words and
        :attr:`chunk_tokens` tokens that together cover all of it."""
        if not isinstance(text, str):
            raise TypeError(f"chunks() takes a str, got {type(text).__name__}")
        budget = self.chunk_tokens - self._special_tokens
        check_passage(budget, self.passage_words)
        return passages(text, list(self._spans(text)), budget, self.passage_words)

    # -- helpers ---------------------------------------------------------------

    def _normalise(self, raw: np.ndarray, expected_rows: int) -> np.ndarray:
        """Check what the model produced and scale each row to unit length.

        A zero or non-finite row means the model or server is broken; it is
        reported instead of being passed on as a vector that matches nothing
        (zero) or poisons every score (NaN).
        """
        import numpy as np

        vectors = np.asarray(raw, dtype=np.float32)
        if vectors.shape != (expected_rows, self.dim):
            raise EmbeddingError(
                f"{self.model_id}: expected vectors of shape {(expected_rows, self.dim)}, got {vectors.shape}"
            )
        if not np.isfinite(vectors).all():
            raise EmbeddingError(f"{self.model_id}: the model returned non-finite values (NaN or inf)")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if (norms == 0).any():
            bad = int(np.flatnonzero(norms[:, 0] == 0)[0])
            raise EmbeddingError(f"{self.model_id}: the model returned an all-zero vector for text #{bad}")
        return np.ascontiguousarray(vectors / norms, dtype=np.float32)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r})"


def _check_texts(texts: Sequence[str]) -> list[str]:
    """A list of the texts, refusing a bare string (which would otherwise be
    embedded one character at a time) and anything that is not a string."""
    if isinstance(texts, (str, bytes)):
        raise TypeError("embed() takes a sequence of str; wrap a single text in a list or use embed_query()")
    items = list(texts)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"embed(): item {index} is {type(item).__name__}, not str")
    return items
