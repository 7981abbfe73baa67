"""Load: concurrent clients against a real ``knotwork serve`` on loopback, with and without a hostile one.

    .venv/bin/python bench/load.py [--clients 8] [--seconds 60] [--memories 5000] [--hostile] [--workers 1]
        [--client lean|httpx] [--soak [--soak-every S] [--warm-up S]] [--constant-size] [--keep-db FILE] [--tracemalloc DIR] [--profile FILE]

Builds (once, cached as bench/.cache/load-<memories>.db) a store of generated memories (bench/ingest.py's
generator) with the bundled embedder, copies it, starts ``knotwork serve`` on 127.0.0.1 over the copy,
waits for it, then runs ``--clients`` threads for ``--seconds``: each sends POST /search (70%) or
POST /memories (30%) back to back, with new text each time. ``--hostile`` adds one more client that sends,
back to back, requests of 10,000-20,000 items (artifacts, tag filters, batch items): each must be refused
with a 4xx, fast, while the others go on. Reported: requests per second, p50/p95 per operation, errors
(anything but 2xx, or no answer within 30 s), the server's RSS after warm-up and at the end, the server's
CPU time per request and the cores it used, the load average. Requests go to 127.0.0.1 only; their number
is bounded by the time.

The clients share the machine with the server, so their own CPU per request is reported too
(``client_cpu_ms_per_request``). ``--client lean`` (the default) sends each request over one kept-alive
``http.client`` connection per client; ``--client httpx`` sends the same requests (same paths, bodies and
JSON encoding) through an ``httpx2.Client`` per client, which costs the load generator several times the CPU.
``--soak`` samples the server's RSS (its processes': the store's graph worker is its child) every ``--soak-every``
seconds (60 by default; ``rss_curve``: minute, RSS and its anonymous part in MB, the server process's own RSS and
the number of processes, memories added and deleted so far, the database file and its WAL in MB) for a long run;
``rss_mb_per_1000_added`` is the growth from the first minute on (the warm-up) over the memories added meanwhile.
``rss_flat`` compares every sample after ``--warm-up`` seconds (120 by default) with the first of them: the RSS
after warm-up, at the end, the lowest and highest, the largest change in % and whether every sample stayed within
±10 % (the soak target). The 30% adds grow the store, and RSS follows the in-memory indexes by right, so a growing
soak cannot tell a leak from that growth.
``--constant-size`` keeps the store at ``--memories``: each add that lands is followed, by the same client,
by ``DELETE /memories/{id}`` of the oldest memory left (the preloaded ones first, oldest first, then the
run's own). That is a long-running server at its steady state: a store kept at a size by forgetting its
oldest memories (retention) as new ones arrive, so every index sees as many removals as additions and
must give their room back. RSS that still grows then is held by something that grows with time.
``--tracemalloc DIR`` (diagnostic: it slows the server several times) runs the server under
``tracemalloc`` and writes a snapshot to DIR each minute; ``bench/soak_trace.py DIR`` diffs them.
``--profile FILE`` records the server under the load with ``py-spy`` (not a project dependency: it must be
on PATH or beside this Python), as collapsed stacks for ``bench/profile_stages.py``; ``--profile-gil`` keeps
only the samples of threads that hold the GIL (where the Python part of a request waits on no other).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

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



def wait_for_server(base: str, server: subprocess.Popen, log: Path, seconds: float) -> None:
    """Until ``base``'s /status answers 200; exit with the server's log if it dies or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx2.get(f"{base}/status", timeout=5).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit(f"server did not start: {log.read_text()}")
        time.sleep(0.2)

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads (``/proc/PID/task/PID/children`` names only the main
    thread's: the store's graph worker, started by a thread of the server, would be missed); gone ones skipped."""
    out: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def rss_kb_tree(pid: int, field: str = "VmRSS") -> int:
    """RSS of a process and its children (the worker processes of ``serve --workers``); ``field`` RssAnon: the part
    not backed by a file (the heap: what the process allocated, as against the model and libraries it maps)."""
    total = rss_kb(pid, field)
    for child in children(pid):
        try:
            total += rss_kb_tree(child, field)
        except OSError:  # it ended meanwhile
            continue
    return total


def process_count(pid: int) -> int:
    """The process and its children: the server, its ``--workers`` processes and the store's graph worker."""
    return 1 + sum(process_count(child) for child in children(pid))


