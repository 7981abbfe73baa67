"""The whole default search on a large SQLite store, with the HNSW graph: per-stage p50/p95 and the graph's recall.

    nice -n 10 python bench/scale.py fill PATH --size 1000000 [--vocab small|zipf]   # the store, once
    nice -n 10 python bench/scale.py graph PATH                                     # its graph file, once
    flock /tmp/knotwork-bench.lock python bench/scale.py search PATH --queries 200

``fill`` writes ``--size`` memories through the store (20,000 per
transaction) with bench/backends.py's clustered synthetic vectors, in the
workspaces of bench/ingest.py's generator (a third each in ``api``, ``web``
and the global scope). Their text is bench/ingest.py's: 12-40 words drawn
from a vocabulary of 36 (``--vocab small``: every query term then matches
about half the store), or ``--vocab zipf``: 12-40 words drawn from 50,000
made-up words with Zipf-distributed frequencies (exponent 1.07, as in
English text), where a query's rarer words match few memories and its
commonest ones many. The fill is kept at PATH so that later steps reuse it.

``graph`` opens the store as a process would and times the HNSW graph's
build (in the vector index's thread), which saves it beside the file.

``search`` opens the store afresh (timed: open, first search, the graph file
read back), then asks ``--queries`` searches of workspace ``api`` with the
default recipe (query vectors made like the memories', see
bench/backends.py), twice each: through the graph and by the exact scan
(``vector_ann_min_rows = 0``, what a store below the threshold does). It
reports p50/p95 of the whole search and of each stage (the search's trace)
for both, the process CPU seconds per search, the graph's recall@10 against
the exact scan for the vector stage alone (the index's top 10 and top 200,
what the default recipe's vector source asks for) and the overlap of the
two searches' top 10 results.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backends import DIM, FAST_BATCH, Vectors  # noqa: E402
from ingest import WORDS, corpus  # noqa: E402

import knotwork  # noqa: E402

ZIPF_WORDS = 50_000
ZIPF_EXPONENT = 1.07
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


LOCK = "/tmp/knotwork-bench.lock"


class bench_lock:  # noqa: N801 -- a context manager
    """Hold the shared benchmark lock (``flock LOCK``) for the timed part only: loading a large store takes
    minutes and is not the figure."""

    def __enter__(self) -> None:
        t = time.perf_counter()
        self.fh = open(LOCK, "a")  # noqa: SIM115
        fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX)
        print(f"bench lock taken after {time.perf_counter() - t:.0f} s; load {load()}", flush=True)

    def __exit__(self, *exc: object) -> None:
        print(f"bench lock let go; load {load()}", flush=True)
        self.fh.close()


class Zipf:
    """A made-up vocabulary whose word frequencies follow Zipf's law (word of rank r drawn with weight r^-s)."""

    def __init__(self, seed: int = 17) -> None:
        rng = random.Random(seed)
        words: dict[str, None] = {}
        while len(words) < ZIPF_WORDS:
            words["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
        self.words = np.array(list(words))
        weights = 1.0 / np.arange(1, ZIPF_WORDS + 1) ** ZIPF_EXPONENT
        self.cdf = np.cumsum(weights / weights.sum())

    def draw(self, gen: np.random.Generator, n: int) -> list[str]:
        return self.words[np.minimum(np.searchsorted(self.cdf, gen.random(n)), ZIPF_WORDS - 1)].tolist()


def texts(vocab: str, n: int, seed: int = 7) -> list[dict]:
    """bench/ingest.py's items; with ``zipf``, their text drawn from the Zipf vocabulary instead."""
    items = corpus(n, seed)
    if vocab == "zipf":
        zipf, gen = Zipf(), np.random.default_rng(seed)
        for i, item in enumerate(items):
            item["content"] = f"Memory {i}: {' '.join(zipf.draw(gen, int(gen.integers(12, 41))))}."
    return items


def queries(vocab: str, n: int, seed: int = 11) -> list[str]:
    """``n`` query texts of 3-9 words of the vocabulary (the small one: as bench/backends.py asks)."""
    rng = random.Random(seed)
    if vocab == "zipf":
        zipf, gen = Zipf(), np.random.default_rng(seed)
        return [" ".join(zipf.draw(gen, rng.randint(3, 9))) for _ in range(n)]
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + f" {i}" for i in range(n)]


def fill(path: Path, size: int, vocab: str) -> None:
    items = texts(vocab, size)
    vectors = Vectors()
    t = time.perf_counter()
    with knotwork.open(path, settings=knotwork.Settings(synchronous="normal", vector_ann_min_rows=0)) as mem:
        for i in range(0, size, FAST_BATCH):
            drafts = [mem._draft(**item) for item in items[i : i + FAST_BATCH]]
            with mem.store.transaction():
                for m, v in zip(mem.store.insert_memories(drafts), vectors.memories(len(drafts))):
                    mem.store.put_vectors(m.id, [v.tobytes()])
            print(f"  {i + len(drafts):,} memories, {time.perf_counter() - t:.0f} s, load {load()}", file=sys.stderr, flush=True)
        count = mem.store.count_memories()
    (path.parent / (path.name + ".vocab")).write_text(vocab)
    print(f"fill: {count:,} memories ({vocab} vocabulary) in {time.perf_counter() - t:.0f} s; load after {load()}")


