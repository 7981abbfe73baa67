"""Text embedders: the vectors behind knotwork's semantic search.

``make_embedder(spec)`` builds one from a setting; the default is
:class:`MiniLMEmbedder`, which runs offline from files installed with
knotwork. Every embedder satisfies :class:`Embedder`: unit-length float32
vectors, a cached ``embed_query`` and a ``chunks`` that splits long texts
to the model's window.

Only the protocol and the factory are imported eagerly; each provider
module imports its heavy dependencies (onnxruntime, fastembed) on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knotwork.embed.factory import SPEC_HELP, make_embedder
from knotwork.embed.protocol import Embedder, EmbeddingError, MissingDependencyError

if TYPE_CHECKING:
    from knotwork.embed.fastembed_provider import FastEmbedEmbedder
    from knotwork.embed.onnx_minilm import MiniLMEmbedder
    from knotwork.embed.openai_compat import OpenAICompatibleEmbedder

_LAZY = {
    "MiniLMEmbedder": "knotwork.embed.onnx_minilm",
    "OpenAICompatibleEmbedder": "knotwork.embed.openai_compat",
    "FastEmbedEmbedder": "knotwork.embed.fastembed_provider",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "SPEC_HELP",
    "Embedder",
    "EmbeddingError",
    "FastEmbedEmbedder",
    "MiniLMEmbedder",
    "MissingDependencyError",
    "OpenAICompatibleEmbedder",
    "make_embedder",
]