def cpu_s_tree(pid: int) -> float:
    """User + system CPU seconds of a process and its children (``serve --workers``, the store's graph worker), so
    far: the live ones' own, and those of children that ended and were waited for (``cutime``, ``cstime``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    total = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    for child in children(pid):
        try:
            total += cpu_s_tree(child)
        except OSError:  # it ended meanwhile
            continue
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


_dumps = json.dumps  # Lean.post's argument is named json, as httpx's is


class Lean:
    """One kept-alive HTTP/1.1 connection (``http.client``): what a client sends, at little CPU of its own."""

    def __init__(self, host: str, port: int) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)

    def post(self, path: str, json: Any) -> Answer:  # noqa: A002 - httpx's keyword, so the senders read the same
        body = _dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()  # as httpx encodes it
        headers = {"content-type": "application/json", "accept": "*/*"}
        try:
            self.connection.request("POST", path, body=body, headers=headers)
            response = self.connection.getresponse()
            content = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.connection.close()  # the next request opens a new connection
            raise SendError(str(exc)) from exc
        return Answer(response.status, content)

    def delete(self, path: str) -> Answer:
        try:
            self.connection.request("DELETE", path, headers={"accept": "*/*"})
            response = self.connection.getresponse()
            content = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.connection.close()
            raise SendError(str(exc)) from exc
        return Answer(response.status, content)

    def close(self) -> None:
        self.connection.close()


class Httpx:
    """The same requests through an ``httpx2.Client`` (the heavier client the first rounds used)."""

    def __init__(self, host: str, port: int) -> None:
        self.client = httpx2.Client(base_url=f"http://{host}:{port}", timeout=TIMEOUT_S)

    def post(self, path: str, json: Any) -> Answer:  # noqa: A002
        try:
            response = self.client.post(path, json=json)
        except httpx2.HTTPError as exc:
            raise SendError(str(exc)) from exc
        return Answer(response.status_code, response.content)

    def delete(self, path: str) -> Answer:
        try:
            response = self.client.delete(path)
        except httpx2.HTTPError as exc:
            raise SendError(str(exc)) from exc
        return Answer(response.status_code, response.content)

    def close(self) -> None:
        self.client.close()


class SendError(Exception):
    """No answer (refused, reset, timed out)."""


class Answer:
    def __init__(self, status_code: int, content: bytes = b"") -> None:
        self.status_code = status_code
        self.content = content


class Retention:
    """The memories of a store kept at a constant size, oldest first: each add pushes one, and its client then
    deletes the oldest (``--constant-size``)."""

    def __init__(self, oldest_first: list[str]) -> None:
        self.lock = threading.Lock()
        self.queue = collections.deque(oldest_first)

    def replace(self, new_id: str) -> str | None:
        """Record ``new_id``; returns the oldest memory, now to delete (None when the store holds only new ones)."""
        with self.lock:
            self.queue.append(new_id)
            return self.queue.popleft() if len(self.queue) > 1 else None


CLIENTS = {"lean": Lean, "httpx": Httpx}


def timed(tally: Tally, op: str, send, ok) -> Answer | None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    response = None
    try:
        response = send()
        status, good = response.status_code, ok(response.status_code)
    except SendError:
        status, good = None, False
    tally.record(op, (time.perf_counter() - start) * 1000, status, good)
    return response if good else None


def client(make, port: int, tally: Tally, stop: float, seed: int, retention: Retention | None = None) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    http = make(HOST, port)
    try:
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
                added = timed(tally, "add", lambda: http.post("/memories", json=body), lambda s: s in (200, 201))
                if retention is not None and added is not None and added.status_code == 201:
                    oldest = retention.replace(json.loads(added.content)["id"])
                    if oldest is not None:
                        timed(tally, "delete", lambda: http.delete(f"/memories/{oldest}"), lambda s: s == 200)
    finally:
        http.close()


def hostile(make, port: int, tally: Tally, stop: float) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(99)
    http = make(HOST, port)
    try:
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
    finally:
        http.close()


def own_cpu_s() -> float:
    """User + system CPU seconds of this process (the load generator) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_point(pid: int, minute: float, tally: Tally, db: Path) -> dict[str, float]:
    with tally.lock:
        added = tally.statuses.get("add", {}).get(201, 0)
        deleted = tally.statuses.get("delete", {}).get(200, 0)
    files = [db, db.with_name(db.name + "-wal")]
    return {"minute": minute, "rss_mb": round(rss_kb_tree(pid) / 1024, 1),
            "anon_mb": round(rss_kb_tree(pid, "RssAnon") / 1024, 1), "server_mb": round(rss_kb(pid, "VmRSS") / 1024, 1),
            "processes": process_count(pid), "added": added, "deleted": deleted,
            "db_mb": round(sum(f.stat().st_size for f in files if f.exists()) / 2**20, 1)}


