"""Coding-agent memory retrieval: knotwork recipes against BM25, dense and RRF baselines on bench/codemem/.

    python bench/codemem.py [--half dev|test|both] [--recipe NAME[,NAME...]] [--baselines bm25,dense,rrf|none]
                            [--k 1,5,10] [--store PATH] [--json out.json] [--markdown]
    python bench/codemem.py --score ranked.jsonl [--half ...]     # score another system's ranked lists

The data (bench/codemem/README.md) is one workspace per source project:
decisions from architecture decision records and changes from changelogs,
with their real dates, artifacts, evidence ids and stated links. Every
question is asked in its own workspace. A retriever is any callable
``Question -> ranked list of memory ids``; :func:`evaluate` is the only place
the metrics are defined. The baselines are bench/longmemeval.py's, imported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longmemeval import (
    FUSION_DEPTH,
    BM25Baseline,
    DenseBaseline,
    baseline_runs,
    check_recipes,
    closing,
    fmt,
    machine,
    percentile,
    rate,
    table,
)

DATA = Path(__file__).resolve().parent / "codemem"
DEFAULT_RECIPES = "memory_hybrid,memory_bm25,memory_vector"
TYPES = ("decision", "rationale", "current", "artifact", "multi_hop", "time", "identifier")


# -- data -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Doc:
    """One memory as the baselines see it: ``key`` (its id) and ``text`` (its content)."""

    key: str
    text: str
    workspace: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    workspace: str
    text: str
    type: str
    gold: tuple[str, ...]
    stale: tuple[str, ...]
    asked_at: str | None
    half: str


@dataclass(slots=True)
class Dataset:
    memories: list[dict[str, Any]]
    links: list[dict[str, str]]
    questions: list[Question]

    @property
    def docs(self) -> list[Doc]:
        return [Doc(m["id"], m["content"], m["workspace"]) for m in self.memories]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(data: Path = DATA) -> Dataset:
    questions = [
        Question(q["id"], q["workspace"], q["question"], q["type"], tuple(q["gold"]), tuple(q.get("stale") or ()),
                 q.get("asked_at"), q["half"])
        for q in read_jsonl(data / "questions.jsonl")
    ]
    return Dataset(read_jsonl(data / "memories.jsonl"), read_jsonl(data / "links.jsonl"), questions)


# -- the metric: one pure function ----------------------------------------


def evaluate(ranked: Sequence[str], gold: Sequence[str], stale: Sequence[str], ks: Sequence[int]) -> dict[str, bool | None]:
    """Hits of one ranked list of memory ids.

    ``hit@k``: a gold id is in the top k. ``all@k``: every gold id is (asked
    of multi_hop questions; None elsewhere). ``stale_first``: for questions
    with stale ids, a stale id ranks above the first gold id (or a stale id is
    returned and no gold one is); None when there are no stale ids.

    >>> evaluate(["m3", "m1", "m2"], ["m1", "m2"], ["m3"], [1, 2, 3])
    {'hit@1': False, 'hit@2': True, 'hit@3': True, 'all@1': False, 'all@2': False, 'all@3': True, 'stale_first': True}
    >>> evaluate(["m1"], ["m1"], [], [1])
    {'hit@1': True, 'all@1': True, 'stale_first': None}
    """
    gold_set = set(gold)
    out: dict[str, bool | None] = {f"hit@{k}": any(m in gold_set for m in ranked[:k]) for k in ks}
    out.update({f"all@{k}": gold_set <= set(ranked[:k]) for k in ks})
    if stale:
        first_gold = next((i for i, m in enumerate(ranked) if m in gold_set), len(ranked))
        out["stale_first"] = any(m in set(stale) for m in ranked[:first_gold])
    else:
        out["stale_first"] = None
    return out


# -- retrievers -----------------------------------------------------------

Retriever = Callable[[Question], list[str]]


class KnotworkStore:
    """knotwork through its public API: ``add_many`` per workspace, ``link`` for every stated link, then ``search``.

    Each memory carries its data-set id in ``metadata["codemem_id"]``; a hit
    is mapped back through it, so a store built by an earlier run (``--store``)
    is searched as it is. knotwork is opened with its own settings
    (``KNOTWORK_*`` environment variables apply).
    """

    def __init__(self, data: Dataset, path: Path, *, batch: int = 500) -> None:
        import knotwork

        self.reused = path.exists()
        self.mem = knotwork.open(path)
        embedder = getattr(self.mem, "embedder", None)
        self.embedder_id = getattr(embedder, "model_id", None) if embedder is not None else None
        self.ingest_s = float("nan")
        self.link_s = float("nan")
        if self.reused:
            return
        start = time.perf_counter()
        kw_id: dict[str, str] = {}
        for i in range(0, len(data.memories), batch):
            chunk = data.memories[i : i + batch]
            stored = self.mem.add_many([self._item(m) for m in chunk], consolidate=False, force=True)
            for m, memory in zip(chunk, stored, strict=True):
                if memory.duplicate:
                    raise SystemExit(f"{m['id']}: knotwork merged it with an earlier memory of the same content")
                kw_id[m["id"]] = memory.id
        self.mem.wait_for_extraction()  # the graph too: recipes read its mentions (enrichment runs after the add)
        self.ingest_s = time.perf_counter() - start
        start = time.perf_counter()
        for link in data.links:
            self.mem.link(kw_id[link["source"]], kw_id[link["target"]], link["type"])
        self.link_s = time.perf_counter() - start

    @staticmethod
    def _item(m: dict[str, Any]) -> dict[str, Any]:
        return {
            "content": m["content"],
            "workspace": m["workspace"],
            "category": m["category"],
            "tags": m["tags"],
            "artifacts": m["artifacts"],
            "evidence": m["evidence"],
            "valid_at": m["valid_at"],
            "metadata": {"codemem_id": m["id"], "source": m["source"]},
        }

    def retriever(self, *, depth: int, recipe: str | None = None) -> Retriever:
        """``search`` in the question's workspace, as of its ``asked_at`` when it has one."""
        kwargs: dict[str, Any] = {} if recipe is None else {"recipe": recipe}

        def retrieve(q: Question) -> list[str]:
            asked = {"now": q.asked_at} if q.asked_at else {}
            hits = self.mem.search(q.text, workspace=q.workspace, limit=depth, **kwargs, **asked)
            return [hit.memory.metadata["codemem_id"] for hit in hits]

        return retrieve

    def close(self) -> None:
        self.mem.close()


