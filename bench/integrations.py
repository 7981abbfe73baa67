"""What the LangGraph adapter costs over knotwork itself: ``KnotworkStore.put`` beside ``Knotwork.add`` and
``KnotworkStore.search(query=...)`` beside ``Knotwork.search`` of the same query, in one run.

Two fresh stores on the same backend get the same texts (LongMemEval turns, bench/longmemeval.py, or made-up
sentences with ``--synthetic``): store A through ``mem.add`` (``consolidate=False, force=True``: what a put
does), store B through ``store.put(("users", "u<i % users>"), "k<i>", {"text": ...})``. The two calls alternate
text by text, so the machine's load falls on both alike. Then each question is asked of A with
``mem.search(q, workspace=..., limit=k)`` and of B with ``store.search(("users", "u<j>"), query=q, limit=k)``,
again alternating. It prints the median and p95 of each call and the ratios of the medians (target: put/add
and store search/search at most 1.2).

Every question is embedded once before the searches are timed (the embedder keeps query vectors), so the
search figures are of the search alone, not of the model (last round's also held one embedding per question).
Beside them, in the same rotation, store B is searched through knotwork itself with and without the namespace's
tag filter (``mem.search(q, workspace=..., tags={lg.ns0, lg.ns1, lg.index})``): their ratio is what a tag filter
costs the core search. Each call's CPU time (``time.process_time``) is summed too, and the ratios are given for
both: on a shared machine the wall-clock medians carry other processes' load, the CPU ratios much less of it.

``--dump FILE`` writes every ranked list of the tag-filtered searches (the store's keys and scores); ``--compare
FILE`` checks this run's lists against such a dump and exits 1 on any difference: run it on two versions to show
a change left the rankings as they were (same data, same model; the store's keys name the items in both runs).

    .venv/bin/python bench/integrations.py --n 500 --queries 100           # SQLite files in a temp folder
    .venv/bin/python bench/integrations.py --n 500 --postgres URL_A URL_B  # two empty PostgreSQL databases
    .venv/bin/python bench/integrations.py --n 20 --queries 5 --synthetic  # a smoke run (no figures)

``--users`` namespaces share the items (default 1: a store search then filters on the namespace's tags
over every item, the case nearest knotwork's own search; 10 makes the namespace a tenth of the store).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import knotwork  # noqa: E402
from knotwork.integrations.langgraph import KnotworkStore  # noqa: E402

WORDS = ("deploy billing cache tenant invoice report staging schema queue worker vector index token budget "
         "release meeting coffee Lisbon Friday garden violin tide kayak database migration alert pager").split()


def texts(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(texts to store, questions): LongMemEval's turns and questions, or made-up sentences."""
    if not args.synthetic:
        import longmemeval

        if args.data.exists():
            data = longmemeval.load(args.data)
            turns = list(dict.fromkeys(t.content for t in data.turns if t.content.strip()))[: args.n]
            return turns, [q.text for q in data.questions][: args.queries]
        print(f"no {args.data}: made-up sentences", file=sys.stderr)
    rng = random.Random(7)
    made = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))) for _ in range(args.n)]
    return made, [" ".join(rng.choice(WORDS) for _ in range(4)) + "?" for _ in range(args.queries)]


def timed(call) -> float:  # noqa: ANN001
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def cpu_timed(call, cpu: list[float]):  # noqa: ANN001, ANN201
    """``call()``'s result and its wall-clock seconds; its CPU seconds (this process's) are appended to ``cpu``."""
    start, cpu_start = time.perf_counter(), time.process_time()
    out = call()
    cpu.append(time.process_time() - cpu_start)
    return out, time.perf_counter() - start


def ranked(found) -> list[tuple[str, float]]:  # noqa: ANN001
    """A ranked list as (the item's key, score): keys name the same items in every run, memory ids do not."""
    return [[f.key, round(f.score, 6)] if hasattr(f, "key") else [f.memory.tags.get("lg.key", ""), round(f.score, 6)]
            for f in found]


def compare(lists: dict[str, list], earlier: dict[str, list]) -> int:
    """Print how many ranked lists equal ``earlier``'s and each that does not; 1 when any differs."""
    differ = [name for name in earlier if lists.get(name) != earlier[name]]
    differ += [name for name in lists if name not in earlier]
    for name in differ[:10]:
        print(f"differs: {name}\n  before {earlier.get(name)}\n  now    {lists.get(name)}", file=sys.stderr)
    print(f"ranked lists: {len(lists) - len(differ)} of {len(lists)} identical to the earlier run")
    return 1 if differ else 0


