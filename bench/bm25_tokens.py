"""Does BM25 answer only memories that hold a word of the query? Random tokens over a store of thousands.

    python bench/bm25_tokens.py [--memories 3000] [--queries 300] [--seed 7]

Each memory is six random tokens of five letters and digits (as ids, hashes and codes are); half the queries
are a token some memory holds, half a fresh one. Counts the rows ``search(token, recipe="memory_bm25")``
returns that do not hold the token (the target is 0), and the held tokens that found nothing.
"""

from __future__ import annotations

import argparse
import random
import string
import tempfile
from pathlib import Path

import knotwork
from knotwork import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    alphabet = string.ascii_lowercase + string.digits
    token = lambda: "".join(rng.choice(alphabet) for _ in range(5))  # noqa: E731
    texts = [" ".join(token() for _ in range(6)) for _ in range(args.memories)]
    rows = without = held_missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        with knotwork.open(Path(tmp) / "bm25.db", settings=Settings(embedder="none", kg_extract="none")) as mem:
            mem.add_many([{"content": t} for t in texts])
            for i in range(args.queries):
                held = i % 2 == 1
                query = rng.choice(texts).split()[rng.randrange(6)] if held else token()
                hits = mem.search(query, recipe="memory_bm25", limit=10)
                rows += len(hits)
                without += sum(query not in h.memory.content.split() for h in hits)
                held_missed += held and not hits
    print(f"{args.memories} memories, {args.queries} queries: {rows} rows returned, {without} without the query's token;"
          f" {held_missed} held tokens found nothing")


if __name__ == "__main__":
    main()
