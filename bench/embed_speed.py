"""How fast the default embedder is on this machine, and which settings make it so.

Measures the model load, throughput (texts/s and tokens/s, and CPU time
per text) of short (~20 token) and long (~200 token) texts over batch sizes
and onnxruntime thread counts, the token budget per run, the graph
optimisation level, thread spinning, the cost of a 512-token window, and
single-query latency (p50/p95) for cold queries and cache hits. Prints
markdown tables.

    PYTHONPATH=src python bench/embed_speed.py           # about 4 minutes on an idle 2-core machine
    PYTHONPATH=src python bench/embed_speed.py --quick   # a rough pass in well under a minute

Numbers are best-of-N wall-clock runs (N=5), which filters out most of the
noise from other processes on a shared machine; the load average printed
at the start and end says how busy the machine was. Compare settings
within one run, not across runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from knotwork.embed.onnx_minilm import MiniLMEmbedder

# Common English words: text that tokenizes like prose (about 1.1 WordPiece
# tokens per word), unlike random characters.
WORDS = (
    "the of and to in is was for on that with as by at from his her an were are which this be have had one "
    "their not but all new more been also who other has after two its first into time only over when year "
    "people would some could them than most made about between during world city state music team school "
    "family house water because before under while where these those through since memory agent project "
    "meeting report customer prefers coffee morning deadline release database server language garden"
).split()


def make_texts(count: int, tokens: int, seed: int) -> list[str]:
    """``count`` sentences of about ``tokens`` WordPiece tokens each."""
    rng = random.Random(seed)
    words = max(1, round((tokens - 2) / 1.05))
    return [" ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "." for _ in range(count)]


def mean_tokens(embedder: MiniLMEmbedder, texts: Sequence[str]) -> float:
    ids = embedder._token_ids(texts)
    return sum(len(i) for i in ids) / len(ids)


def best_of(runs: int, fn: Callable[[], object]) -> float:
    """Fastest wall-clock seconds of ``runs`` calls."""
    return min(measure(fn)[0] for _ in range(runs))


def measure(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (all threads of this process) of one call.

    CPU time barely moves when other processes compete for the cores, so it
    shows what a setting costs even on a busy machine; wall time shows what
    a caller waits.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def fresh_process_load() -> tuple[float, float, float]:
    """Seconds, in a bare interpreter, to import knotwork.embed, to load the
    model (onnxruntime import, tokenizer, session) and to embed a first text."""
    code = (
        "import time; t0=time.perf_counter()\n"
        "from knotwork.embed import make_embedder; e=make_embedder('minilm'); t1=time.perf_counter()\n"
        "e.load(); t2=time.perf_counter(); e.embed(['warm up']); t3=time.perf_counter()\n"
        "print(t1-t0, t2-t1, t3-t2)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    first, second, third = (float(x) for x in out.stdout.split())
    return first, second, third


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_load(runs: int) -> str:
    rows = []
    fresh = [fresh_process_load() for _ in range(runs)]
    labels = ("fresh process: import knotwork.embed", "fresh process: load() (onnxruntime import, tokenizer, session)", "fresh process: first embedding")
    for index, label in enumerate(labels):
        rows.append([label, f"{statistics.median(f[index] for f in fresh) * 1000:.0f}"])
    for level in ("ORT_ENABLE_BASIC", "ORT_ENABLE_ALL"):
        times = []
        for _ in range(runs):
            embedder = _variant(level=level)()
            embedder.load()
            times.append(embedder.load_seconds or 0.0)
        rows.append([f"load() in a warm process, {level}", f"{statistics.median(times) * 1000:.0f}"])
    return table(["what", "median ms"], rows)


def _variant(level: str = "ORT_ENABLE_BASIC", spinning: bool = False) -> type[MiniLMEmbedder]:
    return type("Variant", (MiniLMEmbedder,), {"_graph_optimization": level, "_allow_spinning": spinning})


def bench_throughput(short: list[str], long: list[str], batches: Sequence[int], threads: Sequence[int], runs: int) -> str:
    rows = []
    for n_threads in threads:
        for batch in batches:
            embedder = MiniLMEmbedder(threads=n_threads, batch_size=batch, max_batch_tokens=batch * 256)
            embedder.load()
            embedder.embed(short[:8])
            cells: list[object] = [n_threads, batch]
            for texts in (short, long):
                timings = [measure(lambda t=texts: embedder.embed(t)) for _ in range(runs)]
                seconds = min(w for w, _ in timings)
                cpu = min(c for _, c in timings)
                tokens = mean_tokens(embedder, texts) * len(texts)
                cells += [f"{len(texts) / seconds:.0f}", f"{tokens / seconds:.0f}", f"{cpu / len(texts) * 1000:.1f}"]
            rows.append(cells)
            print(f"  threads={n_threads} batch={batch} done", file=sys.stderr)
    headers = ["threads", "batch", "short texts/s", "short tok/s", "short CPU ms/text", "long texts/s", "long tok/s", "long CPU ms/text"]
    return table(headers, rows)


def bench_batch_tokens(sets: dict[str, list[str]], budgets: Sequence[int], runs: int) -> str:
    """CPU per text against the token budget of a run (batch_size 64, so the
    budget is what limits a batch)."""
    rows = []
    for budget in budgets:
        embedder = MiniLMEmbedder(batch_size=64, max_batch_tokens=budget)
        embedder.embed(["warm up"])
        cells: list[object] = [budget]
        for texts in sets.values():
            timings = [measure(lambda t=texts: embedder.embed(t)) for _ in range(runs)]
            cells += [f"{min(c for _, c in timings) / len(texts) * 1000:.1f}", f"{len(texts) / min(w for w, _ in timings):.0f}"]
        rows.append(cells)
    headers = ["max_batch_tokens"]
    for name in sets:
        headers += [f"{name} CPU ms/text", f"{name} texts/s"]
    return table(headers, rows)


def bench_options(short: list[str], long: list[str], runs: int) -> str:
    """Graph optimisation levels and spinning, measured interleaved (each
    round runs every variant once) so that a burst of load elsewhere hits
    all of them alike."""
    settings = (("ORT_ENABLE_BASIC", False), ("ORT_ENABLE_BASIC", True), ("ORT_ENABLE_EXTENDED", False), ("ORT_ENABLE_ALL", False))
    variants = [_variant(level, spinning)() for level, spinning in settings]
    for embedder in variants:
        embedder.embed(short[:8])
    timings: dict[int, dict[str, list[tuple[float, float]]]] = {i: {"short": [], "long": [], "one": []} for i in range(len(variants))}
    for _ in range(runs):
        for i, embedder in enumerate(variants):
            timings[i]["short"].append(measure(lambda e=embedder: e.embed(short)))
            timings[i]["long"].append(measure(lambda e=embedder: e.embed(long)))
            timings[i]["one"] += [measure(lambda e=embedder, t=text: e.embed([t])) for text in short[:20]]
    rows = []
    for i, (level, spinning) in enumerate(settings):
        t = timings[i]
        rows.append([
            level,
            "on" if spinning else "off",
            f"{len(short) / min(w for w, _ in t['short']):.0f}",
            f"{min(c for _, c in t['short']) / len(short) * 1000:.2f}",
            f"{len(long) / min(w for w, _ in t['long']):.1f}",
            f"{min(c for _, c in t['long']) / len(long) * 1000:.1f}",
            f"{percentile([w for w, _ in t['one']], 0.5) * 1000:.1f}",
        ])
    headers = ["graph optimisation", "spinning", "short texts/s", "short CPU ms/text", "long texts/s", "long CPU ms/text", "1-text p50 ms"]
    return table(headers, rows)


def bench_window(very_long: list[str], runs: int) -> str:
    rows = []
    for window in (256, 512):
        embedder = MiniLMEmbedder(max_tokens=window)
        embedder.embed(very_long[:2])
        seconds = best_of(runs, lambda: embedder.embed(very_long))
        tokens = mean_tokens(embedder, very_long) * len(very_long)
        rows.append([window, f"{tokens / len(very_long):.0f}", f"{len(very_long) / seconds:.1f}", f"{tokens / seconds:.0f}"])
    return table(["max_tokens", "tokens/text seen", "texts/s", "tokens/s"], rows)


def _timed(fn: Callable[..., object], *args: object) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def bench_queries(count: int) -> str:
    embedder = MiniLMEmbedder()
    embedder.load()
    queries = make_texts(count, 14, seed=7)
    embedder.embed_query("warm up")
    cold = [_timed(embedder.embed_query, q) for q in queries]
    cached = [_timed(embedder.embed_query, q) for q in queries]
    rows = [
        ["cold (model loaded, query not cached)", f"{percentile(cold, 0.5) * 1000:.2f}", f"{percentile(cold, 0.95) * 1000:.2f}"],
        ["cached", f"{percentile(cached, 0.5) * 1e6:.1f} µs", f"{percentile(cached, 0.95) * 1e6:.1f} µs"],
    ]
    return table(["query (~14 tokens)", "p50 ms", "p95 ms"], rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer texts, runs and settings")
    args = parser.parse_args(argv)
    quick = args.quick
    runs = 1 if quick else 5
    short = make_texts(64 if quick else 128, 20, seed=1)
    long = make_texts(16 if quick else 24, 200, seed=2)
    very_long = make_texts(8 if quick else 12, 500, seed=3)
    probe = MiniLMEmbedder()
    print(f"# knotwork embedder speed ({probe.model_id}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]})\n")
    print(f"load average at start: {_load_average()}\n")
    print(f"short texts: {len(short)} x {mean_tokens(probe, short):.0f} tokens; "
          f"long texts: {len(long)} x {mean_tokens(probe, long):.0f} tokens\n")
    print("## Load\n")
    print(bench_load(1 if quick else 3), "\n")
    print("## Throughput by threads and batch size (max_batch_tokens = batch x 256, so only the count limits a run)\n")
    batches = (1, 16, 64) if quick else (1, 4, 8, 16, 32, 64)
    print(bench_throughput(short, long, batches, (1, 2), runs), "\n")
    print("## Token budget per run (default threads)\n")
    sets = {"short": short, "~80-token": make_texts(16 if quick else 48, 80, seed=4), "long": long}
    print(bench_batch_tokens(sets, (512, 4096) if quick else (256, 512, 1024, 2048, 4096), runs), "\n")
    print("## Graph optimisation and thread spinning (default threads and batch)\n")
    print(bench_options(short, long, runs), "\n")
    print("## Window: 256 (trained) vs 512 on ~500-token texts\n")
    print(bench_window(very_long, runs), "\n")
    print("## Single-query latency\n")
    print(bench_queries(100 if quick else 300), "\n")
    print(f"load average at end: {_load_average()}")


def _load_average() -> str:
    """Other processes' load, printed because it skews every figure here."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
