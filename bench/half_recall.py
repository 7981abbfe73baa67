"""Dense recall with vectors kept as float32 against float16 (SQLite's storage since migration 0024).

The same chunk embeddings (knotwork's bundled embedder, its own chunks), each memory scored by its best
chunk as the vector index scores it; the only difference between the two rows is that the stored side is
rounded to float16 (the query stays float32, as in a search). Scored with the data sets' own ``evaluate``:

- LongMemEval oracle, pooled: ``--lme-questions`` questions (bench/peers/corpus.py's seeded draw) against
  every turn of their haystacks; dev = the questions at even positions of the draw sorted by id, test = odd.
- bench/codemem: every memory, each question asked in its workspace, the data set's own dev and test halves.

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/half_recall.py --lme-questions 100
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))
import codemem as cm  # noqa: E402
import corpus as corpora  # noqa: E402
import longmemeval as lme  # noqa: E402

from knotwork.embed import make_embedder  # noqa: E402

DEPTH = 50


def embed_docs(embedder, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(chunk matrix, owner index of each chunk row)."""
    pieces = [embedder.chunks(t) for t in texts]
    flat = [p for chunks in pieces for p in chunks]
    owner = np.array([i for i, chunks in enumerate(pieces) for _ in chunks])
    return embedder.embed(flat).astype(np.float32), owner


def int8(matrix: np.ndarray) -> np.ndarray:
    """Each row as int8 with its own scale (max |component| -> 127), read back as float32: a smaller form
    measured beside float16, not used by the store."""
    scale = np.abs(matrix).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    return (np.round(matrix / scale).astype(np.int8).astype(np.float32) * scale).astype(np.float32)


def ranked(query: np.ndarray, matrix: np.ndarray, owner: np.ndarray, n_docs: int, allowed: np.ndarray | None) -> list[int]:
    scores = matrix @ query
    best = np.full(n_docs, -np.inf, dtype=np.float64)
    np.maximum.at(best, owner, scores)
    if allowed is not None:
        best[~allowed] = -np.inf
    order = np.argsort(-best, kind="stable")[:DEPTH]
    return [int(i) for i in order if best[i] > -np.inf]


def mean(rows: list[dict], key: str) -> float:
    values = [r[key] for r in rows if r.get(key) is not None]
    return sum(values) / len(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lme-questions", type=int, default=100)
    parser.add_argument("--lme-path", type=Path, default=next(
        (up / "shared/data/longmemeval_oracle.json.gz" for up in HERE.parents if (up / "shared/data/longmemeval_oracle.json.gz").exists()),
        lme.DEFAULT_DATA))
    args = parser.parse_args()
    embedder = make_embedder(None)
    ks = (1, 5, 10)
    print(f"load {os.getloadavg()[0]:.2f}; embedder {embedder.model_id}")

    # LongMemEval
    corpus, questions = corpora.longmemeval(args.lme_path, args.lme_questions)
    keys = [d.key for d in corpus.docs]
    matrix, owner = embed_docs(embedder, [d.text for d in corpus.docs])
    half = matrix.astype(np.float16).astype(np.float32)
    quarter = int8(matrix)
    queries = embedder.embed([q.text for q in questions]).astype(np.float32)
    order = sorted(range(len(questions)), key=lambda i: questions[i].id)
    split = {questions[i].id: ("dev" if pos % 2 == 0 else "test") for pos, i in enumerate(order)}
    print(f"LongMemEval: {len(questions)} questions, {len(keys)} turns, {len(matrix)} chunks")
    for name, stored in (("float32", matrix), ("float16", half), ("int8 (not used)", quarter)):
        rows: dict[str, list[dict]] = defaultdict(list)
        for q, vec in zip(questions, queries):
            if q.abstention:
                continue
            hits = [tuple(keys[i].rsplit("#", 1)) for i in ranked(vec, stored, owner, len(keys), None)]
            hits = [(s, int(t)) for s, t in hits]
            rows[split[q.id]].append(lme.evaluate(hits, q.answer_sessions, q.answer_turns, ks))
        for h in ("dev", "test"):
            figures = ", ".join(f"{m}@{k} {mean(rows[h], f'{m}@{k}'):.4f}" for m in ("session", "turn") for k in ks)
            print(f"  {name} {h} ({len(rows[h])} q): {figures}")

    # codemem
    data = cm.load()
    ids = [m["id"] for m in data.memories]
    workspace = np.array([m["workspace"] for m in data.memories])
    matrix, owner = embed_docs(embedder, [m["content"] for m in data.memories])
    half = matrix.astype(np.float16).astype(np.float32)
    quarter = int8(matrix)
    queries = embedder.embed([q.text for q in data.questions]).astype(np.float32)
    print(f"codemem: {len(data.questions)} questions, {len(ids)} memories, {len(matrix)} chunks")
    for name, stored in (("float32", matrix), ("float16", half), ("int8 (not used)", quarter)):
        rows = defaultdict(list)
        for q, vec in zip(data.questions, queries):
            hits = [ids[i] for i in ranked(vec, stored, owner, len(ids), workspace == q.workspace)]
            rows[q.half].append(cm.evaluate(hits, q.gold, q.stale, ks))
        for h in ("dev", "test"):
            figures = ", ".join(f"hit@{k} {mean(rows[h], f'hit@{k}'):.4f}" for k in ks)
            print(f"  {name} {h} ({len(rows[h])} q): {figures}")


if __name__ == "__main__":
    main()
