"""Conversational retrieval: knotwork against BM25, dense and RRF baselines on bench/data/convo/.

    python bench/convo.py [--half dev|test] [--recipe NAME[,NAME...]|none] [--baselines bm25,dense,rrf|none]
                          [--no-thread] [--postgres] [--limit-questions N] [--data DIR] [--json out.json] [--markdown]
                          [--during-backlog]

The data (bench/data/convo/README.md) is six stores of real two-person chats,
one memory per turn, in a dev and a test half. One half goes into a fresh
knotwork store, one workspace per store: content "Speaker: text", ``valid_at``
the turn's time, ``metadata.thread`` its conversation (left out with
``--no-thread``). Each question is asked in its own store's workspace, as of
its ``asked_at``. With ``--postgres`` the store is a fresh database of a
PostgreSQL server the ``pgserver`` wheel starts in a temporary folder (the
``postgres`` extra), instead of a SQLite file. A retriever is any callable ``Question -> ranked turn ids``;
:func:`evaluate` is the only place the metrics are defined. The baselines are
bench/longmemeval.py's, imported, with one index per store.
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

from codemem import Doc, baselines
from longmemeval import baseline_runs, check_recipes, closing, fmt, machine, percentile, spread, table

DATA = Path(__file__).resolve().parent / "data" / "convo"
KS = (1, 5, 10)
KINDS = ("fact", "speaker", "paraphrase", "time", "thread", "update", "decision", "reply", "none")


# -- data -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    store: str
    half: str
    thread: str
    speaker: str
    text: str
    at: str

    @property
    def content(self) -> str:
        """What every system indexes: who spoke, then what they said."""
        return f"{self.speaker}: {self.text}"

    @property
    def workspace(self) -> str:
        return f"convo-{self.store}"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    store: str
    half: str
    kind: str
    text: str
    gold: tuple[str, ...]
    gold_threads: tuple[str, ...]
    asked_at: str

    @property
    def workspace(self) -> str:
        return f"convo-{self.store}"


@dataclass(slots=True)
class Dataset:
    turns: list[Turn]
    questions: list[Question]

    def half(self, half: str) -> Dataset:
        return Dataset([t for t in self.turns if t.half == half], [q for q in self.questions if q.half == half])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(data: Path = DATA) -> Dataset:
    """Both files, checked: every gold turn exists, in the question's store and half."""
    turns = [Turn(r["id"], r["store"], r["half"], r["thread"], r["speaker"], r["text"], r["at"])
             for r in read_jsonl(data / "turns.jsonl")]
    by_id = {t.id: t for t in turns}
    questions = []
    for r in read_jsonl(data / "questions.jsonl"):
        q = Question(r["id"], r["store"], r["half"], r["kind"], r["question"], tuple(r["gold"]),
                     tuple(r["gold_threads"]), r["asked_at"])
        for g in q.gold:
            turn = by_id.get(g)
            if turn is None or turn.store != q.store or turn.half != q.half:
                raise ValueError(f"{q.id}: gold turn {g} is not a turn of store {q.store} ({q.half})")
        questions.append(q)
    return Dataset(turns, questions)


# -- the metric: one pure function ----------------------------------------


def evaluate(ranked: Sequence[str], gold: Sequence[str], gold_threads: Sequence[str], thread_of: dict[str, str],
             ks: Sequence[int] = KS) -> dict[str, float | bool | None]:
    """Hits of one ranked list of turn ids.

    ``turn@k``: a gold turn is in the top k. ``thread@5``: one of the top 5
    turns is from a gold thread. ``rr``: 1 / rank of the first gold turn (0
    when none is in the list). All None for a question without gold (kind
    ``none``); ``empty`` (the system returned nothing) is defined for every
    question.

    >>> t = {"a#0": "a", "a#1": "a", "b#0": "b"}
    >>> evaluate(["b#0", "a#0", "a#1"], ["a#1"], ["a"], t, [1, 2, 3])
    {'turn@1': False, 'turn@2': False, 'turn@3': True, 'thread@5': True, 'rr': 0.3333333333333333, 'empty': False}
    >>> evaluate([], [], [], t, [1])
    {'turn@1': None, 'thread@5': None, 'rr': None, 'empty': True}
    """
    out: dict[str, float | bool | None] = {}
    if not gold:
        out.update({f"turn@{k}": None for k in ks})
        out.update({"thread@5": None, "rr": None})
    else:
        gold_set = set(gold)
        out.update({f"turn@{k}": any(t in gold_set for t in ranked[:k]) for k in ks})
        out["thread@5"] = any(thread_of.get(t) in set(gold_threads) for t in ranked[:5])
        first = next((i for i, t in enumerate(ranked, 1) if t in gold_set), None)
        out["rr"] = 1.0 / first if first else 0.0
    out["empty"] = not ranked
    return out