def per_workspace(docs: Sequence[Doc], make: Callable[[list[Doc]], Retriever]) -> Retriever:
    """One index per workspace, as a coding agent keeps one store per repository."""
    by_ws: dict[str, list[Doc]] = defaultdict(list)
    for d in docs:
        by_ws[d.workspace].append(d)
    indexes = {ws: make(group) for ws, group in by_ws.items()}
    return lambda q: indexes[q.workspace](q)


def within_workspace(docs: Sequence[Doc], retrieve: Retriever) -> Retriever:
    """A ranking over the whole pool, cut down to the question's workspace."""
    ws_of = {d.key: d.workspace for d in docs}
    return lambda q: [m for m in retrieve(q) if ws_of[m] == q.workspace]


def baselines(docs: Sequence[Doc], wanted: Sequence[str], notes: list[str], timings: dict[str, Any],
              say: Callable[[str], None], *, part: str, items: str) -> tuple[Retriever | None, Retriever | None]:
    """The BM25 (one index per workspace) and dense (cosine within the question's workspace) baselines that
    ``wanted`` needs, the RRF of the two needing both; what they are goes to ``notes``, the embedding time
    to ``timings``. ``part`` and ``items`` name a workspace and its documents in the notes."""
    bm25 = dense = None
    if {"bm25", "rrf"} & set(wanted):
        made: list[BM25Baseline] = []

        def make(group: list[Doc]) -> Retriever:
            made.append(BM25Baseline(group, depth=FUSION_DEPTH))
            return made[-1]

        bm25 = per_workspace(docs, make)
        notes.append(f"BM25: bm25s {made[0].bm25s.__version__}, one index per {part}, English stopwords, stemmer: {made[0].stemmer_name}")
    if {"dense", "rrf"} & set(wanted):
        say(f"dense: embedding the {items} (cached in bench/.cache/ after the first run) ...")
        try:
            whole = DenseBaseline(docs, depth=len(docs))
        except ImportError as exc:
            notes.append(f"dense and RRF skipped: {exc}")
        else:
            dense = within_workspace(docs, whole)
            timings.update(dense_embed_s=whole.embed_s, dense_cached=whole.cached)
            notes.append(f"dense: {whole.model_id} via {whole.source}, cosine over the question's {part}")
    return bm25, dense


