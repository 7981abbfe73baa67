"""knotwork side by side with Mem0, mcp-memory-service, basic-memory and the MCP reference memory server.

    python bench/peers/run.py [--systems knotwork,mem0,...] [--lme-questions N] [--budget S] [--knotwork-consolidate off|on]

(``make peers`` installs the peers, then runs this.) Every system gets the
same texts, one memory per call, through its own public interface (see
bench/peers/systems.py), and one search call per question asking for 10
hits. Recall is scored by bench/longmemeval.py's and bench/codemem.py's own
``evaluate``. Raw figures go to bench/peers/results/<data set>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus as corpora  # noqa: E402
import systems  # noqa: E402

from knotwork.tokens import count as tokens  # noqa: E402

KS = (1, 5, 10)
ORDER = ("knotwork", "mem0", "mcp-memory-service", "basic-memory", "server-memory")
RESULTS = HERE / "results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbedServer:
    """bench/peers/embed_server.py in a child process, up until the ``with`` block ends."""

    def __enter__(self) -> str:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, str(HERE / "embed_server.py"), "--port", str(self.port)])
        url = f"http://127.0.0.1:{self.port}/health"
        import httpx

        for _ in range(300):
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    return f"http://127.0.0.1:{self.port}/v1/embeddings"
            except httpx.HTTPError:
                time.sleep(0.2)
        self.proc.kill()
        raise SystemExit("the embedding server did not come up")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def default_lme_path() -> Path:
    name = Path("shared") / "data" / "longmemeval_oracle.json.gz"
    found = [up / name for up in HERE.parents if (up / name).exists()]
    return found[0] if found else corpora.lme.DEFAULT_DATA


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * p // 100) - 1)] if ordered else float("nan")


def score(name: str, out: systems.Outcome, gold: list[Any]) -> dict[str, Any]:
    """Recall per k (session and turn for LongMemEval, hit for codemem) and the other figures of one outcome."""
    import codemem as cm
    import longmemeval as lme

    fig: dict[str, Any] = {"version": out.version, "error": out.error, "notes": out.notes}
    if out.ranked and len(out.ranked) == len(gold):
        hits = []
        for q in gold:
            ranked = out.ranked[q.id]
            if name == "longmemeval":
                keys = [(k.rsplit("#", 1)[0], int(k.rsplit("#", 1)[1])) for k in ranked]
                hits.append(lme.evaluate(keys, q.answer_sessions, q.answer_turns, KS))
            else:
                hits.append(cm.evaluate(ranked, q.gold, q.stale, KS))
        for metric in hits[0]:
            defined = [h[metric] for h in hits if h[metric] is not None]
            if defined:
                fig[metric] = sum(defined) / len(defined)
        lat = list(out.latency_ms.values())
        fig["search_p50_ms"] = statistics.median(lat)
        fig["search_p95_ms"] = percentile(lat, 95)
        counts = [tokens(a) for a in out.answers.values()]
        fig["answer_tokens_mean"] = statistics.mean(counts)
        fig["answer_tokens_p50"] = statistics.median(counts)
        fig["hits_returned_mean"] = statistics.mean(len(r) for r in out.ranked.values())
        fig["latency_ms"] = {q: round(ms, 2) for q, ms in out.latency_ms.items()}
    fig["ingested"] = out.ingested
    fig["ingest_s"] = out.ingest_s
    fig["ingest_per_s"] = out.ingested / out.ingest_s if out.ingest_s and not out.error else None
    fig["tools_list_tokens"] = tokens(out.tools_list) if out.tools_list else None
    fig["tools"] = len(json.loads(out.tools_list)) if out.tools_list else None
    fig["store_bytes"] = out.store_bytes
    if out.graph:
        fig["graph"] = out.graph
    if out.ingest_cpu and out.ingested:
        fig["ingest_cpu"] = per_add(out.ingest_cpu, out.ingested)
    return fig


def per_add(usage: dict[str, Any], n: int) -> dict[str, Any]:
    """The adds' CPU and the tokens embedded for them, per memory (``usage``: Outcome.ingest_cpu)."""
    embed = usage.get("embed") or {}
    got: dict[str, Any] = {"raw": usage, "system_cpu_ms": usage.get("system_cpu_s", 0.0) / n * 1000}
    if embed.get("texts"):
        got.update(texts=embed["texts"] / n, tokens=embed["tokens"] / n, tokens_run=embed["tokens_run"] / n,
                   truncated=embed["truncated"] / n, model_cpu_ms=embed["model_cpu_s"] / n * 1000)
    return got


