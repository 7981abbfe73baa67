"""knotwork's bundled MiniLM behind an OpenAI-compatible ``POST /v1/embeddings`` on loopback.

    python bench/peers/embed_server.py --port 8765

Peers that take an embedder over HTTP (Mem0's ``openai`` embedder,
mcp-memory-service's ``MCP_EXTERNAL_EMBEDDING_URL``) get the very vectors
knotwork computes, so the comparison is about what each system does with
them, not about the model. Binds 127.0.0.1 only.

``GET /stats`` counts what it was asked to embed since it started: requests,
texts, tokens of the texts as given (WordPiece, [CLS] and [SEP] included),
tokens the model ran (each text cut to the model's 256-token window, as
``embed()`` cuts it), texts that were cut, and the process CPU seconds spent
in the model calls. bench/peers/run.py reads it around each system's ingest:
how many tokens each system's adds really put through the model.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from knotwork.embed.factory import make_embedder


class EmbeddingRequest(BaseModel):
    input: str | list[str]
    model: str | None = None
    encoding_format: str | None = None
    dimensions: int | None = None


def build_app() -> FastAPI:
    embedder = make_embedder("minilm")
    app = FastAPI()
    counts = {"requests": 0, "texts": 0, "tokens": 0, "tokens_run": 0, "truncated": 0, "model_cpu_s": 0.0}
    lock = threading.Lock()

    @app.get("/stats")
    def stats() -> dict[str, Any]:
        with lock:
            return dict(counts)

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "model": embedder.model_id}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": embedder.model_id, "object": "model"}]}

    @app.post("/v1/embeddings")
    def embeddings(req: EmbeddingRequest) -> dict[str, Any]:
        texts = [req.input] if isinstance(req.input, str) else list(req.input)
        if not texts or not all(isinstance(t, str) for t in texts):
            raise HTTPException(400, "input must be a string or a non-empty list of strings")
        if req.encoding_format not in (None, "float"):
            raise HTTPException(400, "only encoding_format=float is served")
        cpu = time.process_time()
        vectors = embedder.embed(texts)
        cpu = time.process_time() - cpu
        # Counted outside the timed call: the tokenizer run here is the bench's, not the model's.
        lengths = [len(e.ids) for e in embedder._tokenizer_ready().encode_batch(texts)]
        with lock:
            counts["requests"] += 1
            counts["texts"] += len(texts)
            counts["tokens"] += sum(lengths)
            counts["tokens_run"] += sum(min(n, embedder.max_tokens) for n in lengths)
            counts["truncated"] += sum(n > embedder.max_tokens for n in lengths)
            counts["model_cpu_s"] += cpu
        return {
            "object": "list",
            "model": req.model or embedder.model_id,
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    uvicorn.run(build_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