def thread_hits(ranked: Sequence[str], gold: Sequence[str], gold_threads: Sequence[str],
                thread_of: dict[str, str]) -> dict[str, bool]:
    """The right conversation, found or not: threads ranked by their best turn in ``ranked``.

    ``thread#1``: the first thread is a gold one. ``thread_only``: it is, and
    no gold turn is in the top 5 (the right session but not the turn).

    >>> t = {"a#0": "a", "a#1": "a", "b#0": "b"}
    >>> thread_hits(["a#0", "b#0", "a#1"], ["a#1"], ["a"], t)
    {'thread#1': True, 'thread_only': False}
    >>> thread_hits(["b#0", "a#0"], ["a#1"], ["a"], t)
    {'thread#1': False, 'thread_only': False}
    >>> thread_hits(["a#0", "b#0"], ["a#1"], ["a"], t)
    {'thread#1': True, 'thread_only': True}
    """
    threads = list(dict.fromkeys(thread_of[t] for t in ranked if t in thread_of))
    first = bool(threads) and threads[0] in set(gold_threads)
    return {"thread#1": first, "thread_only": first and not any(t in set(gold) for t in ranked[:5])}


# -- retrievers -----------------------------------------------------------

Retriever = Callable[[Question], list[str]]


class KnotworkStore:
    """knotwork through its public API: ``add_many`` per store into one fresh SQLite file, then ``search``.

    knotwork stores the same content in one workspace once ("Ava: Hello?"
    opens several chats), so a memory may stand for several turns; a hit on
    it counts as all of them, in the order they were added. Each memory
    carries the turn id in ``metadata["convo_turn"]``. knotwork is opened with
    its own settings (``KNOTWORK_*`` environment variables apply); only the
    database path is the bench's.
    """

    def __init__(self, turns: Sequence[Turn], path: Path | str, *, thread: bool = True, batch: int = 500,
                 wait_for_graph: bool = True) -> None:
        import knotwork

        self.mem = knotwork.open(path)
        embedder = getattr(self.mem, "embedder", None)
        self.embedder_id = getattr(embedder, "model_id", None) if embedder is not None else None
        self.thread = thread
        self.turns_of: dict[str, list[str]] = defaultdict(list)
        self.merged = 0
        start = time.perf_counter()
        for i in range(0, len(turns), batch):
            chunk = turns[i : i + batch]
            stored = self.mem.add_many([self._item(t) for t in chunk], consolidate=False, force=True)
            for turn, memory in zip(chunk, stored, strict=True):
                self.turns_of[memory.id].append(turn.id)
                self.merged += bool(memory.duplicate)
        if wait_for_graph:
            self.mem.wait_for_extraction()  # the graph too: recipes read its mentions (enrichment runs after the add)
        self.ingest_s = time.perf_counter() - start
        self.stored = self.mem.store.count_memories()

    def _item(self, t: Turn) -> dict[str, Any]:
        metadata: dict[str, Any] = {"convo_turn": t.id}
        if self.thread:
            metadata["thread"] = t.thread
        return {"content": t.content, "workspace": t.workspace, "category": "conversation",
                "valid_at": t.at, "metadata": metadata}

    def retriever(self, *, depth: int, recipe: str | None = None) -> Retriever:
        """``search`` in the question's store, as of its ``asked_at``; knotwork's default recipe when None."""
        kwargs: dict[str, Any] = {} if recipe is None else {"recipe": recipe}

        def retrieve(q: Question) -> list[str]:
            hits = self.mem.search(q.text, workspace=q.workspace, limit=depth, now=q.asked_at, **kwargs)
            ranked: list[str] = []
            for hit in hits:
                ranked.extend(self.turns_of.get(hit.memory.id) or [hit.memory.metadata["convo_turn"]])
            return ranked[:depth]

        return retrieve

    def close(self) -> None:
        self.mem.close()