def sample_rss(pid: int, tally: Tally, stop: float, curve: list[dict[str, float]], db: Path, every: float = 60.0) -> None:
    """Append the server's RSS (:func:`rss_point`) every ``every`` seconds until ``stop``."""
    started = time.monotonic()
    while True:
        left = stop - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(every, left))
        if time.monotonic() < stop:
            point = rss_point(pid, round((time.monotonic() - started) / 60, 1), tally, db)
            curve.append(point)
            print(f"soak: {point['minute']} min, server RSS {point['rss_mb']} MB (anonymous {point['anon_mb']}; the server"
                  f" process alone {point['server_mb']}, {point['processes']} processes),"
                  f" {point['added']} memories added, {point['deleted']} deleted, database {point['db_mb']} MB", file=sys.stderr, flush=True)


def per_thousand_added(curve: list[dict[str, float]]) -> float | None:
    """RSS MB per 1,000 memories added, from the first minute (after the warm-up) to the end."""
    if len(curve) < 3:
        return None
    first, last = curve[1], curve[-1]
    added = (last["added"] - last["deleted"]) - (first["added"] - first["deleted"])
    return round(1000 * (last["rss_mb"] - first["rss_mb"]) / added, 1) if added > 0 else None


def flat_after(curve: list[dict[str, float]], warm_up_min: float, band_pct: float = 10.0) -> dict[str, Any] | None:
    """RSS from the first sample at or after ``warm_up_min`` minutes to the end: that sample, the last, the lowest
    and highest, the largest change from the first in %, and whether every sample stayed within ``band_pct``."""
    after = [p for p in curve if p["minute"] >= warm_up_min]
    if len(after) < 2:
        return None
    base = after[0]["rss_mb"]
    worst = max(abs(p["rss_mb"] - base) for p in after)
    return {"from_minute": after[0]["minute"], "rss_after_warm_up_mb": base, "rss_end_mb": after[-1]["rss_mb"],
            "rss_min_mb": min(p["rss_mb"] for p in after), "rss_max_mb": max(p["rss_mb"] for p in after),
            "largest_change_pct": round(100 * worst / base, 1), "end_change_pct": round(100 * (after[-1]["rss_mb"] - base) / base, 1),
            f"within_{band_pct:g}_pct": worst <= base * band_pct / 100, "samples": len(after)}


def oldest_first(db: Path) -> list[str]:
    """The ids of the memories of the preloaded store, oldest first."""
    with knotwork.open(db) as mem:
        ids: list[str] = []
        page = mem.list(workspace="*", agent_id="*", limit=1000)
        while True:
            ids += [m.id for m in page]
            if not page.next_cursor:
                break
            page = mem.list(workspace="*", agent_id="*", limit=1000, cursor=page.next_cursor)
    return ids[::-1]  # the list is newest first