def summary(name: str, seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"op": name, "n": len(ms), "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=500, help="texts stored in each store")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--k", type=int, default=10, help="results per search")
    ap.add_argument("--users", type=int, default=1, help="namespaces the items are spread over")
    ap.add_argument("--synthetic", action="store_true", help="made-up sentences instead of LongMemEval")
    ap.add_argument("--data", type=Path, default=None, help="longmemeval_oracle.json.gz (default: bench/longmemeval.py's)")
    ap.add_argument("--postgres", nargs=2, metavar=("URL_A", "URL_B"), help="two empty PostgreSQL databases")
    ap.add_argument("--dump", type=Path, help="write the ranked lists of the tag-filtered searches here (JSON)")
    ap.add_argument("--compare", type=Path, help="exit 1 unless the ranked lists equal those of this --dump file")
    args = ap.parse_args()
    if args.data is None and not args.synthetic:
        import longmemeval

        args.data = longmemeval.DEFAULT_DATA
    stored, questions = texts(args)
    with tempfile.TemporaryDirectory() as tmp:
        targets = args.postgres or [str(Path(tmp) / "a.db"), str(Path(tmp) / "b.db")]
        with knotwork.open(targets[0]) as a, knotwork.open(targets[1]) as b:
            store = KnotworkStore(b, workspace="bench", index={"fields": ["text"]})
            a.add("warm-up", workspace="warm", force=True)  # load the embedder in both before timing
            store.put(("warm",), "up", {"text": "warm-up"})
            adds, puts = [], []
            for i, text in enumerate(stored):
                first, second = (adds, puts) if i % 2 == 0 else (puts, adds)
                for out in (first, second):
                    if out is adds:
                        adds.append(timed(lambda: a.add(text, workspace="bench", consolidate=False, force=True)))
                    else:
                        puts.append(timed(lambda: store.put(("users", f"u{i % args.users}"), f"k{i}", {"text": text})))
            # Every question embedded before the timing (the embedder's query cache): each call then costs its
            # search alone, and no call pays for a vector the next one reads from the cache.
            for mem in (a, b):
                if mem.embedder is not None:
                    for q in questions:
                        mem.embedder.embed_query(q)
            names = ("knotwork search", "KnotworkStore.search", "B search", "B search, tags")
            walls: dict[str, list[float]] = {n: [] for n in names}
            cpus: dict[str, list[float]] = {n: [] for n in names}
            lists: dict[str, list] = {}
            for j, q in enumerate(questions):
                ns = ("users", f"u{j % args.users}")
                tags = {"lg.ns1": ns[1], "lg.ns0": ns[0], "lg.index": "1"}  # as the store asks (langgraph.py)
                calls = {
                    names[0]: lambda: a.search(q, workspace="bench", limit=args.k),
                    names[1]: lambda: store.search(ns, query=q, limit=args.k),
                    names[2]: lambda: b.search(q, workspace="bench", limit=args.k),
                    names[3]: lambda: b.search(q, workspace="bench", limit=args.k, tags=tags),
                }
                for name in names[j % 4:] + names[: j % 4]:  # each call first in turn
                    found, wall = cpu_timed(calls[name], cpus[name])
                    walls[name].append(wall)
                    if name in (names[1], names[3]):
                        lists[f"{name} #{j}"] = ranked(found)
    rows = [summary("knotwork add", adds), summary("KnotworkStore.put", puts), *(summary(n, walls[n]) for n in names)]
    cpu = {n: round(1000 * sum(cpus[n]) / max(len(cpus[n]), 1), 3) for n in names}
    for r in rows:
        mean = f"   CPU mean {cpu[r['op']]:>8.3f} ms" if r["op"] in cpu else ""
        print(f"{r['op']:<22} n={r['n']:<5} median {r['median_ms']:>9.3f} ms   p95 {r['p95_ms']:>9.3f} ms{mean}")
    by = {r["op"]: r["median_ms"] for r in rows}
    ratios = {"put/add": round(by["KnotworkStore.put"] / by["knotwork add"], 3),
              "store search/search": round(by["KnotworkStore.search"] / by["knotwork search"], 3),
              "tag-filtered/unfiltered (store B)": round(by["B search, tags"] / by["B search"], 3)}
    cpu_ratios = {"store search/search": round(cpu["KnotworkStore.search"] / cpu["knotwork search"], 3),
                  "tag-filtered/unfiltered (store B)": round(cpu["B search, tags"] / cpu["B search"], 3),
                  "store search/B search, tags": round(cpu["KnotworkStore.search"] / cpu["B search, tags"], 3)}
    print(json.dumps({"backend": "postgres" if args.postgres else "sqlite", "n": len(stored), "queries": len(questions),
                      "users": args.users, "k": args.k, "rows": rows, "ratios": ratios, "cpu_mean_ms": cpu,
                      "cpu_ratios": cpu_ratios}))
    if args.dump:
        args.dump.write_text(json.dumps(lists))
    if args.compare:
        sys.exit(compare(lists, json.loads(args.compare.read_text())))


if __name__ == "__main__":
    main()