def postgres_database(folder: Path) -> tuple[Any, str]:
    """A PostgreSQL server from the ``pgserver`` wheel in ``folder`` and the URL of a fresh database on it."""
    from urllib.parse import urlsplit, urlunsplit

    import pgserver
    import psycopg

    server = pgserver.get_server(folder, cleanup_mode="delete")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS knotwork_convo")
        conn.execute("CREATE DATABASE knotwork_convo")
    return server, urlunsplit(urlsplit(server.get_uri())._replace(path="/knotwork_convo"))


# -- running and reporting ------------------------------------------------


@dataclass(slots=True)
class Run:
    name: str
    short: str
    ranked: dict[str, list[str]]
    hits: dict[str, dict[str, float | bool | None]]
    latency_ms: dict[str, float]


def run(name: str, short: str, retrieve: Retriever, questions: Sequence[Question], thread_of: dict[str, str]) -> Run:
    """Ask every question; time each call (wall clock, after one untimed warm-up call)."""
    depth = max(KS)
    retrieve(questions[0])
    result = Run(name, short, {}, {}, {})
    for q in questions:
        start = time.perf_counter()
        ranked = list(dict.fromkeys(retrieve(q)))[:depth]
        result.latency_ms[q.id] = (time.perf_counter() - start) * 1000
        result.ranked[q.id] = ranked
        result.hits[q.id] = evaluate(ranked, q.gold, q.gold_threads, thread_of)
    return result