def scored_file(path: Path) -> tuple[Retriever, set[str]]:
    """Another system's answers: a JSON object ``{question id: [memory ids]}`` or JSONL ``{"id", "ranked"}`` lines."""
    text = path.read_text(encoding="utf-8")
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict) and not {"id", "ranked"} <= set(parsed):  # one JSONL line parses as an object too
        bad = [k for k, v in parsed.items() if not isinstance(v, list)]
        if bad:
            raise SystemExit(f"--score {path}: the value for {bad[0]!r} is not a list of memory ids")
        ranked = {str(k): [str(m) for m in v] for k, v in parsed.items()}
    else:
        ranked = {}
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                row = None
            if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("ranked"), list):
                raise SystemExit(f"--score {path}: line {n} is not {{\"id\": ..., \"ranked\": [...]}}")
            ranked[str(row["id"])] = [str(m) for m in row["ranked"]]
    return (lambda q: ranked.get(q.id, [])), set(ranked)


# -- running and reporting ------------------------------------------------


@dataclass(slots=True)
class Run:
    name: str
    short: str
    ranked: dict[str, list[str]]
    hits: dict[str, dict[str, bool | None]]
    latency_ms: dict[str, float]  # per question id; empty when not timed


def run(name: str, short: str, retrieve: Retriever, questions: Sequence[Question], ks: Sequence[int], *, timed: bool = True) -> Run:
    """Ask every question; time each call (wall clock, after one untimed warm-up call)."""
    depth = max(ks)
    if timed:
        retrieve(questions[0])
    result = Run(name, short, {}, {}, {})
    for q in questions:
        start = time.perf_counter()
        ranked = list(dict.fromkeys(retrieve(q)))[:depth]
        result.latency_ms[q.id] = (time.perf_counter() - start) * 1000
        result.ranked[q.id] = ranked
        result.hits[q.id] = evaluate(ranked, q.gold, q.stale, ks)
    if not timed:
        result.latency_ms = {}
    return result


def summary(r: Run, questions: Sequence[Question], ks: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(questions)}
    for k in ks:
        out[f"hit@{k}"] = rate(r.hits[q.id][f"hit@{k}"] for q in questions)[0]
    multi = [q for q in questions if q.type == "multi_hop"]
    for k in ks:
        out[f"multi_hop_all@{k}"] = rate(r.hits[q.id][f"all@{k}"] for q in multi)[0]
    out["stale_first"] = rate(r.hits[q.id]["stale_first"] for q in questions)[0]
    lat = [r.latency_ms[q.id] for q in questions if q.id in r.latency_ms]
    out["p50_ms"] = statistics.median(lat) if lat else None
    out["p95_ms"] = percentile(lat, 95) if lat else None
    return out


