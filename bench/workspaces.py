"""Search latency in a store of many workspaces, next to a bm25s + NumPy baseline in the same run.

    python bench/workspaces.py [--workspaces 10] [--per 600] [--queries 300] [--store PATH]

The store: ``--workspaces`` × ``--per`` memories of real conversational text
(LongMemEval turns, each cut to its first 40 words so that it is one passage,
dealt out to the workspaces session by session), built once with the bundled
embedder. The queries: LongMemEval questions, each asked in one workspace
(round robin); every query is new to both systems, so each timing includes
embedding it.

The baseline is what a user would write by hand: per workspace, a bm25s
index (English stopwords, PyStemmer when installed) and a NumPy matrix of the
same vectors knotwork stores, searched with the same model (its own
instance, no query cache), fused by reciprocal rank (k=60, 100 deep).
knotwork is its default ``search(query, workspace=W, limit=10)``: the
workspace and the global scope, filters, fusion and whole memories returned.
Reported: p50 / p95 ms of each and their ratio (the target: knotwork's p95 at
most 2× the baseline's), with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval as lme  # noqa: E402

import knotwork  # noqa: E402
from knotwork.embed import make_embedder  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"


def texts(data: lme.Dataset, workspaces: int, per: int) -> list[list[str]]:
    """``per`` distinct turn texts (first 40 words) for each workspace, whole sessions dealt round robin."""
    sessions: dict[str, list[str]] = {}
    for t in data.turns:
        sessions.setdefault(t.session_id, []).append(" ".join(t.text.split()[:40]))
    out: list[list[str]] = [[] for _ in range(workspaces)]
    seen: set[str] = set()
    for i, turns in enumerate(sessions.values()):
        bucket = out[i % workspaces]
        for text in turns:
            if len(bucket) < per and text not in seen:
                seen.add(text)
                bucket.append(text)
        if all(len(b) >= per for b in out):
            break
    return out


class Baseline:
    def __init__(self, mem: knotwork.Knotwork, names: list[str]) -> None:
        import bm25s

        self.bm25s = bm25s
        self.stemmer, _ = lme.english_stemmer()
        self.embedder = make_embedder("minilm", threads=1, query_cache_size=0)
        self.parts: dict[str, tuple[list[str], object, np.ndarray]] = {}
        for name in names:
            memories = [m for m in mem.store.iter_memories() if m.workspace == name]
            ids = [m.id for m in memories]
            index = bm25s.BM25()
            index.index(bm25s.tokenize([m.content for m in memories], stopwords="en", stemmer=self.stemmer, show_progress=False), show_progress=False)
            vectors = mem.index.vectors_of(ids)
            self.parts[name] = (ids, index, np.stack([vectors[i] for i in ids]))

    def __call__(self, query: str, workspace: str) -> list[str]:
        ids, index, matrix = self.parts[workspace]
        tokens = self.bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        depth = min(100, len(ids))
        docs, _ = index.retrieve(tokens, k=depth, show_progress=False, n_threads=1)
        sims = matrix @ self.embedder.embed_query(query)
        dense = np.argpartition(-sims, depth - 1)[:depth]
        dense = dense[np.argsort(-sims[dense])]
        fused: dict[int, float] = {}
        for ranking in (docs[0].tolist(), dense.tolist()):
            for rank, doc in enumerate(ranking, 1):
                fused[doc] = fused.get(doc, 0.0) + 1 / (60 + rank)
        return [ids[d] for d, _ in sorted(fused.items(), key=lambda p: -p[1])[:10]]


def percentile(values: list[float], p: float) -> float:
    return lme.percentile(values, p)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--workspaces", type=int, default=10)
    p.add_argument("--per", type=int, default=600)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--store", type=Path, default=None)
    args = p.parse_args()
    data = lme.load(args.data)
    names = [f"ws{i}" for i in range(args.workspaces)]
    path = args.store or CACHE / f"workspaces-{args.workspaces}x{args.per}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        tmp = path.with_suffix(".tmp.db")
        start = time.perf_counter()
        with knotwork.open(tmp) as mem:
            for name, bucket in zip(names, texts(data, args.workspaces, args.per)):
                mem.add_many([{"content": t, "workspace": name, "category": "conversation"} for t in bucket], consolidate=False, force=True)
            mem.wait_for_extraction()  # the graph's enrichment runs after the add: the store is whole before it is used
        os.replace(tmp, path)
        print(f"built {path} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    questions = [q.text for q in data.questions][: args.queries]
    load_before = os.getloadavg()[0]
    with knotwork.open(path) as mem:
        mem.warm()
        baseline = Baseline(mem, names)
        baseline(questions[0] + " warm", names[0])
        mem.search(questions[0] + " warm", workspace=names[0])
        times: dict[str, list[float]] = {"baseline": [], "knotwork": []}
        for i, question in enumerate(questions):
            ws = names[i % len(names)]
            for system, call in (("baseline", lambda: baseline(question, ws)), ("knotwork", lambda: mem.search(question, workspace=ws))):
                start = time.perf_counter()
                call()
                times[system].append((time.perf_counter() - start) * 1000)
    load_after = os.getloadavg()[0]
    print(f"\n{args.workspaces} workspaces x {args.per} memories, {len(questions)} queries, load {load_before:.1f} -> {load_after:.1f}\n")
    print("| system | p50 ms | p95 ms |\n|---|---|---|")
    for system, values in times.items():
        print(f"| {system} | {statistics.median(values):.2f} | {percentile(values, 95):.2f} |")
    ratio = percentile(times["knotwork"], 95) / percentile(times["baseline"], 95)
    print(f"\nknotwork p95 / baseline p95 = {ratio:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