def graph_from_generator(path: Path, size: int, threads: int) -> None:
    """The graph file of a store ``fill`` makes, built from the generator's vectors while the fill runs.

    The fill's vectors are the generator's stream in order, stored as float16 and labelled by their
    sequence number (1, 2, ...): the same vectors, rounded the same way, under the same labels, with
    the graph's own parameters (:class:`AnnIndex`); ``threads`` insert at once. A search checks the
    result: a graph of other vectors or labels would answer unlike the exact scan (its recall).
    """
    from knotwork.search.ann_index import AnnIndex

    with knotwork.open(path, settings=knotwork.Settings(vector_ann_min_rows=0)) as mem:
        model, ann_path = mem.index._model, mem.store.ann_file()
    ann = AnnIndex(ann_path, DIM, model)
    ann.reset(size)
    ann._graph.set_num_threads(threads)
    vectors = Vectors()
    t = time.perf_counter()
    for i in range(0, size, FAST_BATCH):
        n = min(FAST_BATCH, size - i)
        ann.add(vectors.memories(n).astype("<f2").astype("<f4"), np.arange(i + 1, i + n + 1), i + n)
        print(f"  {i + n:,} vectors in the graph, {time.perf_counter() - t:.0f} s, load {load()}", file=sys.stderr, flush=True)
    ann.save()
    print(f"graph: {size:,} vectors built ({threads} threads) and saved in {time.perf_counter() - t:.0f} s; load after {load()}")


def graph(path: Path) -> None:
    t = time.perf_counter()
    with knotwork.open(path) as mem:
        mem.index.sync()
        opened = time.perf_counter() - t
        t = time.perf_counter()
        mem.index.ann_min_rows = 1
        mem.index.search(Vectors().query("first"), 10)  # starts the build; the exact scan answers
        assert mem.index.wait_for_ann(), "no graph was built"
        print(f"graph: {len(mem.index):,} vectors read in {opened:.0f} s; graph built and saved in"
              f" {time.perf_counter() - t:.0f} s; load after {load()}")


def timed_searches(mem, asked: list[str], workspace: str, threshold: int, runs: dict, tops: dict) -> None:
    """Each query searched through the graph, then each by the exact scan: wall ms of the search and of each
    stage, CPU ms per search, the top 10."""
    for mode, min_rows in (("graph", threshold), ("exact", 0)):
        mem.index.ann_min_rows = min_rows
        cpu = time.process_time()
        for q in asked:
            started = time.perf_counter()
            hits = mem.search(q, workspace=workspace, limit=10)
            runs[mode].setdefault("search", []).append((time.perf_counter() - started) * 1000)
            tops[mode].append([h.memory.id for h in hits])
            for stage, _, ms in mem.last_trace.stages:
                runs[mode].setdefault(stage, []).append(ms)
        runs[mode]["cpu"] = [(time.process_time() - cpu) / len(asked) * 1000]