def mean(values: Sequence[float | bool | None]) -> float | None:
    defined = [float(v) for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def summary(r: Run, questions: Sequence[Question]) -> dict[str, Any]:
    answerable = [q for q in questions if q.gold]
    unanswerable = [q for q in questions if not q.gold]
    out: dict[str, Any] = {"n": len(answerable), "n_none": len(unanswerable)}
    for k in KS:
        out[f"turn@{k}"] = mean([r.hits[q.id][f"turn@{k}"] for q in answerable])
    out["thread@5"] = mean([r.hits[q.id]["thread@5"] for q in answerable])
    out["mrr"] = mean([r.hits[q.id]["rr"] for q in answerable])
    out["none_empty"] = mean([r.hits[q.id]["empty"] for q in unanswerable])  # abstained where there is nothing
    out["answerable_empty"] = mean([r.hits[q.id]["empty"] for q in answerable])  # abstained where there is
    lat = [r.latency_ms[q.id] for q in questions]
    out["p50_ms"] = statistics.median(lat)
    out["p95_ms"] = percentile(lat, 95)
    return out


def report(runs: Sequence[Run], questions: Sequence[Question], md: bool) -> dict[str, Any]:
    """Print the tables; return the figures."""
    figures: dict[str, Any] = {}
    header = ["system", "n", "turn R@1", "turn R@5", "turn R@10", "thread R@5", "MRR", "none: empty", "p50 ms", "p95 ms"]
    rows = []
    for r in runs:
        s = summary(r, questions)
        figures[r.name] = {"summary": s, "by_kind": {}}
        rows.append([r.name, str(s["n"]), fmt(s["turn@1"]), fmt(s["turn@5"]), fmt(s["turn@10"]), fmt(s["thread@5"]),
                     fmt(s["mrr"]), fmt(s["none_empty"]), fmt(s["p50_ms"], 2), fmt(s["p95_ms"], 2)])
    print(table(header, rows, md))
    by_kind: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_kind[q.kind].append(q)
    header2 = ["kind", "n"] + [f"{r.short} R@5" for r in runs] + [f"{r.short} thr@5" for r in runs]
    rows2 = []
    for kind in [k for k in KINDS if k in by_kind and k != "none"]:
        qs = by_kind[kind]
        rows2.append([kind, str(len(qs))] + [fmt(mean([r.hits[q.id]["turn@5"] for q in qs])) for r in runs]
                     + [fmt(mean([r.hits[q.id]["thread@5"] for q in qs])) for r in runs])
        for r in runs:
            figures[r.name]["by_kind"][kind] = {m: mean([r.hits[q.id][m] for q in qs]) for m in ("turn@1", "turn@5", "turn@10", "thread@5", "rr")}
    print(f"\n{'### ' if md else ''}By question kind: turn R@5 and thread R@5\n")
    print(table(header2, rows2, md))
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder with turns.jsonl and questions.jsonl")
    parser.add_argument("--half", choices=("dev", "test"), default="dev")
    parser.add_argument("--recipe", default=None, metavar="NAME[,NAME...]",
                        help="knotwork recipe(s), one row each over the same store (default: knotwork's default); 'none' for no knotwork row")
    parser.add_argument("--baselines", default="bm25,dense,rrf", help="comma list of bm25, dense, rrf; or none")
    parser.add_argument("--no-thread", action="store_true", help="load the turns without metadata.thread")
    parser.add_argument("--postgres", action="store_true",
                        help="knotwork's store in PostgreSQL (a server the pgserver wheel starts in a temporary folder)")
    parser.add_argument("--limit-questions", type=int, default=None, metavar="N", help="ask N questions spread over the half")
    parser.add_argument("--json", type=Path, default=None, help="write every figure and each question's ranked turns here")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--during-backlog", action="store_true",
                        help="ask the questions once while the graph is still read in after the load (the worker of "
                             "KNOTWORK_ENRICH runs meanwhile), then again once it is: search p95 during the backlog "
                             "against after it, in one run (the issue-37 target: during <= 1.3x after)")
    args = parser.parse_args(argv)

    wanted = [] if args.baselines.strip() == "none" else [b.strip() for b in args.baselines.split(",") if b.strip()]
    if set(wanted) - {"bm25", "dense", "rrf"}:
        parser.error(f"--baselines: unknown {', '.join(sorted(set(wanted) - {'bm25', 'dense', 'rrf'}))}")
    if args.limit_questions is not None and args.limit_questions < 1:
        parser.error("--limit-questions: must be at least 1")
    if args.recipe is None:
        recipes: list[str | None] = [None]
    elif args.recipe.strip() == "none":
        recipes = []
    else:
        recipes = [r.strip() for r in args.recipe.split(",") if r.strip()]
    check_recipes([r for r in recipes if r])
    try:
        data = load(args.data).half(args.half)
    except (OSError, ValueError, KeyError) as exc:
        parser.error(f"--data {args.data}: {exc}")
    md = args.markdown

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    questions = spread(data.questions, args.limit_questions)
    turns = data.turns
    thread_of = {t.id: t.thread for t in turns}
    stores = sorted({t.store for t in turns})
    load_before = os.getloadavg()
    say(f"{args.half}: {len(turns)} turns in {len(stores)} stores ({', '.join(stores)}), "
        f"{len({t.thread for t in turns})} threads; {len(questions)} questions")

    runs: list[Run] = []
    timings: dict[str, Any] = {}
    notes: list[str] = []
    if recipes:
        with tempfile.TemporaryDirectory(prefix="knotwork-convo-") as tmp:
            server = None
            target: Path | str = Path(tmp) / "convo.db"
            if args.postgres:
                server, target = postgres_database(Path(tmp) / "pg")
            say(f"knotwork: add_many {len(turns)} turns" + (" without metadata.thread" if args.no_thread else "")
                + (" into PostgreSQL" if args.postgres else "") + " ...")
            kw = KnotworkStore(turns, target, thread=not args.no_thread, wait_for_graph=not args.during_backlog)
            if args.during_backlog:
                kw.mem.start_enrichment_worker()
                pending = kw.mem.graph_backlog()
                name = "knotwork (default), during the backlog"
                say(f"{name}: searching with {pending} memories still to read into the graph ...")
                runs.append(run(name, "kw-during", kw.retriever(depth=max(KS)), questions, thread_of))
                left = kw.mem.graph_backlog()
                waited = time.perf_counter()
                kw.mem.wait_for_extraction()
                timings.update(backlog_at_start=pending, backlog_at_end=left,
                               graph_wait_s=time.perf_counter() - waited)
                say(f"  backlog {pending} -> {left} while the questions were asked; the rest read in {timings['graph_wait_s']:.1f} s later")
                if not left:
                    notes.append("the graph caught up before the last question: the 'during' run is partly after the backlog")
                cache = getattr(kw.mem.embedder, "query_cache", None)
                if cache is not None:  # the run after asks the same questions: it must embed them again, as the first did
                    with cache._lock:
                        cache._data.clear()
            timings.update(knotwork_ingest_s=kw.ingest_s, knotwork_memories_stored=kw.stored,
                           knotwork_turns_merged=kw.merged, knotwork_embedder=kw.embedder_id)
            say(f"  {kw.ingest_s:.1f} s; {kw.stored} memories ({kw.merged} turns identical to an earlier one in their store); embedder {kw.embedder_id}")
            for recipe in recipes:
                name = f"knotwork [{recipe}]" if recipe else "knotwork (default)"
                say(f"{name}: searching ...")
                runs.append(run(name, recipe.removeprefix("memory_") if recipe else "kw", kw.retriever(depth=max(KS), recipe=recipe), questions, thread_of))
            kw.close()
            if server is not None:
                server.cleanup()
        notes.append(f"knotwork: {kw.stored} memories for {len(turns)} turns (identical turns of a store stored once; a hit counts as each of them)"
                     + ("; loaded without metadata.thread" if args.no_thread else "") + ("; store in PostgreSQL (pgserver)" if args.postgres else ""))
    docs = [Doc(t.id, t.content, t.workspace) for t in turns]
    bm25, dense = baselines(docs, wanted, notes, timings, say, part="store", items="turns")
    runs += baseline_runs(bm25, dense, wanted, lambda name, short, retrieve: run(name, short, retrieve, questions, thread_of))
    if not runs:
        parser.error("nothing to run: --recipe none and --baselines none")
    load_after = os.getloadavg()

    n_none = sum(1 for q in questions if not q.gold)
    title = (f"{args.data.name}, {args.half} half: {len(questions) - n_none} answerable questions (+{n_none} without evidence) "
             f"over {len(turns)} turns in {len(stores)} stores")
    print(f"\n{'## ' if md else ''}{title}\n")
    figures = report(runs, questions, md)
    if args.during_backlog and recipes:
        during = summary(runs[0], questions)["p95_ms"]
        after = summary(runs[1], questions)["p95_ms"]
        print(f"\nsearch p95 during the backlog {during:.2f} ms, after it {after:.2f} ms: {during / after:.2f}x (target <= 1.3x)")
        timings.update(p95_during_ms=during, p95_after_ms=after)
    print("\nturn R@k: a gold turn in the top k; thread R@5: a top-5 turn from a gold thread; MRR over the top 10;"
          " none: empty = share of no-evidence questions answered with no result.")
    closing(notes, load_before, load_after)

    if args.json:
        out = {
            "benchmark": "convo", "data": str(args.data), "half": args.half, "no_thread": args.no_thread,
            "recipes": recipes, "ks": list(KS), "backend": "postgresql" if args.postgres else "sqlite",
            "machine": machine(load_before, load_after),
            "timings": timings, "notes": notes, "figures": figures,
            "questions": {r.name: {q.id: {"kind": q.kind, "hits": r.hits[q.id], "ranked": r.ranked[q.id],
                                          "latency_ms": r.latency_ms[q.id]} for q in questions} for r in runs},
        }
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
        say(f"wrote {args.json}")


if __name__ == "__main__":
    main()
