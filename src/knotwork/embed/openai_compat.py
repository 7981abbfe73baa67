"""Embeddings from any server that speaks OpenAI's ``POST /v1/embeddings``.

Ollama, vLLM, llama.cpp's server, LM Studio, LocalAI and OpenAI itself all
accept ``{"model": ..., "input": [texts]}`` and answer
``{"data": [{"index": i, "embedding": [...]}, ...]}``. The standard
library's urllib is enough for that, so this adds no dependency.

Every answer is checked (one vector per text, all of the expected size,
finite, non-zero) because a store that silently accepts a wrong vector
returns wrong memories forever after; errors name the URL and HTTP status.
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

import numpy as np

from knotwork.embed._base import DEFAULT_QUERY_CACHE_SIZE, BaseEmbedder
from knotwork.embed._chunking import DEFAULT_PASSAGE_WORDS
from knotwork.embed.protocol import EmbeddingError

#: Texts per request. Servers cap inputs per request (OpenAI: 2048) and
#: local servers embed a request in one go, so moderate batches keep each
#: request well inside the timeout.
DEFAULT_BATCH_SIZE = 32
#: Assumed window when none is given: 512 tokens is the smallest window of
#: the common embedding models (BGE, E5, GTE); OpenAI's and nomic's are
#: larger, and chunking to a smaller window than needed is harmless.
DEFAULT_MAX_TOKENS = 512
DEFAULT_TIMEOUT = 60.0
#: Statuses worth another try: rate limiting and a server still starting
#: or overloaded (Ollama answers 503 while it loads a model).
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
_DETAIL_CHARS = 300


class OpenAICompatibleEmbedder(BaseEmbedder):
    """An embedding model behind an OpenAI-compatible HTTP endpoint.

    Args:
        base_url: The API root including its version prefix, as the OpenAI
            SDK takes it: ``http://localhost:11434/v1`` (Ollama),
            ``http://localhost:8000/v1`` (vLLM), ``https://api.openai.com/v1``.
            Requests go to ``<base_url>/embeddings``.
        model: The model name the server knows (``nomic-embed-text``,
            ``text-embedding-3-small``).
        api_key: Sent as ``Authorization: Bearer <api_key>`` when given
            (otherwise ``user:password@`` in ``base_url`` is sent as Basic auth).
        dim: Expected vector size. When omitted it is learnt from the first
            answer; reading :attr:`dim` before any embedding asks the server
            once with a two-word text. (On Python 3.11, ``isinstance(x,
            Embedder)`` reads ``dim`` too; pass ``dim`` to avoid that request.)
        timeout: Seconds to wait for one request.
        batch_size: Texts per request.
        max_tokens: The model's window, used by :meth:`chunks` (which only
            estimates token counts, as the server's tokenizer is not at hand).
        retries: Further attempts after a connection error, a timeout or a
            status in :data:`RETRY_STATUSES`, with exponential backoff.
        retry_backoff: Seconds before the first retry (doubling after).
        headers: Extra HTTP headers (e.g. an organisation id).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        retries: int = 2,
        retry_backoff: float = 0.5,
        headers: Mapping[str, str] | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        chunk_tokens: int | None = None,
        passage_words: int = DEFAULT_PASSAGE_WORDS,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an http(s) URL such as http://localhost:11434/v1, got {base_url!r}")
        if not model:
            raise ValueError("model must name the embedding model the server serves")
        if dim is not None and dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if max_tokens < 2:
            raise ValueError(f"max_tokens must be >= 2, got {max_tokens}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        super().__init__(
            batch_size=batch_size,
            query_cache_size=query_cache_size,
            chunk_tokens=chunk_tokens,
            passage_words=passage_words,
        )
        # Credentials in the URL become a Basic auth header and are kept out
        # of the URL, which ends up in the model id, the store and errors.
        credentials = None
        if parsed.username is not None:
            credentials = f"{urllib.parse.unquote(parsed.username)}:{urllib.parse.unquote(parsed.password or '')}"
            host = parsed.hostname or ""
            netloc = f"[{host}]" if ":" in host else host
            netloc += f":{parsed.port}" if parsed.port else ""
            base_url = urllib.parse.urlunsplit(parsed._replace(netloc=netloc))
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url if self.base_url.endswith("/embeddings") else self.base_url + "/embeddings"
        self.model = model
        self.model_id = f"openai:{self.base_url}:{model}"
        self.timeout = timeout
        self.retries = retries
        self.retry_backoff = retry_backoff
        self._max_tokens = max_tokens
        self._dim = dim
        self._dim_lock = threading.Lock()
        self._headers = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        elif credentials is not None:
            self._headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
        # A proxy from the environment cannot reach this machine's loopback
        # server, so a local endpoint (Ollama, vLLM) always goes direct.
        proxies: dict[str, str] | None = {} if parsed.hostname in _LOOPBACK else None
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies))

    @property
    def dim(self) -> int:
        if self._dim is None:
            with self._dim_lock:
                if self._dim is None:
                    self._request(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        parts = [self._request(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts, axis=0)

    # -- one request ---------------------------------------------------------------

    def _request(self, texts: list[str]) -> np.ndarray:
        """Vectors for one batch, checked against the batch and ``dim``."""
        body = json.dumps({"model": self.model, "input": texts, "encoding_format": "float"}).encode()
        status, payload = self._post(body)
        vectors = self._parse(payload, status, len(texts))
        if self._dim is None:
            self._dim = vectors.shape[1]
        elif vectors.shape[1] != self._dim:
            raise self._error(f"returned vectors of {vectors.shape[1]} dimensions, expected {self._dim}", status)
        return vectors

    def _post(self, body: bytes) -> tuple[int, bytes]:
        """POST with retries; the status and body of the successful answer."""
        attempt = 0
        while True:
            request = urllib.request.Request(self.url, data=body, headers=self._headers, method="POST")
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    return response.status, response.read()
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code in RETRY_STATUSES and attempt < self.retries:
                    attempt = self._pause(attempt)
                    continue
                hint = " (is base_url the API root, e.g. http://host:port/v1?)" if exc.code in (404, 405) else ""
                raise self._error(f"answered HTTP {exc.code}{hint}: {detail}", exc.code) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                if attempt < self.retries:
                    attempt = self._pause(attempt)
                    continue
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                    raise self._error(f"did not answer within {self.timeout:g} s", None) from exc
                raise self._error(f"cannot be reached: {reason}", None) from exc

    def _pause(self, attempt: int) -> int:
        time.sleep(self.retry_backoff * (2**attempt))
        return attempt + 1

    def _parse(self, payload: bytes, status: int, expected: int) -> np.ndarray:
        try:
            document = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise self._error(f"answered with something that is not JSON: {_clip(payload)}", status) from None
        data = document.get("data") if isinstance(document, dict) else None
        if not isinstance(data, list):
            raise self._error(f"answered without a 'data' list: {_clip(payload)}", status)
        if len(data) != expected:
            raise self._error(f"returned {len(data)} vectors for {expected} texts", status)
        if all(isinstance(item, dict) and isinstance(item.get("index"), int) for item in data):
            data = sorted(data, key=lambda item: item["index"])
            if [item["index"] for item in data] != list(range(expected)):
                raise self._error(f"returned indexes {[item['index'] for item in data]} for {expected} texts", status)
        rows = [item.get("embedding") if isinstance(item, dict) else None for item in data]
        sizes = {len(row) if isinstance(row, list) else -1 for row in rows}
        if -1 in sizes:
            raise self._error("returned an item without an 'embedding' list of numbers", status)
        if len(sizes) != 1 or 0 in sizes:
            raise self._error(f"returned vectors of different or zero sizes {sorted(sizes)}", status)
        try:
            return np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise self._error("returned an embedding that is not a list of numbers", status) from None

    def _error(self, problem: str, status: int | None) -> EmbeddingError:
        return EmbeddingError(f"embedding server {self.url} (model {self.model!r}) {problem}", url=self.url, status=status)


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The server's own words from an error body: OpenAI's
    ``{"error": {"message": ...}}``, Ollama's ``{"error": "..."}`` or raw text."""
    try:
        raw = exc.read()
    except Exception:
        return exc.reason if isinstance(exc.reason, str) else ""
    try:
        document: Any = json.loads(raw)
        error = document.get("error") if isinstance(document, dict) else None
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:_DETAIL_CHARS]
        if isinstance(error, str):
            return error[:_DETAIL_CHARS]
    except (UnicodeDecodeError, json.JSONDecodeError):
        pass
    return _clip(raw) or str(exc.reason)


def _clip(payload: bytes) -> str:
    text = payload.decode("utf-8", "replace").strip()
    return text if len(text) <= _DETAIL_CHARS else text[:_DETAIL_CHARS] + "..."
