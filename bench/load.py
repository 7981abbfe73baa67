"""Load: concurrent clients against a real ``knotwork serve`` on loopback, with and without a hostile one.

    .venv/bin/python bench/load.py [--clients 8] [--seconds 60] [--memories 5000] [--hostile] [--workers 1]

Builds (once, cached as bench/.cache/load-<memories>.db) a store of generated memories (bench/ingest.py's
generator) with the bundled embedder, copies it, starts ``knotwork serve`` on 127.0.0.1 over the copy,
waits for it, then runs ``--clients`` threads for ``--seconds``: each sends POST /search (70%) or
POST /memories (30%) back to back, with new text each time. ``--hostile`` adds one more client that sends,
back to back, requests of 10,000-20,000 items (artifacts, tag filters, batch items): each must be refused
with a 4xx, fast, while the others go on. Reported: requests per second, p50/p95 per operation, errors
(anything but 2xx, or no answer within 30 s), the server's RSS after warm-up and at the end, the server's
CPU time per request and the cores it used, the load average. Requests go to 127.0.0.1 only; their number
is bounded by the time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS, corpus  # noqa: E402

import knotwork  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
KNOTWORK = str(Path(sys.executable).parent / "knotwork")
HOST = "127.0.0.1"
TIMEOUT_S = 30.0


def build(path: Path, size: int, batch: int = 1000) -> None:
    tmp = path.with_suffix(".tmp.db")
    tmp.unlink(missing_ok=True)
    with knotwork.open(tmp) as mem:
        items = corpus(size)
        for i in range(0, size, batch):
            mem.add_many(items[i : i + batch])
        mem.wait_for_extraction()  # the preload's graph is read in before the server is measured
    os.replace(tmp, path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def rss_kb_tree(pid: int) -> int:
    """RSS of a process and its children (the worker processes of ``serve --workers``)."""
    total = rss_kb(pid)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        total += rss_kb_tree(int(child))
    return total


def cpu_s_tree(pid: int) -> float:
    """User + system CPU seconds of a process and its children (``serve --workers``), so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        total += cpu_s_tree(int(child))
    return total


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 1)[0]


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.statuses: dict[str, dict[int, int]] = {}

    def record(self, op: str, ms: float, status: int | None, ok: bool) -> None:
        with self.lock:
            self.times.setdefault(op, []).append(ms)
            self.statuses.setdefault(op, {}).setdefault(status or 0, 0)
            self.statuses[op][status or 0] += 1
            if not ok:
                self.errors[op] = self.errors.get(op, 0) + 1


def timed(tally: Tally, op: str, send, ok) -> None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    try:
        response = send()
        status, good = response.status_code, ok(response.status_code)
    except httpx2.HTTPError:
        status, good = None, False
    tally.record(op, (time.perf_counter() - start) * 1000, status, good)


def client(base: str, tally: Tally, stop: float, seed: int) -> None:
    rng = random.Random(seed)
    with httpx2.Client(base_url=base, timeout=TIMEOUT_S) as http:
        n = 0
        while time.monotonic() < stop:
            n += 1
            if rng.random() < 0.7:
                query = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))
                body = {"query": query, "workspace": rng.choice(["api", "web"]), "limit": 10}
                timed(tally, "search", lambda: http.post("/search", json=body), lambda s: s == 200)
            else:
                words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))
                body = {"content": f"load {seed}-{n}: {words}.", "workspace": rng.choice(["api", "web"])}
                timed(tally, "add", lambda: http.post("/memories", json=body), lambda s: s in (200, 201))


def hostile(base: str, tally: Tally, stop: float) -> None:
    rng = random.Random(99)
    with httpx2.Client(base_url=base, timeout=TIMEOUT_S) as http:
        while time.monotonic() < stop:
            size = rng.randint(10_000, 20_000)
            kind = rng.choice(["artifacts", "batch", "tags"])
            if kind == "artifacts":
                body = {"content": "x", "artifacts": [f"src/f{i}.py" for i in range(size)]}
                send = lambda: http.post("/memories", json=body)  # noqa: E731
            elif kind == "batch":
                body = {"items": [{"content": f"bulk {i}"} for i in range(size)]}
                send = lambda: http.post("/memories/batch", json=body)  # noqa: E731
            else:
                body = {"query": "deploy", "tags": [f"k{i}" for i in range(size)]}
                send = lambda: http.post("/search", json=body)  # noqa: E731
            timed(tally, f"hostile-{kind}", send, lambda s: 400 <= s < 500)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--hostile", action="store_true", help="add one client sending 10-20k-item requests")
    parser.add_argument("--workers", type=int, default=1, help="server processes (knotwork serve --workers)")
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    cached = CACHE / f"load-{args.memories}.db"
    if not cached.exists():
        print(f"building {cached} ...", file=sys.stderr)
        build(cached, args.memories)
    work = Path(tempfile.mkdtemp(prefix="knotwork-load-"))
    db = work / "load.db"
    shutil.copy(cached, db)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")} | {"KNOTWORK_HOME": str(work)}
    log = (work / "serve.log").open("wb")
    command = [KNOTWORK, "serve", "--db", str(db), "--port", str(port), "--workers", str(args.workers)]
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx2.get(f"{base}/status", timeout=5).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"server did not start: {(work / 'serve.log').read_text()}")
            time.sleep(0.2)
        with httpx2.Client(base_url=base, timeout=TIMEOUT_S) as http:  # warm-up: the first search loads the indexes
            for i in range(20):
                http.post("/search", json={"query": f"deploy cache {i}", "workspace": "api"})
        rss_start, load_start, cpu_start = rss_kb_tree(server.pid), loadavg(), cpu_s_tree(server.pid)
        tally = Tally()
        stop = time.monotonic() + args.seconds
        threads = [threading.Thread(target=client, args=(base, tally, stop, i)) for i in range(args.clients)]
        if args.hostile:
            threads.append(threading.Thread(target=hostile, args=(base, tally, stop)))
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        rss_end, load_end, cpu_end = rss_kb_tree(server.pid), loadavg(), cpu_s_tree(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    normal = sum(len(v) for k, v in tally.times.items() if not k.startswith("hostile"))
    report = {
        "clients": args.clients,
        "workers": args.workers,
        "hostile": args.hostile,
        "seconds": round(elapsed, 1),
        "memories": args.memories,
        "requests_per_s": round(normal / elapsed, 1),
        # CPU the server spent per answered request (every request, hostile ones included): what caps
        # requests/s on a machine of n cores near n * 1000 / this.
        "server_cpu_ms_per_request": round(1000 * (cpu_end - cpu_start) / max(1, sum(map(len, tally.times.values()))), 1),
        "server_cores_used": round((cpu_end - cpu_start) / elapsed, 2),
        "ops": {
            op: {
                "n": len(ms),
                "p50_ms": round(statistics.median(ms), 1),
                "p95_ms": round(pct(ms, 0.95), 1),
                "errors": tally.errors.get(op, 0),
                "statuses": tally.statuses[op],
            }
            for op, ms in sorted(tally.times.items())
        },
        "rss_mb": [round(rss_start / 1024, 1), round(rss_end / 1024, 1)],
        "rss_growth_pct": round(100 * (rss_end - rss_start) / rss_start, 1),
        "loadavg": [load_start, load_end],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
