"""One add per MCP call over stdio, as bench/peers drives knotwork: memories/s and per-add latency.

Starts ``knotwork mcp --db <fresh file>`` with the official MCP SDK client and calls ``add_memory``
(``force=true``, ``consolidate=false``: the peers protocol, bench/peers/README.md) once per
LongMemEval turn, in the order of the data set, then prints the add rate, p50/p95 of one call as the
client sees it, and the store's files once the server has exited (``--keep DIR`` keeps them; how much of
the graph was read in by then shows in the store's ``enrich_queue``).

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/mcp_add.py --turns 300
    .venv/bin/python bench/mcp_add.py --turns 300 --wrap "py-spy record -o /tmp/add.svg --"

``--wrap`` puts a command (a profiler) in front of the server's; its start-up is not timed.
``--in-process`` makes the same adds through the library in this process instead (no MCP, no JSON-RPC, no
answer rendering) and prints this process's CPU per add and each write stage's share
(``Knotwork.write_stats``): beside an MCP run, what the server spends outside the library.

It also prints the server process's CPU time (user + system, /proc) spent during the adds, per add: a
figure that moves much less with the machine's load than the add rate. ``--drain`` then keeps the server
open until its graph has read every memory in, and prints the CPU per memory of adds and graph together.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def default_data() -> Path:
    name = Path("shared") / "data" / "longmemeval_oracle.json.gz"
    found = [up / name for up in Path(__file__).resolve().parents if (up / name).exists()]
    return found[0] if found else longmemeval.DEFAULT_DATA


def turns(path: Path, n: int) -> list[str]:
    data = longmemeval.load(path)
    return list(dict.fromkeys(t.text for t in data.turns))[:n]


def server_pid(db: Path) -> int | None:
    """The pid of the process serving ``db`` (``knotwork mcp --db <db>``), found through /proc."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and str(db).encode() in argv and any(a.endswith(b"knotwork") for a in argv):
            return int(entry.name)
    return None


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far; NaN when it cannot be read."""
    if pid is None:
        return float("nan")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def queued(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT count(*) FROM enrich_queue").fetchone()[0]
    finally:
        conn.close()


def folder_bytes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file()}


async def run(texts: list[str], folder: Path, wrap: list[str], env: dict[str, str], drain: bool = False,
              cpu: dict[str, float] | None = None) -> list[float]:
    server = [str(Path(sys.executable).parent / "knotwork"), "mcp", "--db", str(folder / "knotwork.db")]
    command = wrap + server
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    took: list[float] = []
    with open(folder / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 120)
            pid = server_pid(folder / "knotwork.db")
            cpu = {} if cpu is None else cpu
            cpu["start"] = cpu_seconds(pid)
            for text in texts:
                start = time.perf_counter()
                result = await session.call_tool(
                    "add_memory", {"content": text, "workspace": "bench", "force": True, "consolidate": False}
                )
                took.append(time.perf_counter() - start)
                if result.is_error:
                    raise SystemExit(f"add_memory failed: {result.content[0].text[:300]}")
            cpu["adds"] = cpu_seconds(pid) - cpu["start"]
            cpu["queued"] = queued(folder / "knotwork.db")
            if drain:
                started = time.perf_counter()
                while queued(folder / "knotwork.db"):
                    await asyncio.sleep(0.2)
                cpu["drain_s"] = time.perf_counter() - started
                cpu["total"] = cpu_seconds(pid) - cpu["start"]
    return took


def in_process(texts: list[str], folder: Path) -> tuple[list[float], dict[str, float], dict]:
    """The same adds through the library: wall seconds per add, this process's CPU, the write stages."""
    import knotwork

    with knotwork.open(folder / "knotwork.db") as mem:
        mem.embedder.embed(["the model is loaded before anything is timed"])
        took: list[float] = []
        start = time.process_time()
        for text in texts:
            t = time.perf_counter()
            mem.add(text, workspace="bench", force=True, consolidate=False)
            took.append(time.perf_counter() - t)
        cpu = {"adds": time.process_time() - start, "queued": float(queued(folder / "knotwork.db"))}
        stats = mem.write_stats()
    return took, cpu, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300, help="distinct LongMemEval turns, in data set order")
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--wrap", default="", help="a command put in front of the server's (e.g. a profiler)")
    parser.add_argument("--keep", type=Path, help="keep the store in this folder (created) instead of a temporary one")
    parser.add_argument("--drain", action="store_true", help="keep the server open until its graph is read in")
    parser.add_argument("--in-process", action="store_true", help="add through the library in this process, no MCP")
    args = parser.parse_args()
    texts = turns(args.data, args.turns)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        cpu: dict[str, float] = {}
        stats: dict = {}
        if args.in_process:
            took, cpu, stats = in_process(texts, folder)
        else:
            took = asyncio.run(run(texts, folder, shlex.split(args.wrap), env, args.drain, cpu))
        sizes = folder_bytes(folder)
    chars = statistics.mean(len(t) for t in texts)
    ordered = sorted(took)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    how = "through the library, in process" if args.in_process else "over stdio MCP"
    print(f"{len(texts)} adds of LongMemEval turns (mean {chars:.0f} chars) {how}")
    print(f"  {len(texts) / sum(took):.1f} memories/s; per add p50 {statistics.median(took) * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms; first {took[0] * 1000:.0f} ms")
    who = "process" if args.in_process else "server"
    print(f"  {who} CPU during the adds {cpu['adds']:.1f} s = {cpu['adds'] / len(texts) * 1000:.1f} ms per add; "
          f"{cpu['queued']:.0f} of {len(texts)} still queued for the graph when the last add answered")
    if stats:
        own = {k: v["seconds"] for k, v in stats.items() if k != "enrich"}
        print("  write stages (wall): " + ", ".join(f"{k} {v / len(texts) * 1000:.1f} ms" for k, v in own.items()))
    if "total" in cpu:
        print(f"  with the graph read in ({cpu['drain_s']:.1f} s after the last add): server CPU {cpu['total']:.1f} s = "
              f"{cpu['total'] / len(texts) * 1000:.1f} ms per memory")
    total = sum(v for k, v in sizes.items() if k != "server.log")
    print(f"  store {total / 1e6:.2f} MB: " + ", ".join(f"{k} {v / 1e6:.2f}" for k, v in sizes.items() if k != "server.log"))
    print(f"  load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