def py_spy() -> str:
    beside = Path(sys.executable).parent / "py-spy"
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("--profile needs py-spy (pip install py-spy, into this environment only)")
    return found


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
    parser.add_argument("--client", choices=sorted(CLIENTS), default="lean", help="how the clients send (see above)")
    parser.add_argument("--soak", action="store_true", help="sample the server's RSS every --soak-every seconds")
    parser.add_argument("--soak-every", type=float, default=60.0, metavar="SECONDS", help="with --soak: the sampling interval")
    parser.add_argument("--warm-up", type=float, default=120.0, metavar="SECONDS",
                        help="with --soak: RSS is held to ±10%% of its first sample after this many seconds")
    parser.add_argument("--constant-size", action="store_true",
                        help="each add is followed by the delete of the oldest memory: the store keeps its size")
    parser.add_argument("--keep-db", type=Path, metavar="FILE", help="copy the store as the run left it to FILE")
    parser.add_argument("--tracemalloc", type=Path, metavar="DIR",
                        help="diagnostic: run the server under tracemalloc, a snapshot to DIR each minute")
    parser.add_argument("--profile", type=Path, help="record the server with py-spy to FILE (collapsed stacks)")
    parser.add_argument("--profile-gil", action="store_true", help="with --profile: only samples that hold the GIL")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for the server only (KNOTWORK_SERVE_THREADS=2); repeat")
    args = parser.parse_args()
    make = CLIENTS[args.client]
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
    env |= dict(item.split("=", 1) for item in args.server_env)
    log = (work / "serve.log").open("wb")
    retention = Retention(oldest_first(db)) if args.constant_size else None
    command = [KNOTWORK, "serve", "--db", str(db), "--port", str(port), "--workers", str(args.workers)]
    if args.tracemalloc is not None:
        args.tracemalloc.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, str(Path(__file__).resolve().parent / "soak_trace.py"), "--record", str(args.tracemalloc),
                   *command[1:]]
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://{HOST}:{port}"
    try:
        wait_for_server(base, server, work / "serve.log", 120 if args.tracemalloc is None else 900)
        with httpx2.Client(base_url=base, timeout=TIMEOUT_S) as http:  # warm-up: the first search loads the indexes
            for i in range(20):
                http.post("/search", json={"query": f"deploy cache {i}", "workspace": "api"})
        rss_start, load_start, cpu_start = rss_kb_tree(server.pid), loadavg(), cpu_s_tree(server.pid)
        tally = Tally()
        curve: list[dict[str, float]] = [rss_point(server.pid, 0.0, tally, db)]
        stop = time.monotonic() + args.seconds
        threads = [threading.Thread(target=client, args=(make, port, tally, stop, i, retention))
                   for i in range(args.clients)]
        if args.hostile:
            threads.append(threading.Thread(target=hostile, args=(make, port, tally, stop)))
        if args.soak:
            threads.append(threading.Thread(target=sample_rss, args=(server.pid, tally, stop, curve, db, args.soak_every)))
        profiler = None
        if args.profile is not None:
            spy = [py_spy(), "record", "--pid", str(server.pid), "--duration", str(int(args.seconds)), "--rate", "200",
                   "--format", "raw", "--threads", "--nonblocking", "-o", str(args.profile)]
            spy += ["--gil"] if args.profile_gil else []
            profiler = subprocess.Popen(spy, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client_cpu_start = own_cpu_s()
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        client_cpu = own_cpu_s() - client_cpu_start
        rss_end, load_end, cpu_end = rss_kb_tree(server.pid), loadavg(), cpu_s_tree(server.pid)
        curve.append(rss_point(server.pid, round(elapsed / 60, 1), tally, db))
        if profiler is not None:
            profiler.wait(timeout=60)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        # the server's own account of any 5xx answer (it logs the traceback) goes with the report
        log_tail = (work / "serve.log").read_text(errors="replace").splitlines()[-40:]
        if args.keep_db is not None:  # the server is gone: its WAL was checkpointed into the file on close
            shutil.copy(db, args.keep_db)
        shutil.rmtree(work, ignore_errors=True)
    normal = sum(len(v) for k, v in tally.times.items() if not k.startswith("hostile"))
    answered = max(1, sum(map(len, tally.times.values())))
    report = {
        "clients": args.clients,
        "client": args.client,
        **({"server_env": args.server_env} if args.server_env else {}),
        "workers": args.workers,
        "hostile": args.hostile,
        "seconds": round(elapsed, 1),
        "memories": args.memories,
        "requests_per_s": round(normal / elapsed, 1),
        # CPU the server spent per answered request (every request, hostile ones included): what caps
        # requests/s on a machine of n cores near n * 1000 / this.
        "server_cpu_ms_per_request": round(1000 * (cpu_end - cpu_start) / answered, 1),
        "server_cores_used": round((cpu_end - cpu_start) / elapsed, 2),
        # The load generator's own CPU per request: it runs on the same cores as the server.
        "client_cpu_ms_per_request": round(1000 * client_cpu / answered, 1),
        "client_cores_used": round(client_cpu / elapsed, 2),
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
        "constant_size": args.constant_size,
        **({"rss_curve": curve, "rss_mb_per_1000_added": per_thousand_added(curve),
            "rss_flat": flat_after(curve, args.warm_up / 60)} if args.soak else {}),
        "loadavg": [load_start, load_end],
    }
    if any(status >= 500 for op in tally.statuses.values() for status in op):
        report["server_log_tail"] = log_tail
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