def report(runs: Sequence[Run], questions: Sequence[Question], ks: Sequence[int], md: bool) -> dict[str, Any]:
    """Print the tables for one half; return its figures."""
    h = "### " if md else ""
    header = ["system", "n"] + [f"R@{k}" for k in ks] + [f"multi-hop all@{k}" for k in ks if k > 1] + ["stale first", "p50 ms", "p95 ms"]
    rows, figures = [], {}
    for r in runs:
        s = summary(r, questions, ks)
        figures[r.name] = {"summary": s}
        rows.append([r.name, str(s["n"])] + [fmt(s[f"hit@{k}"]) for k in ks] + [fmt(s[f"multi_hop_all@{k}"]) for k in ks if k > 1]
                    + [fmt(s["stale_first"]), fmt(s["p50_ms"], 2), fmt(s["p95_ms"], 2)])
    print(table(header, rows, md))
    k5 = 5 if 5 in ks else max(ks)
    by_type: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_type[q.type].append(q)
    header2 = ["type", "n"] + [f"{r.short} R@1" for r in runs] + [f"{r.short} R@{k5}" for r in runs]
    rows2 = []
    for t in [t for t in TYPES if t in by_type] + sorted(set(by_type) - set(TYPES)):
        qs = by_type[t]
        rows2.append([t, str(len(qs))] + [fmt(rate(r.hits[q.id]["hit@1"] for q in qs)[0]) for r in runs]
                     + [fmt(rate(r.hits[q.id][f"hit@{k5}"] for q in qs)[0]) for r in runs])
        for r in runs:
            figures[r.name].setdefault("by_type", {})[t] = {
                m: rate(r.hits[q.id][m] for q in qs)[0] for m in r.hits[qs[0].id]
            }
    print(f"\n{h}By question type: R@1 and R@{k5}\n")
    print(table(header2, rows2, md))
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder with memories.jsonl, links.jsonl, questions.jsonl")
    parser.add_argument("--half", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--recipe", default=DEFAULT_RECIPES, metavar="NAME[,NAME...]", help=f"knotwork recipes, one row each (default {DEFAULT_RECIPES}); 'none' for no knotwork rows")
    parser.add_argument("--baselines", default="bm25,dense,rrf", help="comma list of bm25, dense, rrf; or none")
    parser.add_argument("--k", default="1,5,10", help="cut-offs, comma list")
    parser.add_argument("--store", type=Path, default=None, metavar="PATH", help="keep knotwork's store here; if it exists, search it instead of building it again")
    parser.add_argument("--score", type=Path, default=None, metavar="FILE", help="score this file of ranked memory ids per question instead of running any system")
    parser.add_argument("--json", type=Path, default=None, help="write every figure and each question's ranked ids here")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args(argv)

    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    wanted = [] if args.baselines.strip() == "none" else [b.strip() for b in args.baselines.split(",") if b.strip()]
    if set(wanted) - {"bm25", "dense", "rrf"} or not ks or ks[0] < 1:
        parser.error("bad --baselines" if set(wanted) - {"bm25", "dense", "rrf"} else "bad --k")
    recipes = [] if args.recipe.strip() == "none" else [r.strip() for r in args.recipe.split(",") if r.strip()]
    if args.score is None:
        check_recipes(recipes)
    md = args.markdown

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    data = load(args.data)
    halves = ["dev", "test"] if args.half == "both" else [args.half]
    questions = [q for q in data.questions if q.half in halves]
    docs = data.docs
    load_before = os.getloadavg()
    say(f"loaded {len(data.memories)} memories in {len({d.workspace for d in docs})} workspaces, "
        f"{len(data.links)} links, {len(questions)} questions ({args.half})")

    runs: list[Run] = []
    timings: dict[str, Any] = {}
    notes: list[str] = []
    if args.score is not None:
        retrieve, answered = scored_file(args.score)
        missing = [q.id for q in questions if q.id not in answered]
        notes.append(f"scored {args.score}: {len(questions) - len(missing)} questions answered, {len(missing)} missing (counted as misses)")
        runs.append(run(args.score.stem, args.score.stem, retrieve, questions, ks, timed=False))
    else:
        with tempfile.TemporaryDirectory(prefix="knotwork-codemem-") as tmp:
            if recipes:
                path = args.store or Path(tmp) / "codemem.db"
                say(f"knotwork: reusing {path}" if path.exists() else f"knotwork: add_many {len(docs)} memories, {len(data.links)} links ...")
                kw = KnotworkStore(data, path)
                timings.update(knotwork_ingest_s=kw.ingest_s, knotwork_link_s=kw.link_s, knotwork_embedder=kw.embedder_id, knotwork_store_reused=kw.reused)
                if not kw.reused:
                    say(f"  ingest {kw.ingest_s:.1f} s, links {kw.link_s:.2f} s; embedder {kw.embedder_id}")
                for recipe in recipes:
                    say(f"knotwork [{recipe}]: searching ...")
                    runs.append(run(f"knotwork [{recipe}]", recipe.removeprefix("memory_"), kw.retriever(depth=max(ks), recipe=recipe), questions, ks))
                kw.close()
        bm25, dense = baselines(docs, wanted, notes, timings, say, part="workspace", items="memories")
        runs += baseline_runs(bm25, dense, wanted, lambda name, short, retrieve: run(name, short, retrieve, questions, ks))
    load_after = os.getloadavg()

    figures: dict[str, Any] = {}
    for half in halves:
        qs = [q for q in questions if q.half == half]
        title = f"codemem, {half} half: {len(qs)} questions over {len(docs)} memories in {len({d.workspace for d in docs})} workspaces"
        print(f"\n{'## ' if md else ''}{title}\n")
        figures[half] = report(runs, qs, ks, md)
    closing(notes, load_before, load_after)

    if args.json:
        out = {
            "benchmark": "codemem",
            "data": str(args.data),
            "halves": halves,
            "ks": ks,
            "recipes": recipes,
            "machine": machine(load_before, load_after),
            "timings": timings,
            "notes": notes,
            "figures": figures,
            "questions": {
                r.name: {q.id: {"type": q.type, "half": q.half, "hits": r.hits[q.id], "ranked": r.ranked[q.id],
                         "latency_ms": r.latency_ms.get(q.id)} for q in questions}
                for r in runs
            },
        }
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
        say(f"wrote {args.json}")


if __name__ == "__main__":
    main()
