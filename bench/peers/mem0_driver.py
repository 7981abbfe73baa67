"""Mem0 through its Python API, run with the Python of Mem0's own virtualenv (bench/.cache/peers/mem0/venv).

    python mem0_driver.py --corpus corpus.json --store DIR --embed-url URL --out outcome.json [--budget S]

``Memory.add(..., infer=False)`` stores each memory as given (no LLM); the
embedder is Mem0's ``openai`` provider pointed at bench/peers/embed_server.py
on loopback (the same MiniLM knotwork bundles), the vector store its default
local Qdrant in ``--store``. The LLM is configured at a loopback port where
nothing listens: with ``infer=False`` nothing calls it. Each question's part
is the Mem0 ``user_id`` (its own scoping).
"""

from __future__ import annotations

import argparse
import json
import time
from importlib.metadata import version
from pathlib import Path

LIMIT = 10


def embed_stats(embed_url: str) -> dict:
    """bench/peers/embed_server.py's counters so far ({} if it has none)."""
    import urllib.request

    try:
        with urllib.request.urlopen(embed_url.rsplit("/v1/", 1)[0] + "/stats", timeout=10) as fh:
            return json.loads(fh.read())
    except (OSError, ValueError):
        return {}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", type=Path, required=True)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--embed-url", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--budget", type=float, default=1800)
    args = p.parse_args()
    corpus = json.loads(args.corpus.read_text())
    out: dict = {"version": version("mem0ai"), "ingest_s": 0.0, "ingested": 0, "ranked": {}, "answers": {}, "latency_ms": {}, "notes": []}
    deadline = time.monotonic() + args.budget
    try:
        from mem0 import Memory

        base = args.embed_url.rsplit("/embeddings", 1)[0]
        args.store.mkdir(parents=True, exist_ok=True)
        memory = Memory.from_config({
            "embedder": {"provider": "openai", "config": {"model": "all-MiniLM-L6-v2", "api_key": "unused", "openai_base_url": base}},
            "vector_store": {"provider": "qdrant", "config": {"path": str(args.store / "qdrant"), "embedding_model_dims": 384,
                                                              "collection_name": "peers", "on_disk": True}},
            "llm": {"provider": "openai", "config": {"model": "none", "api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"}},
            "history_db_path": str(args.store / "history.db"),
        })
        embed_before, cpu_before = embed_stats(args.embed_url), time.process_time()
        start = time.perf_counter()
        for d in corpus["docs"]:
            role = "assistant" if d["text"].startswith("assistant:") else "user"
            memory.add([{"role": role, "content": d["text"]}], user_id=d["part"], metadata={"key": d["key"]}, infer=False)
            out["ingested"] += 1
            if time.monotonic() > deadline:
                raise TimeoutError(f"ingest passed the {args.budget:.0f} s budget after {out['ingested']} memories")
        out["ingest_s"] = time.perf_counter() - start
        # Mem0 runs in this process: its CPU during the adds, and what the embedding server did for them.
        after = embed_stats(args.embed_url)
        out["ingest_cpu"] = {"system_cpu_s": time.process_time() - cpu_before,
                             "embed": {k: v - embed_before.get(k, 0) for k, v in after.items()}}
        asks = corpus["questions"]
        memory.search(asks[0]["text"], top_k=LIMIT, filters={"user_id": asks[0]["part"]})  # warm-up, untimed
        for q in asks:
            start = time.perf_counter()
            result = memory.search(q["text"], top_k=LIMIT, filters={"user_id": q["part"]})
            out["latency_ms"][q["id"]] = (time.perf_counter() - start) * 1000
            rows = result.get("results", []) if isinstance(result, dict) else result
            out["answers"][q["id"]] = json.dumps(result, default=str)
            out["ranked"][q["id"]] = [r.get("metadata", {}).get("key") for r in rows if r.get("metadata", {}).get("key")][:LIMIT]
    except Exception as exc:  # noqa: BLE001 - the outcome says what failed
        out["error"] = f"{type(exc).__name__}: {str(exc)[:400]}"
    args.out.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
