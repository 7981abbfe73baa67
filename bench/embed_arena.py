"""onnxruntime's memory options under a server's mix: the embedder's RSS over time and CPU per text.

    .venv/bin/python bench/embed_arena.py [--rounds 400] [--repeat 2]

Settings: ``default`` (onnxruntime's CPU arena and memory patterns on), ``no-arena``
(``enable_cpu_mem_arena`` off) and ``no-pattern`` (``enable_mem_pattern`` off: no allocation plan kept per
input shape). Each runs in a fresh process (so RSS is its own) that embeds what a server does: per round,
one query of 2-6 words and one memory of 12-40 words (one text per run, as single adds and searches do),
a batch of 1-32 entity names of 1-4 words (the enrichment worker's, a new shape nearly every time), and
every 20th round a batch of 32 memories of 60-200 words (a bulk add, padded to its longest). Reported per
setting: RSS after the first 20 rounds (the warm-up), at the middle and at the end, the peak, and the
process CPU per text after the warm-up. The settings alternate, ``--repeat`` times each, so a change in
the machine's load hits all alike.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed_speed import WORDS  # noqa: E402  (common English words: text that tokenizes like prose)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


SETTINGS = {
    "default": {},
    "no-arena": {"_memory_arena": False},
    "no-pattern": {"_memory_pattern": False},
}


def one(setting: str, rounds: int) -> dict:
    from knotwork.embed.onnx_minilm import MiniLMEmbedder

    embedder = type("Variant", (MiniLMEmbedder,), SETTINGS[setting])(threads=1, query_cache_size=0)
    embedder.load()
    rng = random.Random(5)
    texts = 0
    warm_rss = warm_cpu = 0.0
    warm_texts = 0
    middle = 0.0
    for r in range(rounds):
        if r == 20:
            warm_rss, warm_cpu, warm_texts = rss_mb(), cpu_s(), texts
        if r == rounds // 2:
            middle = rss_mb()
        embedder.embed_query(" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) + f" {r}")
        embedder.embed([" ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40))) + f" {r}."])
        names = [" ".join(rng.choice(WORDS).title() for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 32))]
        embedder.embed(names)
        texts += 2 + len(names)
        if r % 20 == 10:
            embedder.embed([" ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 200))) + f" {r}." for _ in range(32)])
            texts += 32
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "setting": setting,
        "rss_mb_after_warmup": round(warm_rss, 1),
        "rss_mb_middle": round(middle, 1),
        "rss_mb_end": round(rss_mb(), 1),
        "rss_mb_peak": round(peak, 1),
        "cpu_ms_per_text": round(1000 * (cpu_s() - warm_cpu) / (texts - warm_texts), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--one", choices=sorted(SETTINGS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.rounds)))
        return
    print(f"load average {os.getloadavg()[0]:.2f} at {time.strftime('%H:%M:%S')}", file=sys.stderr)
    results = []
    for _ in range(args.repeat):
        for setting in SETTINGS:
            out = subprocess.run([sys.executable, __file__, "--one", setting, "--rounds", str(args.rounds)],
                                 check=True, capture_output=True, text=True).stdout
            results.append(json.loads(out))
            print(json.dumps(results[-1]), file=sys.stderr)
    print(f"load average {os.getloadavg()[0]:.2f} at {time.strftime('%H:%M:%S')}", file=sys.stderr)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
