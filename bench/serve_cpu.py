"""Server CPU per request of ``knotwork serve``, by kind (search, add) and by layer, one request at a time.

    .venv/bin/python bench/serve_cpu.py [--memories 3000] [--requests 400] [--rounds 2] [--profile DIR]

Starts ``knotwork serve --workers 1`` over a copy of bench/load.py's store (bench/.cache/load-<memories>.db) and
sends, over one kept-alive connection (bench/load.py's lean client), bench/load.py's requests one kind at a time:

- ``search``: ``--requests`` searches as the load's clients ask them (its word list, lengths and workspaces);
  the first time each is asked, so the query vector is computed unless an earlier one was the same text
  (``query_cache_hit_rate`` says how often, as the server's query cache would see it);
- ``search_cached``: the same searches again, every query vector now in the server's query cache: the search
  without the model;
- ``add``: ``--requests`` adds as the load's clients send them (``add``: the server's CPU while they are
  answered; ``add_with_enrichment``: also the background worker's CPU until the graph has read them in).

Reported per kind: the server process's CPU milliseconds (user + system, every thread: the event loop, the
request threads, onnxruntime's pool; not the store's graph worker process, which starts with the server and
loads its parser meanwhile) per request (``add_with_enrichment``: the server and its children, the graph worker
included, from the first add until the graph has read the adds in), for each of ``--rounds`` rounds (each
round a new server over a new copy, so the stores match), and the wall p50. One request at a time keeps the
server's threads from contending for the GIL and the cores, so the figure is what a request costs, not what the
machine's load makes it cost; it still moves with the load (a shared core's caches), so compare two trees in
alternated runs (``PYTHONPATH=<other tree>/src``, or the other tree's own copy of this script).
``--server-env KEY=VALUE`` sets a setting for the server only. ``--profile DIR`` records each kind with py-spy (``DIR/<kind>-<round>.txt``, collapsed stacks for
``bench/profile_stages.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS  # noqa: E402
from load import CACHE, HOST, KNOTWORK, Lean, build, cpu_s_tree, free_port, loadavg, py_spy, wait_for_server  # noqa: E402


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of the server process alone (every thread), so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def searches(n: int, seed: int = 1) -> list[dict[str, object]]:
    """``n`` search bodies as bench/load.py's clients make them."""
    rng = random.Random(seed)
    return [{"query": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))), "workspace": rng.choice(["api", "web"]),
             "limit": 10} for _ in range(n)]


def adds(n: int, seed: int = 1) -> list[dict[str, object]]:
    """``n`` add bodies as bench/load.py's clients make them."""
    rng = random.Random(seed)
    return [{"content": f"load {seed}-{i}: {' '.join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))}.",
             "workspace": rng.choice(["api", "web"])} for i in range(n)]


def hit_rate(queries: list[str], size: int = 1024) -> float:
    """The share of ``queries`` an LRU of ``size`` (the server's query cache) already holds when asked."""
    lru: OrderedDict[str, None] = OrderedDict()
    hits = 0
    for q in queries:
        if q in lru:
            hits += 1
            lru.move_to_end(q)
        else:
            lru[q] = None
            if len(lru) > size:
                lru.popitem(last=False)
    return hits / len(queries)


def backlog(base: str) -> int:
    return sum(httpx2.get(f"{base}/status", params={"format": "json"}, timeout=30).json()["graph_backlog"].values())


def one_round(cached: Path, n: int, profile: Path | None, label: str, server_env: dict[str, str]) -> dict[str, dict[str, float]]:
    work = Path(tempfile.mkdtemp(prefix="knotwork-serve-cpu-"))
    db = work / "s.db"
    shutil.copy(cached, db)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")} | {"KNOTWORK_HOME": str(work)} | server_env
    log = (work / "serve.log").open("wb")
    server = subprocess.Popen([KNOTWORK, "serve", "--db", str(db), "--port", str(port), "--workers", "1"],
                              stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://{HOST}:{port}"
    out: dict[str, dict[str, float]] = {}
    try:
        wait_for_server(base, server, work / "serve.log", 120)
        client = Lean(HOST, port)
        for i in range(20):  # warm-up: the readers, the indexes (texts the measured requests never send)
            client.post("/search", json={"query": f"deploy cache {i}", "workspace": "api"})
        asked = searches(n)
        phases = [("search", "/search", asked, 200), ("search_cached", "/search", asked, 200),
                  ("add", "/memories", adds(n), 201)]
        for kind, path, bodies, status in phases:
            spy = None
            if profile is not None:
                profile.mkdir(parents=True, exist_ok=True)
                spy = subprocess.Popen([py_spy(), "record", "--pid", str(server.pid), "--rate", "200", "--format", "raw",
                                        "--threads", "--nonblocking", "-o", str(profile / f"{kind}-{label}.txt")],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1.0)  # py-spy attaches
            walls = []
            cpu_start, tree_start = cpu_s(server.pid), cpu_s_tree(server.pid)
            for body in bodies:
                started = time.perf_counter()
                answer = client.post(path, json=body)
                walls.append((time.perf_counter() - started) * 1000)
                if answer.status_code != status:
                    raise SystemExit(f"{kind}: {answer.status_code} {answer.content[:300]!r}")
            cpu = cpu_s(server.pid) - cpu_start
            out[kind] = {"cpu_ms_per_request": 1000 * cpu / len(bodies), "wall_p50_ms": statistics.median(walls)}
            if kind == "add":
                deadline = time.monotonic() + 300
                while backlog(base) and time.monotonic() < deadline:
                    time.sleep(0.5)
                time.sleep(1.0)  # the worker's last commit
                out["add_with_enrichment"] = {"cpu_ms_per_request": 1000 * (cpu_s_tree(server.pid) - tree_start) / len(bodies)}
            if spy is not None:
                spy.send_signal(2)  # SIGINT: py-spy writes what it recorded
                spy.wait(timeout=60)
        client.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", type=Path, metavar="DIR", help="record each kind with py-spy into DIR")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for the server only (KNOTWORK_EMBED_THREADS=2); repeat")
    args = parser.parse_args()
    server_env = dict(item.split("=", 1) for item in args.server_env)
    CACHE.mkdir(exist_ok=True)
    cached = CACHE / f"load-{args.memories}.db"
    if not cached.exists():
        print(f"building {cached} ...", file=sys.stderr)
        build(cached, args.memories)
    load_start = loadavg()
    rounds = [one_round(cached, args.requests, args.profile, str(i), server_env) for i in range(args.rounds)]
    kinds = rounds[0].keys()
    report = {
        "memories": args.memories,
        **({"server_env": args.server_env} if args.server_env else {}),
        "requests_per_kind": args.requests,
        "query_cache_hit_rate": round(hit_rate([str(b["query"]) for b in searches(args.requests)]), 3),
        "cpu_ms_per_request": {k: [round(r[k]["cpu_ms_per_request"], 2) for r in rounds] for k in kinds},
        "wall_p50_ms": {k: [round(r[k]["wall_p50_ms"], 1) for r in rounds] for k in kinds if "wall_p50_ms" in rounds[0][k]},
        "loadavg": [load_start, loadavg()],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
