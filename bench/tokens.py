"""Tokens per answer: compact text vs. full JSON, per operation, and the MCP tool catalog.

    python bench/tokens.py [--memories 2000] [--queries 60] [--longmemeval-questions 100] [--markdown]

Every figure is an exact o200k token count (``knotwork.metrics``),
taken by the same ``Responder`` the MCP server and CLI answer through:
"full JSON" is the JSON form with every field and every meta-relation
(``relation_detail="full"``); "sent" is what the adapter sends.

Corpora:

- **generated**: N memories written the way a coding agent writes them
  (decisions, lessons, preferences, facts about modules and libraries), each
  with 0-3 artifacts, 1-3 tags, 0-2 evidence references, a client app in
  metadata, and the entities it names. Until the store projects ``similar``
  and ``about`` meta-relations itself, the bench adds them as the store will:
  ``about`` = the entities a memory names, ``similar`` = its 3 nearest other
  memories by BM25 over its own text, with score and preview. When
  ``mem.relations`` already returns them, the bench uses the store's.
- **LongMemEval**: every session of ``longmemeval_oracle.json.gz`` (one memory
  per turn, as ``bench/longmemeval.py`` ingests it) and the search results of
  its questions. Set ``KNOTWORK_EMBEDDER=none`` for a fast ingest.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import knotwork  # noqa: E402
from knotwork.metrics import CallMetrics, MetricsLog, count_tokens  # noqa: E402
from knotwork.render.respond import Responder  # noqa: E402
from knotwork.services.links import MetaRelation  # noqa: E402

ENTITIES = [
    "Redis", "Postgres", "Kafka", "ReportsModule", "BillingService", "AuthGateway", "InvoiceWorker", "SearchIndex",
    "PaymentsAPI", "FeatureFlags", "Terraform", "GitHub Actions", "Sentry", "OpenTelemetry", "pytest", "FastAPI",
    "Celery", "S3", "CloudFront", "Stripe", "Alembic", "Pydantic", "React", "Vite", "nginx", "Kubernetes",
]
MODULES = ["reports", "billing", "auth", "invoices", "search", "payments", "flags", "infra", "web", "worker"]
CATEGORIES = ["decision", "lesson", "preference", "fact", "bug", "convention"]
TEMPLATES = [
    "We decided to move {a} behind {b} in the {m} module because {reason}. The old path stays for one release and "
    "is removed once the dashboards show no traffic on it.",
    "Lesson from the {m} incident: {a} timed out under load when {b} was slow to answer, so {reason}. Add a test "
    "that reproduces it before changing the retry policy again.",
    "The team prefers {a} over {b} for new code in {m}; {reason}. Existing code is migrated only when it is touched "
    "for another reason, never in a dedicated sweep.",
    "{a} in {m} reads its settings from the environment at start-up and caches them; {reason}. Changing a value "
    "needs a restart of every worker, not only the web process.",
    "Bug: {a} dropped messages when {b} restarted during a deploy of {m}. Root cause: {reason}. Fixed by draining "
    "the queue before shutdown and by an idempotency key on each message.",
    "Convention for {m}: every call to {a} goes through one client wrapper that adds tracing via {b}; {reason}. "
    "Do not call the SDK directly from handlers.",
]
REASONS = [
    "p95 latency went from 800 ms to 120 ms in the load test",
    "the finance team needs month-end reports in under two seconds",
    "it halves the number of connections each pod holds open",
    "on-call got paged three times in one week for the same failure",
    "the vendor deprecates the old API at the end of the quarter",
    "it keeps the audit trail complete, which compliance asked for",
    "tests became flaky whenever two suites shared one database",
    "the migration can then run online without locking the table",
]
APPS = ["claude-code", "cursor", "cline", "codex-cli"]


def generate(n: int, seed: int = 5) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """``n`` memories (as ``add_many`` items) and the entities each names."""
    rng = random.Random(seed)
    items, named = [], []
    for i in range(n):
        a, b = rng.sample(ENTITIES, 2)
        m = rng.choice(MODULES)
        items.append({
            "content": rng.choice(TEMPLATES).format(a=a, b=b, m=m, reason=rng.choice(REASONS)) + f" (note {i})",
            "workspace": "shop",
            "category": rng.choice(CATEGORIES),
            "tags": {k: rng.choice(["high", "low", m, "yes"]) for k in rng.sample(["team", "priority", "area", "reviewed"], rng.randint(1, 3))},
            "artifacts": [f"src/{m}/{rng.choice(['client', 'cache', 'handlers', 'models', 'settings'])}{j}.py" for j in range(rng.randint(0, 3))],
            "evidence": [f"{rng.choice(['ADR', 'PR', 'INC'])}-{rng.randint(1, 999)}" for _ in range(rng.randint(0, 2))],
            "importance": round(rng.uniform(0.2, 0.9), 2),
            "metadata": {"written_via": rng.choice(APPS), "session": f"s{rng.randint(1, 300)}"},
        })
        named.append([a, b])
    return items, named


def project_relations(mem: Any, entities_of: dict[str, list[str]], k: int = 3) -> None:
    """Make ``mem.relations`` return ``about`` and ``similar`` too, as the store will (if it does not yet)."""
    real = mem.relations
    cache: dict[str, list[MetaRelation]] = {}

    def relations(ids: Sequence[str]) -> dict[str, list[MetaRelation]]:
        out = real(ids)
        for mid, rels in out.items():
            kinds = {r.type for r in rels}
            extra: list[MetaRelation] = []
            if "about" not in kinds:
                extra += [MetaRelation("about", "entity", e) for e in entities_of.get(mid, [])]
            if "similar" not in kinds:
                if mid not in cache:
                    m = mem.get(mid)
                    query = " ".join(m.content.split()[:14])
                    near = [h for h in mem.search(query, workspace=m.workspace, limit=k + 1, recipe="memory_bm25") if h.memory.id != mid][:k]
                    cache[mid] = [MetaRelation("similar", "memory", h.memory.id, h.score, h.memory.content[:200]) for h in near]
                extra += cache[mid]
            out[mid] = rels + extra
        return out

    mem.relations = relations


def tokens_of(respond: Responder, log: MetricsLog, operation: str, result: Any, fmt: str = "compact", **kw: Any) -> CallMetrics:
    if operation == "search":  # fill the bench's projection cache first: its BM25 look-ups are not the Responder's cost
        respond.mem.relations([h.memory.id for h in result])
    respond(operation, result, fmt, **kw)
    return log.recent[-1]


def search_rows(mem: Any, queries: Sequence[str], workspace: str | None) -> dict[str, list[int]]:
    """Tokens of each query's answer in every shape: full JSON, JSON standard, compact at each detail."""
    log = MetricsLog()
    respond = Responder(mem, log)
    rows: dict[str, list[int]] = {k: [] for k in ("full json", "json standard", "none", "minimal", "standard", "full")}
    for q in queries:
        hits = mem.search(q, workspace=workspace, limit=10)
        if not hits:
            continue
        std = tokens_of(respond, log, "search", hits)
        rows["full json"].append(std.raw_tokens)
        rows["standard"].append(std.sent_tokens)
        rows["json standard"].append(tokens_of(respond, log, "search", hits, "json").sent_tokens)
        for detail in ("none", "minimal", "full"):
            rows[detail].append(tokens_of(respond, log, "search", hits, relation_detail=detail).sent_tokens)
    return rows