def bm25(path: Path, n: int, workspace: str, k: int) -> None:
    """The BM25 stage's index alone: its load from the store, then ``n`` searches for the best ``k``
    (the default recipe's BM25 source asks for 200)."""
    from knotwork.app import open_store
    from knotwork.search.lexical import analyze_query
    from knotwork.search.lexical_index import LexicalIndex

    vocab = (path.parent / (path.name + ".vocab")).read_text()
    asked = [analyze_query(q) for q in queries(vocab, n)]
    store = open_store(str(path), knotwork.Settings())
    index = LexicalIndex(store)
    t, cpu = time.perf_counter(), time.process_time()
    index.sync()
    print(f"{len(index):,} memories ({vocab} vocabulary) indexed in {time.perf_counter() - t:.0f} s"
          f" ({time.process_time() - cpu:.0f} s CPU); load {load()}", flush=True)
    with bench_lock():
        for rnd in (1, 2):  # the first round computes what a static store keeps between searches
            walls, cpus, matched = [], [], []
            for terms in asked:
                t, cpu = time.perf_counter(), time.process_time()
                index.search(terms, k, workspace)
                walls.append((time.perf_counter() - t) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
            print(f"round {rnd}: {n} searches of {workspace!r} for {k}: wall p50 / p95 {statistics.median(walls):.1f} /"
                  f" {percentile(walls, 0.95):.1f} ms, CPU p50 / p95 {statistics.median(cpus):.1f} / {percentile(cpus, 0.95):.1f}"
                  f" ms, CPU mean {statistics.mean(cpus):.1f} ms; load {load()}", flush=True)
    scopes = index._visible(workspace)
    for terms in asked[:200]:
        ids = [index._vocab.get(t) for t in terms]
        matched.append(sum(len(p[0]) for s in scopes for t in ids if t is not None and (p := s.postings(t)) is not None))
    print(f"postings a query reads: median {statistics.median(matched):,.0f} of {sum(s.live for s in scopes):,} memories in scope")
    store.close()


def search(path: Path, n: int, workspace: str, recall_only: bool = False) -> None:
    vocab = (path.parent / (path.name + ".vocab")).read_text()
    vectors = Vectors()
    asked = queries(vocab, n)
    print(f"load before: {load()}; {vocab} vocabulary; default threshold {knotwork.Settings().vector_ann_min_rows:,}", flush=True)
    t = time.perf_counter()
    with knotwork.open(path) as mem:
        mem.index.sync()
        mem._pipeline.lexical.sync()
        print(f"indexes loaded in {time.perf_counter() - t:.0f} s; load {load()}", flush=True)
        graph_note = Path(mem.store.ann_file() + ".json")
        while not graph_note.exists():  # a graph step still running beside: wait for its file
            time.sleep(10)
        t = time.perf_counter()
        mem._pipeline.embed_query = vectors.query  # synthetic query vectors (bench/backends.py's docstring)
        default = mem.index.ann_min_rows
        mem.index.ann_min_rows = 1  # the graph, whatever the scope's size (a store this size passes the default)
        mem.search("warm up", workspace=workspace, limit=10)
        first = time.perf_counter() - t
        t = time.perf_counter()
        assert mem.index.wait_for_ann(), "no graph: run the graph step first"
        graph_s = time.perf_counter() - t
        print(f"open + first search {first:.1f} s, then the graph file read back in {graph_s:.1f} s", flush=True)
        index, threshold = mem.index, 1
        print(f"the default threshold ({default:,}) answers a search of {workspace!r} by the"
              f" {'graph' if default and len(index) * 2 // 3 >= default else 'exact scan'} (2/3 of the vectors)", flush=True)
        runs: dict[str, dict[str, list[float]]] = {"graph": {}, "exact": {}}
        tops: dict[str, list[list[str]]] = {"graph": [], "exact": []}
        if recall_only:  # no timings: the lock is not needed
            for mode, min_rows in (("graph", threshold), ("exact", 0)):
                index.ann_min_rows = min_rows
                tops[mode] = [[h.memory.id for h in mem.search(q, workspace=workspace, limit=10)] for q in asked]
        else:
            with bench_lock():
                timed_searches(mem, asked, workspace, threshold, runs, tops)
        recall: dict[int, list[float]] = {10: [], 200: []}
        for q in asked:
            v = vectors.query(q)
            for k in recall:
                index.ann_min_rows = threshold
                got = {h.memory_id for h in index.search(v, k, workspace)}
                index.ann_min_rows = 0
                want = {h.memory_id for h in index.search(v, k, workspace)}
                recall[k].append(len(got & want) / k)
        index.ann_min_rows = threshold
        overlap = [len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(tops["graph"], tops["exact"])]
        print(f"\n{len(index):,} vectors; {n} searches of workspace {workspace!r}, limit 10; load after {load()}")
        print(f"vector stage recall of the graph against the exact scan: @10 {np.mean(recall[10]):.3f}, @200"
              f" {np.mean(recall[200]):.3f}; top-10 results in common {np.mean(overlap):.3f}", flush=True)
        if recall_only:
            return
        print("| vector stage by | search p50 / p95 ms | CPU ms per search | " + " | ".join(
            f"{s} p50 / p95 ms" for s in runs["graph"] if s not in ("search", "cpu")) + " |")
        print("|---|---|---|" + "---|" * (len(runs["graph"]) - 2))
        for mode, r in runs.items():
            cells = [f"{statistics.median(v):.1f} / {percentile(v, 0.95):.1f}" for s, v in r.items() if s not in ("search", "cpu")]
            print(f"| {mode} | {statistics.median(r['search']):.1f} / {percentile(r['search'], 0.95):.1f} | {r['cpu'][0]:.1f} | "
                  + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=("fill", "graph", "search", "bm25"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--vocab", choices=("small", "zipf"), default="small")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workspace", default="api")
    parser.add_argument("--recall-only", action="store_true", help="search: the graph's recall only, no timings (no lock)")
    parser.add_argument("--k", type=int, default=200, help="bm25: how many best matches each search asks for")
    parser.add_argument("--from-generator", action="store_true", help="graph: from the generator's --size vectors (beside a fill)")
    parser.add_argument("--threads", type=int, default=2, help="graph --from-generator: threads inserting")
    args = parser.parse_args()
    if args.step == "fill":
        fill(args.path, args.size, args.vocab)
    elif args.step == "graph" and args.from_generator:
        graph_from_generator(args.path, args.size, args.threads)
    elif args.step == "graph":
        graph(args.path)
    elif args.step == "bm25":
        bm25(args.path, args.queries, args.workspace, args.k)
    else:
        search(args.path, args.queries, args.workspace, args.recall_only)


if __name__ == "__main__":
    main()
