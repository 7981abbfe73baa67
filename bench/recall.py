"""Ambient recall latency at 1k, 10k and 100k memories, and the hook round trip through ``knotwork serve``.

    python bench/recall.py [--sizes 1000,10000,100000] [--calls 200] [--no-hook]

Stores are built once with the bundled MiniLM embedder and cached under
``bench/.cache/recall-<n>.db`` (gitignored): each size starts from a copy of
the previous one and adds the rest, so 100k memories cost 100k embeddings in
all. Memories are short generated notes (8-20 words) about 20 projects plus a
global scope, in the categories agents write (facts, decisions, preferences,
directives, lessons), with importances, tags, artifacts and ``valid_at``
spread over 180 days; 1% are retired.

Server-side latency is ``Recall.latency_ms`` (everything recall does, the
query embedding included): half the calls are session starts (no query: the
workspace's focus), half are prompts with a fresh, never-seen query, so the
query-embedding cache never answers them. The hook round trip is timed by a
client posting what ``knotwork hook`` posts to a running ``knotwork serve``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import knotwork
from knotwork import tokens

CACHE = Path(__file__).resolve().parent / ".cache"
CORPUS_VERSION = "recall-corpus-1"
PROJECTS = [f"proj{i:02d}" for i in range(20)]
PEOPLE = "ana ben chen dara eli fatima gus hana ivan jo kai lena mo nia omar pia quinn raj sam tess".split()
COMPONENTS = (
    "billing ledger checkout cart search indexer crawler scheduler gateway auth session cache queue worker "
    "notifier mailer webhook exporter importer reports dashboard metrics tracing logging config secrets "
    "migrations schema orders inventory pricing invoices payouts refunds accounts profiles uploads thumbnails "
    "sync backup restore cli sdk docs onboarding analytics experiments flags permissions audit".split()
)
ACTIONS = (
    "fixed refactored moved split merged documented profiled retried rolled back deployed pinned upgraded "
    "deprecated removed renamed cached sharded indexed throttled batched validated tested".split()
)
DETAIL = (
    "timeout retries backoff latency p95 memory leak race condition deadlock flaky test cold start batch size "
    "connection pool index scan lock contention rate limit payload schema drift null handling utf8 timezone "
    "daylight saving rounding currency pagination cursor idempotency key dedup ordering replay snapshot "
    "checksum compression gzip protobuf json csv parquet s3 postgres sqlite redis kafka grpc http2 tls cert "
    "dns cron lambda container image k8s helm terraform ci pipeline lint mypy pytest coverage".split()
)
CATEGORIES = ["fact"] * 55 + ["decision"] * 12 + ["lesson"] * 12 + ["preference"] * 8 + ["directive"] * 3 + [None] * 10


def corpus(start: int, stop: int, seed: int = 11) -> list[dict]:
    """Memories ``start``..``stop`` of the one deterministic corpus (each index always gives the same memory)."""
    items = []
    for i in range(start, stop):
        rng = random.Random(seed * 1_000_003 + i)
        comp = rng.choice(COMPONENTS)
        detail = " ".join(rng.choice(DETAIL) for _ in range(rng.randint(4, 12)))
        category = rng.choice(CATEGORIES)
        if category in ("directive", "preference"):
            content = f"{rng.choice(['Always', 'Never', 'Prefer to'])} {rng.choice(ACTIONS)} {comp} code with {detail} in mind"
        else:
            content = f"{rng.choice(PEOPLE).title()} {rng.choice(ACTIONS)} the {comp} {rng.choice(COMPONENTS)}: {detail} (note {i})"
        days = rng.uniform(0, 180)
        items.append(
            {
                "content": content,
                "workspace": None if rng.random() < 0.1 else rng.choice(PROJECTS),
                "category": category,
                "importance": round(min(1.0, max(0.0, rng.gauss(0.5, 0.18))), 2),
                "tags": {"component": comp} if rng.random() < 0.5 else {},
                "artifacts": [f"src/{comp}/{rng.choice(COMPONENTS)}.py"] if rng.random() < 0.4 else [],
                "valid_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days * 86400)),
            }
        )
    return items


def build(sizes: list[int], batch: int = 500) -> dict[int, Path]:
    """One cached store per size, each grown from a copy of the previous one."""
    CACHE.mkdir(parents=True, exist_ok=True)
    paths: dict[int, Path] = {}
    previous: tuple[int, Path] | None = None
    for n in sorted(sizes):
        path = CACHE / f"recall-{n}.db"
        if path.exists():
            with knotwork.open(path) as mem:
                if mem.store.get_meta("bench.corpus") == f"{CORPUS_VERSION}:{n}":
                    paths[n] = path
                    previous = (n, path)
                    continue
            path.unlink()
        partial = path.with_suffix(".partial")
        for p in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            p.unlink(missing_ok=True)
        have = 0
        if previous is not None:
            shutil.copyfile(previous[1], partial)
            have = previous[0]
        started = time.perf_counter()
        with knotwork.open(partial) as mem:
            for lo in range(have, n, batch):
                stored = mem.add_many(corpus(lo, min(n, lo + batch)), consolidate=False, force=True)
                retire = [m for m in stored if not m.duplicate and int(m.content_hash[:8], 16) % 100 == 0]
                for m in retire:
                    # Retired now: a fixed past date comes before the newest generated valid_at as time goes by.
                    mem.update(m.id, invalid_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                mem.wait_for_extraction()  # recall's graph section reads what enrichment writes after the add
                done = min(n, lo + batch)
                rate = (done - have) / (time.perf_counter() - started)
                print(f"  built {done:,}/{n:,} ({rate:,.0f} memories/s)", file=sys.stderr, flush=True)
            mem.store.set_meta("bench.corpus", f"{CORPUS_VERSION}:{n}")
            mem.store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        os.replace(partial, path)
        paths[n] = path
        previous = (n, path)
        print(f"built {path} in {time.perf_counter() - started:,.0f} s", file=sys.stderr)
    return paths


def prompt(rng: random.Random) -> str:
    words = [rng.choice(COMPONENTS + DETAIL) for _ in range(rng.randint(5, 10))]
    return f"{rng.choice(['why does', 'how do we', 'fix', 'what did we decide about'])} {' '.join(words)} {rng.randint(0, 10**9)}?"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def measure_in_process(path: Path, calls: int, seed: int = 5) -> dict[str, list[float]]:
    rng = random.Random(seed)
    out: dict[str, list[float]] = {"startup": [], "prompt": [], "cpu": []}
    with knotwork.open(path) as mem:
        tokens.warm()
        for ws in PROJECTS[:3]:  # warm: load the vector index and the model
            mem.recall("startup", workspace=ws)
            mem.recall("prompt", workspace=ws, query=prompt(rng), budget_tokens=600, sections=["facts"])
        for i in range(calls):
            ws = rng.choice(PROJECTS)
            cpu = time.process_time()
            if i % 2:
                r = mem.recall("prompt", workspace=ws, query=prompt(rng), budget_tokens=600, sections=["facts"])
                out["prompt"].append(r.latency_ms)
            else:
                r = mem.recall("startup", workspace=ws, budget_tokens=1500)
                out["startup"].append(r.latency_ms)
            out["cpu"].append((time.process_time() - cpu) * 1000)  # every thread's: the model runs on two
            assert r.tokens <= r.budget_tokens
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def measure_hooks(path: Path, calls: int, processes: int, seed: int = 9) -> dict[str, list[float]]:
    """Round trips to a running ``knotwork serve`` as a hook makes them, and whole ``knotwork hook`` runs."""
    # An installed package is byte-compiled (pip does it on install); with PYTHONDONTWRITEBYTECODE
    # set and a source checkout, every hook process would compile knotwork's modules anew.
    compileall.compile_dir(Path(knotwork.__file__).parent, quiet=1)
    port = free_port()
    exe = str(Path(sys.executable).parent / "knotwork")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    server = subprocess.Popen([exe, "serve", "--db", str(path), "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(seed)
    out: dict[str, list[float]] = {"round_trip_prompt": [], "round_trip_startup": [], "server_side": [], "process": [], "process_cpu": []}
    try:
        url = f"http://127.0.0.1:{port}/tools/ambient_recall"
        deadline = time.monotonic() + 120
        while True:
            try:
                post(url, {"workspace": PROJECTS[0]})
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("knotwork serve did not come up") from None
                time.sleep(0.2)
        for ws in PROJECTS[:3]:
            post(url, {"context": "prompt", "workspace": ws, "query": prompt(rng), "budget_tokens": 600, "sections": ["facts"]})
        for i in range(calls):
            ws = rng.choice(PROJECTS)
            if i % 2:
                body = {"context": "prompt", "workspace": ws, "query": prompt(rng), "budget_tokens": 600, "sections": ["facts"]}
                key = "round_trip_prompt"
            else:
                body, key = {"context": "startup", "workspace": ws, "budget_tokens": 1500}, "round_trip_startup"
            started = time.perf_counter()
            answer = post(url, body)
            out[key].append((time.perf_counter() - started) * 1000)
            out["server_side"].append(answer["latency_ms"])
        hook_env = {**env, "KNOTWORK_DB": str(path)}  # the served store: the hook finds the server by its record
        from knotwork.adapters.hooks import served_url

        if served_url(str(path), "~/.knotwork") != f"http://127.0.0.1:{port}":  # else the hooks would time in-process
            raise RuntimeError(f"knotwork serve left no record of serving {path}: the hooks would not reach it")
        for _ in range(processes):
            stdin = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": f"/work/{rng.choice(PROJECTS)}", "prompt": prompt(rng)})
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run([exe, "hook", "user-prompt"], input=stdin, text=True, capture_output=True, env=hook_env)
            out["process"].append((time.perf_counter() - started) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out["process_cpu"].append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
            assert done.returncode == 0, done.stderr
    finally:
        server.terminate()
        server.wait(30)
    return out


def row(label: str, values: list[float], target: str = "") -> str:
    return f"| {label} | {len(values)} | {statistics.median(values):.1f} | {pct(values, 0.95):.1f} | {target} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="store sizes, comma-separated")
    parser.add_argument("--calls", type=int, default=200, help="recalls per size (half startup, half prompt)")
    parser.add_argument("--processes", type=int, default=20, help="whole `knotwork hook` runs to time")
    parser.add_argument("--no-hook", action="store_true", help="skip the server round trip")
    parser.add_argument("--build-only", action="store_true", help="build the cached stores and stop")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    paths = build(sizes)
    if args.build_only:
        return
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| measure | calls | p50 ms | p95 ms | target p95 |\n|---|---|---|---|---|")
    for n in sizes:
        # A seed per size: the embedder (and its query cache) outlives each store, and a
        # prompt seen at a smaller size would come from the cache at the next one.
        got = measure_in_process(paths[n], args.calls, seed=n)
        target = "≤ 50" if n == 100_000 else ""
        print(row(f"recall, {n:,} memories: session start (workspace focus)", got["startup"], target))
        print(row(f"recall, {n:,} memories: prompt (fresh query, embedding included)", got["prompt"], target))
        print(row(f"recall, {n:,} memories: all", got["startup"] + got["prompt"], target))
        print(row(f"  CPU per recall, {n:,} (process time, all threads)", got["cpu"]), flush=True)
    if not args.no_hook:
        n = max(sizes)
        got = measure_hooks(paths[n], args.calls, args.processes)
        print(row(f"hook round trip via serve, {n:,}: prompt", got["round_trip_prompt"], "≤ 100"))
        print(row(f"hook round trip via serve, {n:,}: session start", got["round_trip_startup"], "≤ 100"))
        print(row(f"  of which server-side recall, {n:,}", got["server_side"]))
        print(row(f"whole `knotwork hook user-prompt` process, {n:,}", got["process"], "≤ 100"))
        print(row("  CPU of that process (user + system)", got["process_cpu"]))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
