"""make_embedder specs and the optional fastembed provider."""

from __future__ import annotations

import subprocess
import sys

import pytest

import knotwork.embed

from knotwork.embed import Embedder, EmbeddingError, MissingDependencyError, make_embedder
from knotwork.embed.fastembed_provider import FastEmbedEmbedder
from knotwork.embed.onnx_minilm import MiniLMEmbedder
from knotwork.embed.openai_compat import OpenAICompatibleEmbedder


@pytest.mark.parametrize("spec", [None, "", "minilm", " MiniLM "])
def test_default_is_the_bundled_model(spec: str | None) -> None:
    embedder = make_embedder(spec)
    assert isinstance(embedder, MiniLMEmbedder) and isinstance(embedder, Embedder)
    assert not embedder.loaded  # building an embedder loads nothing


def test_options_reach_the_constructor() -> None:
    embedder = make_embedder("minilm", batch_size=4, query_cache_size=7)
    assert isinstance(embedder, MiniLMEmbedder)
    assert embedder.batch_size == 4 and embedder.query_cache.size == 7


@pytest.mark.parametrize(
    ("spec", "model", "url"),
    [
        ("openai:nomic-embed-text@http://localhost:11434/v1", "nomic-embed-text", "http://localhost:11434/v1/embeddings"),
        ("openai:bge-m3:latest@http://127.0.0.1:8000/v1/", "bge-m3:latest", "http://127.0.0.1:8000/v1/embeddings"),
        ("openai:text-embedding-3-small", "text-embedding-3-small", "https://api.openai.com/v1/embeddings"),
    ],
)
def test_openai_specs(spec: str, model: str, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("KNOTWORK_EMBEDDER_API_KEY", raising=False)
    embedder = make_embedder(spec)
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert (embedder.model, embedder.url) == (model, url)
    assert embedder.model_id == f"openai:{url.removesuffix('/embeddings')}:{model}"


def test_openai_key_from_the_environment_only_for_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    monkeypatch.delenv("KNOTWORK_EMBEDDER_API_KEY", raising=False)
    official = make_embedder("openai:text-embedding-3-small")
    assert isinstance(official, OpenAICompatibleEmbedder)
    assert official._headers.get("Authorization") == "Bearer sk-real"


@pytest.mark.parametrize("spec", ["bogus", "minilm:large", "openai:", "sentence-transformers:all-MiniLM-L6-v2", "none"])
def test_unknown_specs_are_refused_with_the_syntax(spec: str) -> None:
    with pytest.raises(ValueError, match=r"openai:<model>@<base_url>"):
        make_embedder(spec)


def test_fastembed_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fastembed", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match="pip install fastembed") as caught:
        make_embedder("fastembed:BAAI/bge-small-en-v1.5")
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, EmbeddingError)
    assert caught.value.name == "fastembed"
    with pytest.raises(ImportError, match="pip install fastembed"):
        FastEmbedEmbedder("BAAI/bge-small-en-v1.5")


def test_importing_the_package_loads_no_model_runtime() -> None:
    """Providers import onnxruntime or fastembed on first use, not on import."""
    code = "import sys, knotwork.embed; print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert knotwork.embed.MiniLMEmbedder is MiniLMEmbedder
    assert knotwork.embed.OpenAICompatibleEmbedder is OpenAICompatibleEmbedder
    with pytest.raises(AttributeError):
        knotwork.embed.NoSuchEmbedder  # noqa: B018
