from __future__ import annotations

import pytest

from knotwork.embed.onnx_minilm import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """One loaded model for the whole run: creating the session is the slow part."""
    embedder = MiniLMEmbedder()
    embedder.load()
    return embedder