def knotwork_tokens(texts: list[str]) -> dict[str, float]:
    """What knotwork's add embeds per memory: its passages (``MiniLMEmbedder.chunks``) and their tokens, [CLS] and
    [SEP] included, against the tokens of each text as one (uncut) sequence. Tokenizer only, no model run."""
    from knotwork.embed.onnx_minilm import MiniLMEmbedder

    emb = MiniLMEmbedder()
    tok = emb._tokenizer_ready()
    passages = whole = run = 0
    for text in texts:
        parts = emb.chunks(text)
        passages += len(parts)
        run += sum(len(e.ids) for e in tok.encode_batch(parts))
        whole += len(tok.encode(text).ids)
    n = max(1, len(texts))
    return {"texts": passages / n, "tokens": whole / n, "tokens_run": run / n}


def cost_table(figures: dict[str, dict[str, Any]]) -> str:
    """Per add, during the stream: the system's own CPU, and what the shared embedding server did for it."""
    head = ["system", "ingest mem/s", "own CPU ms/add", "texts embedded/add", "tokens/add (as given)",
            "tokens run/add", "cut at 256 tokens", "embed-server model CPU ms/add", "CPU ms/add, both",
            "model tokens/s per core"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for system, f in figures.items():
        c = f.get("ingest_cpu")
        if not c:
            continue
        both = c["system_cpu_ms"] + c.get("model_cpu_ms", 0.0)
        lines.append("| " + " | ".join([
            system, fmt(f.get("ingest_per_s"), 1), fmt(c["system_cpu_ms"], 1), fmt(c.get("texts"), 2), fmt(c.get("tokens"), 0),
            fmt(c.get("tokens_run"), 0), fmt(c.get("truncated"), 3), fmt(c.get("model_cpu_ms"), 1), fmt(both, 1),
            tokens_per_core_s(c)]) + " |")
    lines.append("")
    lines.append("model tokens/s per core: tokens the model ran per add over the CPU seconds that ran them (a CPU second "
                 "is a core busy for a second); * where the model runs in the system's own process and all of that "
                 "process's CPU per add is counted as the model's (a lower bound).")
    return "\n".join(lines)


def tokens_per_core_s(c: dict[str, Any]) -> str:
    """Tokens the model ran per CPU second, from the cost figures of one system (``per_add``)."""
    tokens_run = c.get("tokens_run")
    if not tokens_run:
        return "–"
    if c.get("model_cpu_ms"):
        return f"{tokens_run / (c['model_cpu_ms'] / 1000):,.0f}"
    if c.get("system_cpu_ms"):
        return f"{tokens_run / (c['system_cpu_ms'] / 1000):,.0f}*"
    return "–"


def fmt(v: Any, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return "–"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def table(name: str, figures: dict[str, dict[str, Any]]) -> str:
    rk = (lambda k: f"session@{k}") if name == "longmemeval" else (lambda k: f"hit@{k}")
    head = ["system"] + [f"R@{k}" for k in KS] + (["turn R@10"] if name == "longmemeval" else []) + [
        "ingest mem/s", "search p50 ms", "p95 ms", "tokens/answer", "tools/list tokens", "store MB"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for system, f in figures.items():
        label = f"{system} {f['version']}".strip()
        if f.get("error") and f"{rk(1)}" not in f:
            lines.append(f"| {label} | " + " | ".join(["–"] * (len(head) - 2)) + f" | {f['error']} |")
            continue
        row = [label] + [fmt(f.get(rk(k))) for k in KS] + ([fmt(f.get("turn@10"))] if name == "longmemeval" else []) + [
            fmt(f.get("ingest_per_s"), 1), fmt(f.get("search_p50_ms"), 1), fmt(f.get("search_p95_ms"), 1),
            fmt(f.get("answer_tokens_mean"), 0), fmt(f.get("tools_list_tokens")), fmt(f["store_bytes"] / 1e6, 1)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--systems", default=",".join(ORDER))
    p.add_argument("--data", default="longmemeval,codemem", help="comma list of longmemeval, codemem")
    p.add_argument("--lme-questions", type=int, default=100, help="LongMemEval questions drawn (seeded) with their haystacks; 0 = all 500")
    p.add_argument("--lme-path", type=Path, default=default_lme_path(), help="longmemeval_oracle.json.gz (default: shared/data beside the repository or a folder above)")
    p.add_argument("--budget", type=float, default=1500, help="seconds one system may spend on one data set")
    p.add_argument("--work", type=Path, default=systems.CACHE / "runs")
    p.add_argument("--keep-others", action="store_true",
                   help="keep the figures of systems not run now from results/<data set>.json (same data only)")
    p.add_argument("--knotwork-consolidate", choices=("off", "on"), default="on" if systems.CONSOLIDATE else "off",
                   help="knotwork's consolidation on every add; off (default) stores every turn, as the peers are driven to")
    p.add_argument("--knotwork-env", action="append", default=[], metavar="KNOTWORK_X=VALUE",
                   help="a setting for knotwork's server (repeatable), e.g. KNOTWORK_ENRICH_MAX_BACKLOG=1000000 to keep "
                        "its graph out of the stream; its row is then a variant, not knotwork as shipped")
    args = p.parse_args()
    if any("=" not in kv or not kv.startswith("KNOTWORK_") for kv in args.knotwork_env):
        p.error("--knotwork-env takes KNOTWORK_<SETTING>=<value>")
    knotwork_env = dict(kv.split("=", 1) for kv in args.knotwork_env)
    consolidate = args.knotwork_consolidate == "on"
    setting = {"consolidate": consolidate, "force": True,
               "why": systems.CONSOLIDATE_WHY if consolidate == systems.CONSOLIDATE else "on: knotwork as it ships (asked for)"}
    wanted = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(wanted) - set(ORDER)
    if unknown:
        p.error(f"unknown systems {sorted(unknown)}; known: {', '.join(ORDER)}")
    sets = []
    if "longmemeval" in args.data:
        sets.append(corpora.longmemeval(args.lme_path, args.lme_questions or None))
    if "codemem" in args.data:
        sets.append(corpora.codemem("test"))
    RESULTS.mkdir(exist_ok=True)
    with EmbedServer() as embed_url:
        for corpus, gold in sets:
            print(f"\n## {corpus.note}\n", flush=True)
            print(f"knotwork consolidation {setting['why']}\n", flush=True)
            if knotwork_env:
                print(f"knotwork's server runs with {knotwork_env} (a variant)\n", flush=True)
            load_start = os.getloadavg()
            figures: dict[str, dict[str, Any]] = {}
            started = datetime.now(timezone.utc).isoformat(timespec="seconds")
            for name in wanted:
                t0 = time.perf_counter()
                print(f"{name}: running ...", file=sys.stderr, flush=True)
                out = systems.drive(name, corpus.to_json(), args.work / corpus.name / name, embed_url=embed_url, budget_s=args.budget,
                                   knotwork_consolidate=consolidate, knotwork_env=knotwork_env)
                figures[name] = score(corpus.name, out, gold)
                figures[name]["wall_s"] = time.perf_counter() - t0
                figures[name]["loadavg_after"] = os.getloadavg()
                print(f"{name}: {time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}"
                      + (f", {out.error}" if out.error else ""), file=sys.stderr, flush=True)
            print(table(corpus.name, figures))
            if "knotwork" in figures and figures["knotwork"].get("ingest_cpu"):
                # knotwork embeds in its own process (its own CPU above holds its model runs); what it embeds:
                figures["knotwork"]["ingest_cpu"].update(knotwork_tokens([d.text for d in corpus.docs]))
            print("\nwhat one add costs during the stream (CPU: the system's own processes; the embedding server's model "
                  "calls for it; knotwork's own CPU holds its model runs and, past its backlog bound, its graph's):\n")
            print(cost_table(figures))
            for name, f in figures.items():
                if f.get("graph"):
                    g = f["graph"]
                    print(f"\n{name}: store MB = with the graph drained; as its server left it "
                          f"{g['store_bytes_at_close'] / 1e6:.1f} MB with {g['queued_at_close']} of {g['memories']} "
                          f"memories still queued for the graph (read in afterwards in {g['drain_s']:.0f} s)", flush=True)
            print(f"\nload average (1 min) {load_start[0]:.1f} at start, {os.getloadavg()[0]:.1f} at end, {os.cpu_count()} cpus.", flush=True)
            report = {
                "data": corpus.note, "started": started, "docs": len(corpus.docs), "questions": len(corpus.questions),
                "ks": KS, "limit": systems.LIMIT, "knotwork_settings": setting | {"env": knotwork_env},
                "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                            "loadavg_start": load_start, "loadavg_end": os.getloadavg()},
                "systems": figures,
            }
            path = RESULTS / f"{corpus.name}.json"
            if args.keep_others and path.exists():
                earlier = json.loads(path.read_text())
                if earlier.get("data") == corpus.note:
                    report["systems"] = {**earlier["systems"], **figures}
                    report["runs"] = earlier.get("runs", [earlier["machine"]]) + [report["machine"]]
            path.write_text(json.dumps(report, indent=1) + "\n")
            if len(report["systems"]) > len(figures):
                print(f"\nwith the other systems' figures from earlier runs ({path.name}):\n")
                print(table(corpus.name, {n: report["systems"][n] for n in ORDER if n in report["systems"]}))


if __name__ == "__main__":
    main()
