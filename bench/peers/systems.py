"""Each system behind one contract, driven through its own public interface.

A system ingests a :class:`corpus.Corpus` one memory per call (what an agent
does: one ``add``/``store`` call per thing worth keeping) into stores under
a folder of its own, then answers every question with one search call asking
for 10 hits. :func:`drive` returns the same :class:`Outcome` for every
system; bench/peers/run.py scores it.

MCP systems are started as stdio servers and called with the official MCP
SDK client (``mcp.client.stdio``), one server per part (a part is one store:
the whole LongMemEval pool, or one codemem workspace). Mem0 has no MCP
server in its package; it is driven through its Python API in its own
virtualenv by bench/peers/mem0_driver.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = REPO / "bench" / ".cache" / "peers"
LIMIT = 10


@dataclass(slots=True)
class Outcome:
    """What one system did with one corpus; ``error`` says why it stopped, if it did."""

    system: str
    version: str = ""
    ingest_s: float = 0.0
    ingested: int = 0
    ranked: dict[str, list[str]] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)  # the text the search call handed back
    latency_ms: dict[str, float] = field(default_factory=dict)
    tools_list: str | None = None  # the tools/list result as JSON, for MCP systems
    store_bytes: int = 0
    graph: dict[str, Any] = field(default_factory=dict)  # knotwork: its store as the server left it, and drained
    # During the adds only: CPU seconds of the system's own processes (``system_cpu_s``) and what the shared
    # embedding server did for it (``embed``: texts, tokens, tokens_run, model_cpu_s ..., see embed_server.py)
    ingest_cpu: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def _cpu_of_descendants() -> float:
    """User + system CPU seconds so far of every live process below this one, the embedding server's left out
    (its work is counted by the server itself, per system: ``embed_stats``). 0.0 where /proc is missing."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    skip: set[int] = set()
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            if b"embed_server.py" in (entry / "cmdline").read_bytes():
                skip.add(int(entry.name))
        except OSError:
            continue
        parent[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    me = os.getpid()
    total = 0.0
    for pid, seconds in cpu.items():
        up = pid
        while up in parent and up != me and up not in skip:
            up = parent[up]
        if up == me and pid != me:
            total += seconds
    return total


def embed_stats(embed_url: str) -> dict[str, Any]:
    """The embedding server's counters so far (bench/peers/embed_server.py ``/stats``); {} if it has none."""
    import httpx

    try:
        return httpx.get(embed_url.rsplit("/v1/", 1)[0] + "/stats", timeout=10).json()
    except (httpx.HTTPError, ValueError):
        return {}


def add_usage(into: dict[str, Any], cpu_before: float, embed_before: dict[str, Any], embed_url: str) -> None:
    """Add what the system's processes and the embedding server spent since ``cpu_before``/``embed_before``."""
    into["system_cpu_s"] = into.get("system_cpu_s", 0.0) + _cpu_of_descendants() - cpu_before
    after = embed_stats(embed_url)
    spent = into.setdefault("embed", {})
    for k, v in after.items():
        spent[k] = spent.get(k, 0) + v - embed_before.get(k, 0)


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


class McpSystem:
    """One MCP server per part; subclasses say how to start it, store a memory and read hits back."""

    name = ""
    search_tool = ""

    def __init__(self, embed_url: str) -> None:
        self.embed_url = embed_url
        self.keys_by_text: dict[str, list[str]] = defaultdict(list)

    def installed(self) -> str | None:
        """None when ready, else why not."""
        return None

    def version(self) -> str:
        return ""

    def server(self, store: Path) -> StdioServerParameters:
        raise NotImplementedError

    async def add(self, session: ClientSession, key: str, text: str, part: str) -> None:
        raise NotImplementedError

    def search_args(self, query: str, part: str) -> dict[str, Any]:
        raise NotImplementedError

    def keys(self, answer: str) -> list[str]:
        raise NotImplementedError

    def by_text(self, texts: list[str]) -> list[str]:
        """Hits given as content, mapped back to every key holding that text (identical turns exist)."""
        out: list[str] = []
        for t in texts:
            out.extend(self.keys_by_text.get(t.strip(), []))
        return out

    async def call(self, session: ClientSession, tool: str, args: dict[str, Any]) -> str:
        result = await session.call_tool(tool, args)
        text = text_of(result)
        if result.is_error:
            raise RuntimeError(f"{tool}: {text[:300]}")
        return text


# A peer's console script is started by its virtualenv's Python, not through its ``#!`` line: that line names the
# folder the virtualenv was created in, and a copied or linked cache (another checkout's) would point elsewhere.
def _venv_installed(name: str) -> str | None:
    folder = CACHE / name
    if (folder / ".installed").exists():
        return None
    err = folder / "install.err"
    return f"not installed: {err.read_text().strip().splitlines()[-1] if err.exists() else 'run bench/peers/install.sh'}"


def _freeze_version(name: str, package: str) -> str:
    freeze = CACHE / name / "freeze.txt"
    if freeze.exists():
        for line in freeze.read_text().splitlines():
            if line.lower().startswith(package.lower() + "=="):
                return line.split("==", 1)[1]
    return ""


# How knotwork's consolidation is set for the comparison, and why. Off by default: every peer here is
# driven to store each turn as given (Mem0 with ``infer=False``, mcp-memory-service with ``conversation_id``
# so its semantic deduplication keeps near-copies, basic-memory and server-memory have none), and knotwork is
# called with ``force`` for the same reason; with consolidation on, knotwork alone would fold similar turns
# together, and the rows would no longer store the same thing. ``run.py --knotwork-consolidate on`` runs it
# as it ships (folded turns then count for the memory they were folded into).
CONSOLIDATE = False
CONSOLIDATE_WHY = (
    "off: every peer stores each turn as given (Mem0 infer=False, mcp-memory-service conversation_id, no dedup in "
    "basic-memory or server-memory), so knotwork does too (force, no consolidation); --knotwork-consolidate on runs it as shipped"
)


class KnotworkMcp(McpSystem):
    """knotwork's own MCP server (``knotwork mcp --db``), the way an agent launches it."""

    name = "knotwork"
    search_tool = "search_memory"
    # Every add answer that leaves a memory names the id to keep this one way (render/compact.py ``added``):
    # the new memory (ADD, SUPERSEDE), the one that took the text (UPDATE) or the one already holding it (NOOP).
    ID = re.compile(r"\(id ([0-9A-Z]{26})\)")

    def __init__(self, embed_url: str, consolidate: bool = CONSOLIDATE, env: dict[str, str] | None = None) -> None:
        super().__init__(embed_url)
        self.consolidate = consolidate
        self.env = env or {}  # KNOTWORK_* settings for the server (a measurement's variant); none by default
        self.keys_of_id: dict[str, list[str]] = defaultdict(list)

    def version(self) -> str:
        from importlib.metadata import version

        return version("knotwork")

    def server(self, store: Path) -> StdioServerParameters:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")} | self.env
        return StdioServerParameters(command=str(Path(sys.executable).parent / "knotwork"),
                                     args=["mcp", "--db", str(store / "knotwork.db")], env=env)

    async def add(self, session: ClientSession, key: str, text: str, part: str) -> None:
        # force: store every turn as the peers do (knotwork's default IGNOREs questions and chatter);
        # consolidate: see CONSOLIDATE. A turn folded into a stored memory (UPDATE, NOOP) maps to that memory.
        answer = await self.call(
            session, "add_memory", {"content": text, "workspace": part, "force": True, "consolidate": self.consolidate}
        )
        found = self.ID.search(answer)
        if not found:
            raise RuntimeError(f"add_memory answered without an id: {answer[:200]}")
        self.keys_of_id[found.group(1)].append(key)

    def search_args(self, query: str, part: str) -> dict[str, Any]:
        return {"query": query, "workspace": part, "limit": LIMIT}

    def keys(self, answer: str) -> list[str]:
        out: list[str] = []
        for line in answer.splitlines():
            if not line or line[0].isspace():
                continue
            short = line.split(" ", 1)[0]
            out.extend(k for full, ks in self.keys_of_id.items() if full.endswith(short) for k in ks)
        return out


class ServerMemory(McpSystem):
    """The MCP reference memory server (npm ``@modelcontextprotocol/server-memory``): a JSONL knowledge graph.

    One entity per memory (name = a label, type ``memory``, the text as its
    one observation). ``search_nodes`` keeps the entities whose name, type or
    an observation contains the query as a substring (case-insensitive), in
    file order, with no ranking and no limit.
    """

    name = "server-memory"
    search_tool = "search_nodes"
    PACKAGE = "@modelcontextprotocol/server-memory"

    def __init__(self, embed_url: str) -> None:
        super().__init__(embed_url)
        self.key_of_name: dict[str, str] = {}

    def installed(self) -> str | None:
        return _venv_installed("server-memory")

    def version(self) -> str:
        pkg = CACHE / "server-memory" / "node_modules" / self.PACKAGE / "package.json"
        return json.loads(pkg.read_text())["version"] if pkg.exists() else ""

    def server(self, store: Path) -> StdioServerParameters:
        entry = CACHE / "server-memory" / "node_modules" / self.PACKAGE / "dist" / "index.js"
        env = dict(os.environ, MEMORY_FILE_PATH=str(store / "memory.jsonl"))
        return StdioServerParameters(command="node", args=[str(entry)], env=env)

    async def add(self, session: ClientSession, key: str, text: str, part: str) -> None:
        name = f"m{len(self.key_of_name):06d}"
        self.key_of_name[name] = key
        await self.call(session, "create_entities", {"entities": [{"name": name, "entityType": "memory", "observations": [text]}]})

    def search_args(self, query: str, part: str) -> dict[str, Any]:
        return {"query": query}

    def keys(self, answer: str) -> list[str]:
        graph = json.loads(answer)
        return [self.key_of_name[e["name"]] for e in graph.get("entities", []) if e.get("name") in self.key_of_name]


class McpMemoryService(McpSystem):
    """mcp-memory-service (PyPI ``mcp-memory-service``), sqlite-vec backend, stdio server ``memory server``.

    Its embedder is the bundled MiniLM served on loopback
    (``MCP_EXTERNAL_EMBEDDING_URL``): its own default downloads an ONNX model
    at first use, which cannot happen offline.
    """

    name = "mcp-memory-service"
    search_tool = "memory_search"

    def installed(self) -> str | None:
        return _venv_installed("mcp-memory-service")

    def version(self) -> str:
        return _freeze_version("mcp-memory-service", "mcp-memory-service")

    def server(self, store: Path) -> StdioServerParameters:
        venv = CACHE / "mcp-memory-service" / "venv" / "bin"
        env = dict(
            os.environ,
            PATH=f"{venv}:{os.environ.get('PATH', '')}",
            MCP_MEMORY_STORAGE_BACKEND="sqlite_vec",
            MCP_MEMORY_SQLITE_PATH=str(store / "memory.db"),
            MCP_MEMORY_BACKUPS_PATH=str(store / "backups"),
            MCP_MEMORY_BASE_DIR=str(store),
            MCP_EXTERNAL_EMBEDDING_URL=self.embed_url,
            MCP_EXTERNAL_EMBEDDING_MODEL="all-MiniLM-L6-v2",
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            MCP_CONSOLIDATION_ENABLED="false",
            MCP_MEMORY_ENABLE_DISCOVERY="false",
        )
        return StdioServerParameters(command=str(venv / "python"), args=[str(venv / "memory"), "server"], env=env)

    async def add(self, session: ClientSession, key: str, text: str, part: str) -> None:
        # conversation_id: its documented switch for storing conversation turns; it skips the semantic
        # deduplication that would otherwise refuse a turn close to a stored one (the other systems store every text).
        self.keys_by_text[text.strip()].append(key)
        try:
            await self.call(session, "memory_store", {"content": text, "conversation_id": part})
        except RuntimeError as exc:
            # An exact copy of a stored text is refused as an error; the stored one stands for it (mapped by text).
            if "Duplicate content detected (exact match)" not in str(exc):
                raise

    def search_args(self, query: str, part: str) -> dict[str, Any]:
        return {"query": query, "limit": LIMIT}

    HIT = re.compile(r"^\d+\. (.*?)\n   Hash: (\w+)", re.MULTILINE | re.DOTALL)

    def keys(self, answer: str) -> list[str]:
        """Its answer is text: ``N. <content>`` then ``   Hash: <hash>`` per hit; long memories are stored as chunks."""
        out: list[str] = []
        for content, _hash in self.HIT.findall(answer):
            content = content.strip()
            if content in self.keys_by_text:
                out.extend(self.keys_by_text[content])
                continue
            probe = content[:200]
            out.extend(k for text, ks in self.keys_by_text.items() if probe in text for k in ks)
        return out


class BasicMemory(McpSystem):
    """basic-memory (PyPI ``basic-memory``): Markdown notes plus a SQLite index, stdio server ``basic-memory mcp``.

    One note per memory (``write_note``), found with ``search_notes``. Its
    semantic search wants a fastembed model from a model hub, which cannot be
    fetched offline; its full-text search is what answers here.
    """

    name = "basic-memory"
    search_tool = "search_notes"

    def __init__(self, embed_url: str) -> None:
        super().__init__(embed_url)
        self.key_of_title: dict[str, str] = {}

    def installed(self) -> str | None:
        return _venv_installed("basic-memory")

    def version(self) -> str:
        return _freeze_version("basic-memory", "basic-memory")

    def server(self, store: Path) -> StdioServerParameters:
        venv = CACHE / "basic-memory" / "venv" / "bin"
        home = store / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = dict(
            os.environ,
            HOME=str(home),
            PATH=f"{venv}:{os.environ.get('PATH', '')}",
            BASIC_MEMORY_HOME=str(store / "notes"),
            BASIC_MEMORY_CONFIG_DIR=str(home / ".basic-memory"),
            BASIC_MEMORY_SEMANTIC_SEARCH_ENABLED="false",
            BASIC_MEMORY_SYNC_CHANGES="false",
            BASIC_MEMORY_CLOUD_MODE="false",
            HF_HUB_OFFLINE="1",
        )
        return StdioServerParameters(command=str(venv / "python"), args=[str(venv / "basic-memory"), "mcp"], env=env)

    async def add(self, session: ClientSession, key: str, text: str, part: str) -> None:
        title = f"m{len(self.key_of_title):06d}"
        self.key_of_title[title] = key
        await self.call(session, "write_note", {"title": title, "content": text, "directory": "memories"})

    def search_args(self, query: str, part: str) -> dict[str, Any]:
        return {"query": query, "page_size": LIMIT}

    def keys(self, answer: str) -> list[str]:
        try:
            data = json.loads(answer)
        except json.JSONDecodeError:
            return [self.key_of_title[t] for t in re.findall(r"\bm\d{6}\b", answer) if t in self.key_of_title]
        rows = data.get("results", []) if isinstance(data, dict) else data
        out = []
        for r in rows:
            title = r.get("title") or Path(r.get("permalink", "")).name
            if title in self.key_of_title:
                out.append(self.key_of_title[title])
        return out


MCP_SYSTEMS = {cls.name: cls for cls in (KnotworkMcp, ServerMemory, McpMemoryService, BasicMemory)}


async def _drive_mcp(system: McpSystem, corpus: dict[str, Any], root: Path, budget_s: float, out: Outcome) -> None:
    parts: dict[str, list[dict[str, str]]] = defaultdict(list)
    for d in corpus["docs"]:
        parts[d["part"]].append(d)
    asks: dict[str, list[dict[str, str]]] = defaultdict(list)
    for q in corpus["questions"]:
        asks[q["part"]].append(q)
    deadline = time.monotonic() + budget_s
    first = True
    for part, docs in parts.items():
        store = root / re.sub(r"[^A-Za-z0-9_.-]", "_", part)
        store.mkdir(parents=True, exist_ok=True)
        with open(root / "server.log", "a") as errlog:
            async with stdio_client(system.server(store), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await asyncio.wait_for(session.initialize(), 120)
                    if first:
                        tools = await session.list_tools()
                        out.tools_list = json.dumps(
                            [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools.tools], separators=(",", ":")
                        )
                    cpu_before, embed_before = _cpu_of_descendants(), embed_stats(system.embed_url)
                    start = time.perf_counter()
                    for d in docs:
                        await system.add(session, d["key"], d["text"], part)
                        out.ingested += 1
                        if time.monotonic() > deadline:
                            raise TimeoutError(f"ingest passed the {budget_s:.0f} s budget after {out.ingested} of {len(corpus['docs'])} memories")
                    out.ingest_s += time.perf_counter() - start
                    add_usage(out.ingest_cpu, cpu_before, embed_before, system.embed_url)
                    if asks[part]:  # one untimed warm-up search per server: a first search may build caches
                        await session.call_tool(system.search_tool, system.search_args(asks[part][0]["text"], part))
                    first = False
                    for q in asks[part]:
                        start = time.perf_counter()
                        result = await session.call_tool(system.search_tool, system.search_args(q["text"], part))
                        out.latency_ms[q["id"]] = (time.perf_counter() - start) * 1000
                        answer = text_of(result)
                        if result.is_error:
                            raise RuntimeError(f"{system.search_tool}: {answer[:300]}")
                        out.answers[q["id"]] = answer
                        out.ranked[q["id"]] = list(dict.fromkeys(system.keys(answer)))[:LIMIT]
                        if time.monotonic() > deadline:
                            raise TimeoutError(f"searches passed the {budget_s:.0f} s budget")


def drive(
    name: str, corpus: dict[str, Any], root: Path, *, embed_url: str, budget_s: float, knotwork_consolidate: bool = CONSOLIDATE,
    knotwork_env: dict[str, str] | None = None,
) -> Outcome:
    """Run one system on one corpus in ``root`` (emptied first); never raises, the Outcome says what failed.
    ``knotwork_consolidate``: knotwork's ``consolidate`` on every add (see CONSOLIDATE); ``knotwork_env``: KNOTWORK_*
    settings for its server (none by default: it runs as shipped)."""
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if name == "mem0":
        return _drive_mem0(corpus, root, embed_url=embed_url, budget_s=budget_s)
    system = KnotworkMcp(embed_url, knotwork_consolidate, knotwork_env) if name == "knotwork" else MCP_SYSTEMS[name](embed_url)
    out = Outcome(name, system.version())
    why = system.installed()
    if why:
        out.error = why
        return out
    try:
        asyncio.run(_drive_mcp(system, corpus, root, budget_s, out))
    except BaseException as exc:  # noqa: BLE001 - one system failing must not stop the others
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        if isinstance(exc, KeyboardInterrupt):
            raise
        out.error = f"{type(exc).__name__}: {str(exc)[:400]}"
        log = root / "server.log"
        if log.exists():
            tail = [ln for ln in log.read_text(errors="replace").splitlines() if "Error" in ln or "error" in ln][-2:]
            out.notes.extend(t[:300] for t in tail)
    if name == "knotwork" and not out.error:
        try:
            out.graph = drain_knotwork(root)
        except Exception as exc:  # noqa: BLE001 - the figures measured so far still stand
            out.notes.append(f"the graph was not drained: {str(exc)[:300]}")
    out.store_bytes = folder_bytes(root)
    return out


# Reads the graph in the way any later process holding the store would: ``wait_for_extraction`` through the
# library, then closes (which merges the write-ahead log). Prints queued-at-close, memories and seconds as JSON.
_DRAIN = """
import json, sqlite3, sys, time
import knotwork
path = sys.argv[1]
con = sqlite3.connect(path)
queued = con.execute("SELECT count(*) FROM enrich_queue").fetchone()[0]
memories = con.execute("SELECT count(*) FROM memories").fetchone()[0]
con.close()
start = time.perf_counter()
with knotwork.open(path) as mem:
    done = mem.wait_for_extraction(None)
print(json.dumps({"queued": queued, "memories": memories, "drain_s": time.perf_counter() - start, "drained": done}))
"""


def drain_knotwork(root: Path) -> dict[str, Any]:
    """knotwork's store as its server left it (bytes, memories still queued for the graph), then with the graph
    drained: the figure comparable with the peers', whose stores hold everything once their add answers."""
    left = folder_bytes(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    queued = memories = 0
    drain_s = 0.0
    for db in sorted(root.rglob("knotwork.db")):
        proc = subprocess.run([sys.executable, "-c", _DRAIN, str(db)], env=env, capture_output=True, text=True, timeout=3600)
        if proc.returncode:
            raise RuntimeError(f"draining {db} failed: {proc.stderr.strip()[-400:]}")
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        queued += got["queued"]
        memories += got["memories"]
        drain_s += got["drain_s"]
    return {"store_bytes_at_close": left, "queued_at_close": queued, "memories": memories, "drain_s": drain_s}


def _drive_mem0(corpus: dict[str, Any], root: Path, *, embed_url: str, budget_s: float) -> Outcome:
    out = Outcome("mem0", _freeze_version("mem0", "mem0ai"))
    why = _venv_installed("mem0")
    if why:
        out.error = why
        return out
    (root / "corpus.json").write_text(json.dumps(corpus))
    python = CACHE / "mem0" / "venv" / "bin" / "python"
    cmd = [str(python), str(HERE / "mem0_driver.py"), "--corpus", str(root / "corpus.json"), "--store", str(root / "store"),
           "--embed-url", embed_url, "--out", str(root / "outcome.json"), "--budget", str(budget_s)]
    env = dict(os.environ, MEM0_TELEMETRY="False", MEM0_DIR=str(root / "mem0home"), HOME=str(root / "home"))
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=budget_s + 300)
    except subprocess.TimeoutExpired:
        out.error = f"the driver did not finish in {budget_s + 300:.0f} s"
        return out
    (root / "corpus.json").unlink()
    if not (root / "outcome.json").exists():
        out.error = f"driver exited {proc.returncode}: {proc.stderr.strip().splitlines()[-1][:400] if proc.stderr.strip() else ''}"
        return out
    got = json.loads((root / "outcome.json").read_text())
    for k, v in got.items():
        setattr(out, k, v)
    out.store_bytes = folder_bytes(root / "store")
    return out