def print_search(title: str, rows: dict[str, list[int]], md: bool) -> float:
    full = sum(rows["full json"])
    print(f"\n{title}: {len(rows['full json'])} answers of up to 10 hits")
    print(_table(["shape", "tokens/answer (mean)", "median", "vs full JSON"], [
        [k, f"{statistics.mean(v):.0f}", f"{statistics.median(v):.0f}", f"{100 * (1 - sum(v) / full):.1f}% fewer" if k != "full json" else "-"]
        for k, v in rows.items()
    ], md))
    return 100 * (1 - sum(rows["standard"]) / full)


def operation_rows(mem: Any, rng: random.Random) -> list[list[str]]:
    """Full JSON vs. compact tokens for every memory operation, through the Responder, on real calls."""
    log = MetricsLog()
    respond = Responder(mem, log)
    ids = [m.id for m in mem.list(workspace="shop", limit=200)]
    samples: dict[str, list[CallMetrics]] = {}

    def call(op: str, result: Any, **kw: Any) -> None:
        samples.setdefault(op, []).append(tokens_of(respond, log, op, result, **kw))

    for i in range(20):
        a, b = rng.sample(ids, 2)
        call("add", mem.add(f"Scratch note {i}: the {rng.choice(MODULES)} build caches wheels between CI runs", workspace="shop",
                            category="lesson", tags={"area": "ci"}, artifacts=[".github/workflows/ci.yml"]))
        call("get", mem.get(a))
        call("update", mem.update(a, importance=round(rng.uniform(0.1, 1.0), 2)))
        call("history", mem.history(a))
        mem.link(a, b, rng.choice(["relates_to", "references", "implements"]))
        call("link", mem.link(a, b, "relates_to"))
        call("related", mem.related(a, depth=2))
        call("graph", mem.graph(a, max_depth=2, max_nodes=20))
        call("list", mem.list(workspace="shop", limit=20, cursor=rng.choice(ids[20:])))
        call("search", mem.search(" ".join(rng.sample(ENTITIES, 2)), workspace="shop", limit=10))
        scratch = mem.add(f"Temporary note {i} about {rng.choice(ENTITIES)}", workspace="shop")
        call("delete", mem.delete(scratch.id))
    rows = []
    for op, ms in samples.items():
        raw, sent = sum(m.raw_tokens for m in ms), sum(m.sent_tokens for m in ms)
        rows.append([op, str(len(ms)), f"{raw / len(ms):.0f}", f"{sent / len(ms):.0f}", f"{100 * (1 - sent / raw):.1f}%",
                     f"{statistics.median(m.ms for m in ms):.2f}"])
    return rows


