"""RSS of a ``knotwork mcp`` stdio process: alone, and going through a running server.

    .venv/bin/python bench/mcp_rss.py [--adds 20] [--searches 20]

In a fresh KNOTWORK_HOME, an agent-like client (the official MCP SDK) starts
``knotwork mcp`` over stdio (no ``--db``, as an agent's configuration does)
and reads the process's VmRSS from /proc: at start (after the handshake),
after the first add, after the first search, and after ``--adds`` adds and
``--searches`` searches. First alone (``KNOTWORK_URL=none``), then with a
``knotwork serve`` of the same database on a free loopback port, which the
stdio process then goes through (the server's RSS is reported beside it).
Prints one JSON object; run it under ``flock /tmp/knotwork-bench.lock``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

KNOTWORK = str(Path(sys.executable).parent / "knotwork")
TEXTS = [
    "The billing service moved to PostgreSQL 16 in March because of row-level security.",
    "Deploys go out on Tuesdays and Thursdays after the smoke tests pass on staging.",
    "The mobile team prefers Kotlin coroutines over RxJava for new screens.",
    "Redis keeps session tokens for 30 minutes; refresh tokens live in the database.",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_for(home: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    return {**env, "KNOTWORK_HOME": str(home), **extra}


async def session(home: Path, run: Path, extra: dict[str, str], adds: int, searches: int) -> dict[str, float]:
    script = f'echo $$ > "{run}/pid"; exec "{KNOTWORK}" mcp 2> "{run}/stderr"'
    params = StdioServerParameters(command="sh", args=["-c", script], env=env_for(home, extra))
    out: dict[str, float] = {}
    async with Client(params, read_timeout_seconds=120) as client:
        pid = int((run / "pid").read_text())
        out["start"] = rss_mb(pid)
        for i in range(adds):
            await client.call_tool("add_memory", {"content": f"{TEXTS[i % len(TEXTS)]} (note {i})", "workspace": "w"})
            if i == 0:
                out["after_first_add"] = rss_mb(pid)
                await client.call_tool("search_memory", {"query": "when do deploys go out", "workspace": "w"})
                out["after_first_add_and_search"] = rss_mb(pid)
        for i in range(searches):
            await client.call_tool("search_memory", {"query": f"what about {TEXTS[i % len(TEXTS)].split()[1]}", "workspace": "w"})
        out["after_all"] = rss_mb(pid)
    out["through_server"] = "through the server" in (run / "stderr").read_text()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--adds", type=int, default=20)
    p.add_argument("--searches", type=int, default=20)
    args = p.parse_args()
    report: dict[str, object] = {"loadavg_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for name in ("alone", "via_server"):
            (Path(tmp) / name).mkdir()
        report["alone"] = anyio.run(session, home, Path(tmp) / "alone", {"KNOTWORK_URL": "none"}, args.adds, args.searches)
        port = free_port()
        server = subprocess.Popen([KNOTWORK, "serve", "--port", str(port)], env=env_for(home, {}),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.1)
            report["via_server"] = anyio.run(session, home, Path(tmp) / "via_server", {"KNOTWORK_PORT": str(port)},
                                             args.adds, args.searches)
            report["server_rss_mb"] = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    report["loadavg_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
