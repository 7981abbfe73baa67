"""Turning a one-line setting (``KNOTWORK_EMBEDDER``) into an embedder.

Spec syntax:

* ``minilm`` (also ``None`` or empty): the bundled all-MiniLM-L6-v2, offline.
* ``openai:<model>@<base_url>``: an OpenAI-compatible server, e.g.
  ``openai:nomic-embed-text@http://localhost:11434/v1`` (Ollama) or
  ``openai:text-embedding-3-small@https://api.openai.com/v1``.
  ``openai:<model>`` alone means OpenAI's own API. The model is everything
  up to the first ``@`` that is followed by ``http://`` or ``https://``, so
  model names with ``:`` (``bge-m3:latest``) and URLs with credentials work.
* ``fastembed:<model_name>``: a ``fastembed`` model, e.g.
  ``fastembed:BAAI/bge-small-en-v1.5`` (needs ``pip install fastembed``).

The API key never goes in the spec (specs end up in logs and in the store):
it comes from the ``api_key`` argument, else ``$KNOTWORK_EMBEDDER_API_KEY``,
else ``$OPENAI_API_KEY`` but only for OpenAI's own host, so that key is
never sent to another server.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Any

from knotwork.embed.protocol import Embedder

OPENAI_BASE_URL = "https://api.openai.com/v1"
SPEC_HELP = (
    "use 'minilm' (bundled, offline), 'openai:<model>@<base_url>' "
    "(e.g. openai:nomic-embed-text@http://localhost:11434/v1) or 'fastembed:<model_name>'"
)
_OPENAI = re.compile(r"^(?P<model>.+?)@(?P<url>https?://.+)$", re.IGNORECASE)


def make_embedder(spec: str | None = None, *, api_key: str | None = None, threads: int | None = None, **options: Any) -> Embedder:
    """The embedder a spec names (see the module docstring for the syntax).

    ``options`` go to the embedder's constructor (``batch_size``,
    ``query_cache_size``, ``max_tokens``, ...). ``threads``: onnxruntime threads per run of a model this
    process runs (minilm, fastembed; default one per core); a remote embedder has none. Nothing is loaded or
    contacted here: models load and servers are asked on first use.

    Raises:
        ValueError: the spec is not one of the forms above.
    """
    text = (spec or "").strip()
    kind, _, rest = text.partition(":")
    kind = kind.lower()
    if kind in ("", "minilm", "default") and not rest:
        from knotwork.embed.onnx_minilm import MiniLMEmbedder

        return MiniLMEmbedder(threads=threads, **options)
    if kind == "openai":
        return _openai(text, rest.strip(), api_key, options)
    if kind == "fastembed":
        from knotwork.embed.fastembed_provider import DEFAULT_MODEL, FastEmbedEmbedder

        return FastEmbedEmbedder(rest.strip() or DEFAULT_MODEL, threads=threads, **options)
    raise ValueError(f"unknown embedder spec {spec!r}: {SPEC_HELP}")


def _openai(spec: str, rest: str, api_key: str | None, options: dict[str, Any]) -> Embedder:
    from knotwork.embed.openai_compat import OpenAICompatibleEmbedder

    match = _OPENAI.match(rest)
    model, base_url = (match["model"], match["url"]) if match else (rest, OPENAI_BASE_URL)
    if not model or "@" in model and not match:
        raise ValueError(f"embedder spec {spec!r} names no model or has a malformed URL: {SPEC_HELP}")
    key = api_key or os.environ.get("KNOTWORK_EMBEDDER_API_KEY")
    if not key and urllib.parse.urlsplit(base_url).hostname == urllib.parse.urlsplit(OPENAI_BASE_URL).hostname:
        key = os.environ.get("OPENAI_API_KEY")
    return OpenAICompatibleEmbedder(base_url, model, api_key=key or None, **options)
