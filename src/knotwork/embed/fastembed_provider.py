"""Embeddings from Qdrant's ``fastembed`` (ONNX models such as BGE or E5).

An optional provider for people who want a different local model than the
bundled MiniLM. ``fastembed`` is not a dependency of knotwork: it is
imported only when this embedder is used, and its absence is reported with
the command that fixes it. Note that fastembed downloads a model's files on
first use (then caches them in ``cache_dir``); offline, the cache must
already hold the model.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any

import numpy as np

from knotwork.embed._base import DEFAULT_QUERY_CACHE_SIZE, BaseEmbedder
from knotwork.embed._chunking import DEFAULT_PASSAGE_WORDS
from knotwork.embed.protocol import EmbeddingError, MissingDependencyError

DEFAULT_MODEL = "BAAI/bge-small-en-v1.5"
#: The window of most fastembed text models (BGE, E5, GTE); give
#: ``max_tokens`` for models with another.
DEFAULT_MAX_TOKENS = 512
DEFAULT_BATCH_SIZE = 32
_INSTALL_HINT = "the fastembed embedder needs the fastembed package: pip install fastembed"


def fastembed_installed() -> bool:
    """Whether ``import fastembed`` would find the package, without importing it
    (it pulls in onnxruntime and huggingface_hub)."""
    if "fastembed" in sys.modules:
        return sys.modules["fastembed"] is not None
    try:
        return importlib.util.find_spec("fastembed") is not None
    except (ImportError, ValueError):
        return False


class FastEmbedEmbedder(BaseEmbedder):
    """A ``fastembed.TextEmbedding`` model.

    Raises :class:`MissingDependencyError` at construction when fastembed is
    not installed, so a misconfigured store fails when it opens, not on its
    first write. The model itself loads on first use.

    Args:
        model_name: A model fastembed supports (``TextEmbedding.list_supported_models()``).
        cache_dir: Where fastembed keeps model files.
        threads: onnxruntime threads fastembed uses.
        dim: Vector size if known; otherwise taken from fastembed's model list,
            or from a first embedding.
        max_tokens: The model's window, used by :meth:`chunks` (estimated counts).
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        *,
        cache_dir: str | None = None,
        threads: int | None = None,
        dim: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        chunk_tokens: int | None = None,
        passage_words: int = DEFAULT_PASSAGE_WORDS,
    ) -> None:
        if not model_name:
            raise ValueError("model_name must name a fastembed model, e.g. BAAI/bge-small-en-v1.5")
        if not fastembed_installed():
            raise MissingDependencyError(_INSTALL_HINT, package="fastembed")
        super().__init__(
            batch_size=batch_size,
            query_cache_size=query_cache_size,
            chunk_tokens=chunk_tokens,
            passage_words=passage_words,
        )
        self.model_name = model_name
        self.model_id = f"fastembed:{model_name}"
        self.cache_dir = cache_dir
        self.threads = threads
        self._dim = dim
        self._max_tokens = max_tokens
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._listed_dim() or int(self._embed_raw(["dimension probe"]).shape[1])
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def _fastembed(self) -> Any:
        try:
            import fastembed
        except ImportError as exc:
            raise MissingDependencyError(_INSTALL_HINT, package="fastembed") from exc
        return fastembed

    def _listed_dim(self) -> int | None:
        try:
            models = self._fastembed().TextEmbedding.list_supported_models()
        except MissingDependencyError:
            raise
        except Exception:
            return None
        for entry in models:
            if isinstance(entry, dict) and str(entry.get("model", "")).lower() == self.model_name.lower():
                return int(entry["dim"]) if entry.get("dim") else None
        return None

    def _loaded(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    fastembed = self._fastembed()
                    try:
                        self._model = fastembed.TextEmbedding(
                            model_name=self.model_name, cache_dir=self.cache_dir, threads=self.threads
                        )
                    except Exception as exc:
                        raise EmbeddingError(f"fastembed cannot load {self.model_name!r}: {exc}") from exc
        return self._model

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        model = self._loaded()
        try:
            rows = list(model.embed(texts, batch_size=self.batch_size))
        except Exception as exc:
            raise EmbeddingError(f"fastembed failed to embed with {self.model_name!r}: {exc}") from exc
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)

    def _query_vector(self, text: str) -> np.ndarray:
        """Through ``query_embed``: models trained with a query prefix
        (E5's ``query:``, BGE's instruction) get it there, not in documents."""
        model = self._loaded()
        try:
            rows = list(model.query_embed(text))
        except Exception as exc:
            raise EmbeddingError(f"fastembed failed to embed a query with {self.model_name!r}: {exc}") from exc
        return self._normalise(np.asarray(rows, dtype=np.float32).reshape(1, -1), 1)[0]
