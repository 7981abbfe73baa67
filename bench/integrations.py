"""What the LangGraph adapter costs over knotwork itself: ``KnotworkStore.put`` beside ``Knotwork.add`` and
``KnotworkStore.search(query=...)`` beside ``Knotwork.search`` of the same query, in one run.

Two fresh stores on the same backend get the same texts (LongMemEval turns, bench/longmemeval.py, or made-up
sentences with ``--synthetic``): store A through ``mem.add`` (``consolidate=False, force=True``: what a put
does), store B through ``store.put(("users", "u<i % users>"), "k<i>", {"text": ...})``. The two calls alternate
text by text, so the machine's load falls on both alike. Then each question is asked of A with
``mem.search(q, workspace=..., limit=k)`` and of B with ``store.search(("users", "u<j>"), query=q, limit=k)``,
again alternating. It prints the median and p95 of each call and the ratios of the medians (target: put/add
and store search/search at most 1.2).

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

        if longmemeval.DEFAULT_DATA.exists():
            data = longmemeval.load(longmemeval.DEFAULT_DATA)
            turns = list(dict.fromkeys(t.content for t in data.turns if t.content.strip()))[: args.n]
            return turns, [q.text for q in data.questions][: args.queries]
        print(f"no {longmemeval.DEFAULT_DATA}: made-up sentences", file=sys.stderr)
    rng = random.Random(7)
    made = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))) for _ in range(args.n)]
    return made, [" ".join(rng.choice(WORDS) for _ in range(4)) + "?" for _ in range(args.queries)]


def timed(call) -> float:  # noqa: ANN001
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


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
    ap.add_argument("--postgres", nargs=2, metavar=("URL_A", "URL_B"), help="two empty PostgreSQL databases")
    args = ap.parse_args()
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
            searches, store_searches = [], []
            for j, q in enumerate(questions):
                pair = [lambda: a.search(q, workspace="bench", limit=args.k),
                        lambda: store.search(("users", f"u{j % args.users}"), query=q, limit=args.k)]
                order = (0, 1) if j % 2 == 0 else (1, 0)
                times = {o: timed(pair[o]) for o in order}
                searches.append(times[0])
                store_searches.append(times[1])
    rows = [summary("knotwork add", adds), summary("KnotworkStore.put", puts),
            summary("knotwork search", searches), summary("KnotworkStore.search", store_searches)]
    for r in rows:
        print(f"{r['op']:<22} n={r['n']:<5} median {r['median_ms']:>9.3f} ms   p95 {r['p95_ms']:>9.3f} ms")
    ratios = {"put/add": round(rows[1]["median_ms"] / rows[0]["median_ms"], 3),
              "store search/search": round(rows[3]["median_ms"] / rows[2]["median_ms"], 3)}
    print(json.dumps({"backend": "postgres" if args.postgres else "sqlite", "n": len(stored), "queries": len(questions),
                      "users": args.users, "k": args.k, "rows": rows, "ratios": ratios}))


if __name__ == "__main__":
    main()
