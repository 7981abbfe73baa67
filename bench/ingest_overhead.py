"""Ingest with embeddings: memories/s, tokens/s, and what the store adds on top of the model.

For the same texts it times (a) the embedder alone on every chunk that
``add_many`` would embed (the pure model inference), and (b) ``add_many``
into a fresh SQLite file (validation, dedup lookups, chunking, inference,
the write transaction with FTS5 and vector rows). The overhead is
``(b - a) / a``. Rounds alternate a and b so that a shared machine's load
falls on both alike; the best round of each is reported.

    .venv/bin/python bench/ingest_overhead.py --count 2000 --rounds 3
    .venv/bin/python bench/ingest_overhead.py --longmemeval 2000    # real chat turns, long ones have passages
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import corpus  # noqa: E402

import knotwork  # noqa: E402


def chat_turns(n: int) -> list[dict]:
    import longmemeval

    data = longmemeval.load(longmemeval.DEFAULT_DATA)
    texts = list(dict.fromkeys(t.text for t in data.turns))[:n]
    return [{"content": t} for t in texts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="generated memories (12-40 words)")
    parser.add_argument("--longmemeval", type=int, default=0, metavar="N", help="use N LongMemEval turns instead")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    items = chat_turns(args.longmemeval) if args.longmemeval else corpus(args.count)
    with tempfile.TemporaryDirectory() as tmp:
        probe = knotwork.open(Path(tmp) / "probe.db")
        embedder = probe.embedder
        probe.close()
        if embedder is None:
            raise SystemExit("no embedder configured (KNOTWORK_EMBEDDER=none): nothing to compare")
        chunks = [[c for c in embedder.chunks(i["content"])] for i in items]
        flat = [c for cs in chunks for c in cs]
        tokenizer = getattr(embedder, "_tokenizer_ready", None)
        tokens = sum(len(e.ids) for e in tokenizer().encode_batch(flat)) if tokenizer else None
        embedder.embed(flat[:64])  # load the model before timing
        pure, full = [], []
        for r in range(args.rounds):
            t = time.perf_counter()
            for i in range(0, len(items), args.batch):
                batch = [c for cs in chunks[i : i + args.batch] for c in cs]
                embedder.embed(batch)
            pure.append(time.perf_counter() - t)
            with knotwork.open(Path(tmp) / f"round{r}.db") as mem:
                t = time.perf_counter()
                for i in range(0, len(items), args.batch):
                    mem.add_many(items[i : i + args.batch], consolidate=False, force=True)
                full.append(time.perf_counter() - t)
    a, b = min(pure), min(full)
    print(f"{len(items)} memories, {len(flat)} chunks" + (f", {tokens:,} model tokens" if tokens else "")
          + f"; load average {os.getloadavg()[0]:.1f}")
    print("| measure | value |\n|---|---|")
    print(f"| model inference alone (best of {args.rounds}) | {a:.2f} s |")
    print(f"| add_many with embeddings (best of {args.rounds}) | {b:.2f} s, {len(items) / b:,.0f} memories/s"
          + (f", {tokens / b:,.0f} tokens/s" if tokens else "") + " |")
    print(f"| store and index on top of inference | {100 * (b - a) / a:+.1f}% |")
    print("rounds (inference, add_many): " + ", ".join(f"({x:.2f}, {y:.2f})" for x, y in zip(pure, full)))


if __name__ == "__main__":
    main()