def catalog_tokens(mem: Any) -> list[list[str]]:
    """Tokens of the ``tools/list`` result as the SDK client receives it, for each tool set."""
    from mcp import Client

    from knotwork.adapters.mcp import build_server

    async def listed(tools: str) -> Any:
        async with Client(build_server(mem, tools=tools)) as client:
            return await client.list_tools()

    rows = []
    for tools in ("all", "core"):
        result = asyncio.run(listed(tools))
        text = result.model_dump_json(by_alias=True, exclude_none=True)
        rows.append([tools, str(len(result.tools)), str(len(text.encode())), str(count_tokens(text))])
    return rows


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], md: bool) -> str:
    if md:
        return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in [header, *rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000, help="generated corpus size")
    parser.add_argument("--queries", type=int, default=60, help="search queries on the generated corpus")
    parser.add_argument("--longmemeval-questions", type=int, default=100, help="0 skips LongMemEval")
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared/data/longmemeval_oracle.json.gz")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    md = args.markdown
    print(f"load average at start: {os.getloadavg()}; KNOTWORK_EMBEDDER={os.environ.get('KNOTWORK_EMBEDDER', '(default)')}")
    rng = random.Random(3)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        with knotwork.open(Path(tmp) / "generated.db") as mem:
            items, named = generate(args.memories)
            stored = mem.add_many(items, consolidate=False, force=True)
            mem.wait_for_extraction()  # answers name the graph's entities, read in after the add
            project_relations(mem, {m.id: e for m, e in zip(stored, named)})
            queries = [f"{' '.join(rng.sample(ENTITIES, 2))} {rng.choice(MODULES)} {rng.choice(['timeout', 'cache', 'deploy', 'migration', 'retry', 'latency'])}"
                       for _ in range(args.queries)]
            saved = print_search(f"search_memory, generated corpus ({args.memories} memories)", search_rows(mem, queries, "shop"), md)
            print("\nper operation, generated corpus (compact = relation_detail standard)")
            print(_table(["operation", "calls", "full JSON tok", "compact tok", "saved", "processing p50 ms"], operation_rows(mem, rng), md))
            print("\nMCP tools/list (in-process SDK client; JSON as received)")
            print(_table(["tool set", "tools", "bytes", "o200k tokens"], catalog_tokens(mem), md))
        if args.longmemeval_questions:
            import longmemeval

            data = longmemeval.load(args.data)
            lme = longmemeval.KnotworkStore(data.turns, Path(tmp) / "longmemeval.db")
            questions = longmemeval.spread(data.questions, args.longmemeval_questions)
            rows = search_rows(lme.mem, [q.text for q in questions], longmemeval.WORKSPACE)
            lme_saved = print_search(f"search_memory, LongMemEval ({lme.stored} memories, {len(questions)} questions)", rows, md)
            lme.close()
            print(f"\nLongMemEval compact(standard) vs full JSON: {lme_saved:.1f}% fewer tokens")
    print(f"\ngenerated compact(standard) vs full JSON: {saved:.1f}% fewer tokens")
    print(f"load average at end: {os.getloadavg()}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
