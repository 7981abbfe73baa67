"""Knowing when nothing matches: the best hit's score of answerable and unanswerable questions, per data set.

    python bench/nothing.py [--sets longmemeval,codemem,convo,convo2] [--json out.json] [--store-dir DIR]

Each set's store is built as its own bench builds it (bench/longmemeval.py, bench/codemem.py, bench/convo.py
for convo and convo2: one store per half), and every question is searched once with the default recipe and no
floor (``KNOTWORK_SEARCH_FLOOR=0`` is set here): the set's own questions (answerable; their hits scored by the
set's own ``evaluate``) and the questions of bench/data/unanswerable/ (none has an answer in its store). A floor
F answers a question with nothing when its best hit scores below F; it changes no ranking, so one run gives
every floor's figures:

- unanswerable -> nothing: the share of unanswerable questions whose best hit is below F (or that find nothing);
- the loss of each @5 metric: the mean, over the answerable questions, of that metric times "emptied by F".

The floor is chosen on the dev halves (the largest F whose loss on every set's dev half is at most 0.005, and
its nothing-rate) and reported on both halves. The questions of kind ``none`` in convo and convo2 (about
the store's people, never answered) and LongMemEval's ``_abs`` questions are reported beside them: they
ask about what the store talks of. Deterministic; CPU-heavy (LongMemEval embeds 10,866 turns; ``--lme-questions
N`` keeps N questions and their own sessions): run it with ``nice``, alone.

Each row also holds what the learned rule of src/knotwork/search/answerable.py reads. ``--fit W.json`` fits that
rule on the dev halves (of ``--fit-sets``, default every set read) and writes its weights; ``--rule W.json``
reports given weights. The shipped weights: ``--rows all.json --fit ../src/knotwork/search/data/answerable.json
--fit-sets codemem,convo,convo2`` (bench/RESULTS.md).

Every row holds what the package's rule reads, the probe-relative features included (``score_rel``,
``vector_rel``, ``vector_top_rel``: the best hit less its workspace's baseline, src/knotwork/search/baseline.py,
computed by the package at the workspace's first search). ``--probe-spread`` (with ``--store-dir`` holding this
script's stores) asks every workspace each probe and reports how far the baseline moves when the probe list
changes (the first half of the probes, the second, random halves) and for other statistics than the median;
``--margin`` (a number, or ``auto``: the 95th percentile of those moves) picks the fitted rule's threshold so
that no dev half loses more than the budget even with every baseline that much higher.
``--features`` fits on a chosen list of features (default the package's; ``search/answerable.TOGETHER`` adds
what the top five hits hold together and the query's rare words, for questions that ask for an order, a list or
a count); ``--show-halves dev`` keeps the test halves unseen while features and sets are chosen;
``--cosine-statistic mean`` takes the cosines' baselines from the probes' mean; ``--grouped`` adds a
leave-one-set-out check of the fit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["KNOTWORK_SEARCH_FLOOR"] = "0"  # measure the scores the floor would cut
os.environ["KNOTWORK_SEARCH_ANSWERABLE"] = "0"  # and what the learned rule reads, without it cutting

UNANSWERABLE = Path(__file__).resolve().parent / "data" / "unanswerable"
SETS = ("codemem", "convo", "convo2", "longmemeval")
FLOORS = [round(i * 0.0025, 4) for i in range(0, 121)]  # 0 .. 0.30
MAX_LOSS = 0.005
DEPTH = 10
SHIFTED = ("score_rel", "vector_rel", "vector_top_rel")  # the features a baseline moves, in baseline.PARTS order


class Recorded:
    """``mem.search`` as it is, noting the best hit's score of each call (None: no hit)."""

    def __init__(self, search: Callable[..., Any]) -> None:
        self.search = search
        self.top: float | None = None
        self.scores: list[float] = []  # every hit's, best first
        self.parts: dict[str, float] = {}  # the best hit's score from each stage (explain)
        self.features: dict[str, float] | None = None  # what the learned rule reads (search/answerable.py)
        self.warmed: set[str | None] = set()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        mem = self.search.__self__
        workspace = kwargs.get("workspace")
        if workspace not in self.warmed:  # the workspace's probe baseline, so that explain shows it (search/baseline.py)
            mem._baselines(workspace, mem.lexical.frequencies([], workspace)[1])
            self.warmed.add(workspace)
        hits = self.search(*args, **{**kwargs, "explain": True})
        self.top = hits[0].score if hits else None
        self.scores = [h.score for h in hits]
        self.parts = dict(hits[0].explain or {}) if hits else {}
        trace = getattr(self.search.__self__, "last_trace", None)
        self.features = trace.answerable if trace is not None else None
        return hits


def unanswerable(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (UNANSWERABLE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def half_of(u: dict[str, Any]) -> str:
    """An unanswerable question's half as reported: ``fresh`` for the third batch (a test half no choice has
    seen; asked in the test stores), else its own."""
    return "fresh" if u.get("batch") == "fresh" else u["half"]


def row(qid: str, half: str, kind: str, recorded: Recorded, hits: dict[str, Any] | None = None) -> dict[str, Any]:
    at5 = {k: float(v) for k, v in (hits or {}).items() if k.endswith("@5") and v is not None}
    return {"id": qid, "half": half, "kind": kind, "top": recorded.top, "at5": at5, "scores": recorded.scores,
            "parts": recorded.parts, "features": recorded.features}


def ask(kw: Any, retrieve: Callable[[Any], list[Any]], q: Any) -> tuple[list[Any], Recorded]:
    ranked = retrieve(q)
    return ranked, kw.mem.search


def codemem_rows(store_dir: Path, say: Callable[[str], None]) -> list[dict[str, Any]]:
    import codemem

    data = codemem.load()
    kw = codemem.KnotworkStore(data, store_dir / "nothing-codemem.db")
    kw.mem.search = Recorded(kw.mem.search)
    retrieve = kw.retriever(depth=DEPTH)
    out = []
    for q in data.questions:
        ranked, rec = ask(kw, retrieve, q)
        out.append(row(q.id, q.half, "answerable", rec, codemem.evaluate(ranked, q.gold, q.stale, (1, 5, 10))))
    for u in unanswerable("codemem"):
        kw.mem.search(u["question"], workspace=u["workspace"], limit=DEPTH)
        out.append(row(u["id"], half_of(u), "unanswerable", kw.mem.search))
    kw.close()
    return out


def convo_rows(name: str, store_dir: Path, say: Callable[[str], None]) -> list[dict[str, Any]]:
    import convo

    data = convo.load(convo.DATA.parent / name)
    out = []
    for half in ("dev", "test"):
        part = data.half(half)
        path = store_dir / f"nothing-{name}-{half}.db"
        path.unlink(missing_ok=True)  # convo's store is not reusable (its turn map is built at the add)
        kw = convo.KnotworkStore(part.turns, path)
        kw.mem.search = Recorded(kw.mem.search)
        retrieve = kw.retriever(depth=DEPTH)
        thread_of = {t.id: t.thread for t in part.turns}
        for q in part.questions:
            ranked, rec = ask(kw, retrieve, q)
            kind = "answerable" if q.gold else "own-none"
            out.append(row(q.id, half, kind, rec, convo.evaluate(ranked, q.gold, q.gold_threads, thread_of)))
        for u in unanswerable(name):
            if u["half"] == half:
                kw.mem.search(u["question"], workspace=f"convo-{u['workspace']}", limit=DEPTH)
                out.append(row(u["id"], half_of(u), "unanswerable", kw.mem.search))
        kw.close()
        say(f"  {name} {half}: {len(part.turns)} turns, {len(part.questions)} questions")
    return out


def longmemeval_rows(store_dir: Path, say: Callable[[str], None], path: Path | None = None,
                     questions: int | None = None) -> list[dict[str, Any]]:
    """LongMemEval's pool, or with ``questions`` N the N questions spread over the set and only their own
    sessions (the oracle file holds each question's evidence sessions): a smaller store, every question of it
    still answerable there, and the unanswerable ones no more answerable than in the whole pool."""
    import longmemeval as lme

    data = lme.load(path or lme.DEFAULT_DATA)
    name = "nothing-longmemeval.db"
    if questions:
        data.questions = lme.spread(data.questions, questions)
        sessions = {s for q in data.questions for s in q.answer_sessions}
        data.turns = [t for t in data.turns if t.session_id in sessions]
        name = f"nothing-longmemeval-{questions}.db"
        say(f"  longmemeval: {len(data.questions)} questions, {len(data.turns)} turns of their sessions")
    kw = lme.KnotworkStore(data.turns, store_dir / name)
    kw.mem.search = Recorded(kw.mem.search)
    retrieve = kw.retriever(depth=DEPTH)
    out = []
    for q in data.questions:
        ranked, rec = ask(kw, retrieve, q)
        kind = "own-abstention" if q.abstention else "answerable"
        out.append(row(q.id, lme.half(q.id), kind, rec, lme.evaluate(ranked, q.answer_sessions, q.answer_turns, (1, 5, 10))))
    for u in unanswerable("longmemeval"):
        kw.mem.search(u["question"], workspace=lme.WORKSPACE, limit=DEPTH)
        out.append(row(u["id"], half_of(u), "unanswerable", kw.mem.search))
    kw.close()
    return out


def unrelated_neighbours(store_dir: Path) -> dict[str, Any]:
    """How close a memory's nearest memory of an unrelated store is (codemem's notes against the convo and
    convo2 chats, each half), and the share of each store's similar slots under given floors: where a
    ``similar:`` line stops saying anything (render/relations.py). Reads the stores this script built."""
    import sqlite3

    import numpy as np

    from knotwork.store.sqlite import scaled

    def vectors(name: str) -> Any:
        with sqlite3.connect(store_dir / f"nothing-{name}.db") as conn:
            rows = conn.execute("SELECT memory_id, vector FROM memory_vectors WHERE chunk = 0").fetchall()
            slots = np.array([r[0] for r in conn.execute("SELECT score FROM memory_similar WHERE neighbour_id IS NOT NULL")])
        m = np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in scaled.unpack_rows(rows, 1)])
        return m / np.linalg.norm(m, axis=1, keepdims=True), slots

    stores = {n: vectors(n) for n in ("codemem", "convo-dev", "convo-test", "convo2-dev", "convo2-test")}
    out: dict[str, Any] = {"nearest_unrelated": {}, "slots_below": {}}
    for chat in ("convo-dev", "convo-test", "convo2-dev", "convo2-test"):
        for a, b in (("codemem", chat), (chat, "codemem")):
            nearest = (stores[a][0] @ stores[b][0].T).max(axis=1)
            out["nearest_unrelated"][f"{a} -> {b}"] = {f"p{p}": round(float(np.percentile(nearest, p)), 3) for p in (50, 90, 99)}
    for name, (_, slots) in stores.items():
        out["slots_below"][name] = {str(f): round(float((slots < f).mean()), 4) for f in (0.3, 0.35, 0.4, 0.45)}
    return out


def probe_table(store_dir: Path, probes: Sequence[str] | None = None) -> dict[str, Any]:
    """Each workspace of the stores in ``store_dir``: every probe's best hit (score, cosine, best cosine; zeros
    when it finds nothing), as the package's baseline asks them (search/baseline.py), an array probes x 3."""
    import sqlite3

    import numpy as np

    import knotwork
    from knotwork.search.baseline import PROBES

    out: dict[str, Any] = {}
    for path in sorted(store_dir.glob("nothing-*.db")):
        with sqlite3.connect(path) as conn:
            spaces = [r[0] for r in conn.execute("SELECT DISTINCT workspace FROM memories")]
        mem = knotwork.open(path)
        try:
            for ws in spaces:
                out[ws] = np.array([mem._baselines.probe(t, ws) or (0.0, 0.0, 0.0) for t in (probes or PROBES)])
        finally:
            mem.close()
    return out


STATISTICS: dict[str, Callable[[Any], Any]] = {
    "median": lambda a: __import__("numpy").median(a, axis=0),
    "mean": lambda a: a.mean(axis=0),
    "trimmed mean (middle half)": lambda a: __import__("numpy").sort(a, axis=0)[len(a) // 4: len(a) - len(a) // 4].mean(axis=0),
    "p90": lambda a: __import__("numpy").percentile(a, 90, axis=0),
}


def probe_spread(table: dict[str, Any], draws: int = 200, seed: int = 38) -> dict[str, Any]:
    """How far each workspace's baseline moves when the probe list changes: the first half of the probes, the
    second half, and ``draws`` random halves, against all of them, per statistic; the 95th percentile and the
    largest move over every workspace and draw, for each of score, cosine and best cosine."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(next(iter(table.values())))
    halves = [np.arange(n // 2), np.arange(n // 2, n)] + [rng.permutation(n)[: n // 2] for _ in range(draws)]
    out: dict[str, Any] = {}
    for name, stat in STATISTICS.items():
        moves = np.array([np.abs(stat(a[h]) - stat(a)) for a in table.values() for h in halves])  # (ws*halves) x 3
        split = np.array([np.abs(stat(a[halves[0]]) - stat(a[halves[1]])) for a in table.values()])
        out[name] = {"p95 move": [round(float(v), 4) for v in np.percentile(moves, 95, axis=0)],
                     "largest move": [round(float(v), 4) for v in moves.max(axis=0)],
                     "first vs second half, largest": [round(float(v), 4) for v in split.max(axis=0)]}
    out["baseline (median of all probes)"] = {ws: [round(float(v), 4) for v in np.median(a, axis=0)] for ws, a in table.items()}
    return out


def shifted(per_set: dict[str, list[dict[str, Any]]], by: Sequence[float]) -> dict[str, list[dict[str, Any]]]:
    """The rows as if every workspace's baseline were higher by ``by`` (score, cosine, best cosine)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, rows in per_set.items():
        out[name] = []
        for r in rows:
            if _judgeable(r) and all(k in r["features"] for k in SHIFTED):
                r = {**r, "features": {**r["features"], **{k: r["features"][k] - d for k, d in zip(SHIFTED, by)}}}
            out[name].append(r)
    return out


def rebased(per_set: dict[str, list[dict[str, Any]]], table: dict[str, Any], pick: Callable[[Any], Any],
            where: dict[str, str], default: str = "longmemeval") -> dict[str, list[dict[str, Any]]]:
    """The rows with each workspace's baseline taken as ``pick(its probe array)`` instead of the package's."""
    import numpy as np

    out: dict[str, list[dict[str, Any]]] = {}
    for name, rows in per_set.items():
        out[name] = []
        for r in rows:
            if _judgeable(r) and all(k in r["features"] for k in SHIFTED):
                a = table[r.get("workspace") or where.get(r["id"], default)]
                base, now = np.asarray(pick(a)), np.median(a, axis=0)  # the package's is the median
                r = {**r, "features": {**r["features"], **{k: r["features"][k] - float(b - m) for k, b, m in zip(SHIFTED, base, now)}}}
            out[name].append(r)
    return out


def workspaces() -> dict[str, str]:
    """Every question's workspace (rows of an earlier run do not hold it)."""
    import codemem
    import convo
    import longmemeval as lme

    out = {q.id: q.workspace for q in codemem.load().questions}
    for name in ("convo", "convo2"):
        out.update({q.id: q.workspace for q in convo.load(convo.DATA.parent / name).questions})
    for name, prefix in (("codemem", ""), ("convo", "convo-"), ("convo2", "convo-")):
        out.update({u["id"]: prefix + u["workspace"] for u in unanswerable(name)})
    out.update({u["id"]: lme.WORKSPACE for u in unanswerable("longmemeval")})
    return out


def probe_checks(per_set: dict[str, list[dict[str, Any]]], table: dict[str, Any], weights: dict[str, Any],
                 where: dict[str, str], say: Callable[[str], None]) -> dict[str, Any]:
    """How much the rule of ``weights`` hangs on the probes, on the dev halves only: each workspace's baseline
    from the first or the second half of the probes, and every workspace given one workspace's baseline (the
    lowest, a middle one, the highest): a baseline that tells stores apart only would pass those."""
    import numpy as np

    n = len(next(iter(table.values())))
    order = sorted(table, key=lambda w: float(np.median(table[w][:, 0])))
    trials: dict[str, Callable[[Any], Any]] = {
        "first half of the probes": lambda a: np.median(a[: n // 2], axis=0),
        "second half of the probes": lambda a: np.median(a[n // 2:], axis=0),
    }
    for w in (order[0], order[len(order) // 2], order[-1]):
        trials[f"every workspace given {w}'s"] = lambda a, w=w: np.median(table[w], axis=0)
    rule, out = judged_by(weights["threshold"]), {}
    for name, pick in trials.items():
        rows = rebased(per_set, table, pick, where)
        score_rows(rows, weights)
        out[name] = {n: figures(r, 0, "dev", rule) for n, r in rows.items()}
        shown = []
        for s, f in out[name].items():
            loss = max((v for k, v in f.items() if k.endswith(" loss")), default=0.0)
            shown.append(f"{s} {f.get('unanswerable -> nothing', float('nan')):.2f} / loss {loss:.3f}")
        say(f"check {name}: " + "; ".join(shown))
    return out


def figures(rows: Sequence[dict[str, Any]], floor: float, half: str,
            emptied: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """At ``floor`` (or by the rule ``emptied``), on ``half``: the share of unanswerable (and own no-answer)
    questions answered with nothing, and the loss of each @5 metric over the answerable ones."""
    def below(r: dict[str, Any]) -> bool:
        return r["top"] is None or r["top"] < floor

    emptied = emptied or below

    mine = [r for r in rows if r["half"] == half]
    out: dict[str, Any] = {}
    for kind in ("unanswerable", "own-none", "own-abstention"):
        asked = [r for r in mine if r["kind"] == kind]
        if asked:
            out[f"{kind} -> nothing"] = sum(emptied(r) for r in asked) / len(asked)
            out[f"{kind} n"] = len(asked)
    answerable = [r for r in mine if r["kind"] == "answerable"]
    metrics = sorted({m for r in answerable for m in r["at5"]})
    for m in metrics:
        scored = [r for r in answerable if m in r["at5"]]
        out[f"{m} loss"] = sum(r["at5"][m] * emptied(r) for r in scored) / len(scored)
        out[f"{m}"] = sum(r["at5"][m] for r in scored) / len(scored)
    out["answerable n"] = len(answerable)
    return out


def choose(per_set: dict[str, list[dict[str, Any]]]) -> float:
    """The largest floor whose loss on every set's dev half is at most MAX_LOSS on every @5 metric."""
    best = 0.0
    for floor in FLOORS:
        if all(v <= MAX_LOSS for rows in per_set.values() for k, v in figures(rows, floor, "dev").items() if k.endswith(" loss")):
            best = floor
        else:
            break
    return best


def _judgeable(r: dict[str, Any]) -> bool:
    return r.get("features") is not None


def fit(per_set: dict[str, list[dict[str, Any]]], out: Path, features: Sequence[str] | None = None,
        margin: Sequence[float] = (0.0, 0.0, 0.0)) -> dict[str, Any]:
    """The learned "answerable" rule (src/knotwork/search/answerable.py): a logistic regression over its
    features, fitted on the dev halves only (every set's answerable questions against its unanswerable ones;
    the own no-answer kinds are left out: they ask about what the store talks of), classes weighed alike; its
    threshold the largest whose loss on every set's dev half is at most MAX_LOSS on every @5 metric, with every
    workspace's baseline higher by ``margin`` (score, cosine, best cosine: what another probe list may move it
    by), so that such a move costs no answer. Written to ``out`` as the JSON the package reads."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from knotwork.search.answerable import FEATURES

    FEATURES = tuple(features or FEATURES)
    train = [r for rows in per_set.values() for r in rows
             if r["half"] == "dev" and r["kind"] in ("answerable", "unanswerable") and _judgeable(r)]
    x = np.array([[r["features"][f] for f in FEATURES] for r in train])
    y = np.array([r["kind"] == "answerable" for r in train], dtype=int)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit((x - mean) / scale, y)
    weights: dict[str, Any] = {
        "features": list(FEATURES), "mean": [round(float(v), 6) for v in mean], "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in lr.coef_[0]], "intercept": round(float(lr.intercept_[0]), 6), "threshold": 0.0,
        "fitted_on": {name: sum(1 for r in train if r in rows) for name, rows in per_set.items()},
    }
    low = shifted(per_set, margin)
    score_rows(low, weights)
    best = 0.0
    for t in sorted({round(r["p"], 4) for rows in low.values() for r in rows if "p" in r and r["half"] == "dev"}):
        cut = judged_by(t)
        if all(v <= MAX_LOSS for rows in low.values() for k, v in figures(rows, 0, "dev", cut).items() if k.endswith(" loss")):
            best = t
        else:
            break
    weights["threshold"] = best
    weights["margin"] = [round(float(m), 4) for m in margin]
    out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    return weights


def mean_cosines(a: Any) -> Any:
    """A workspace's baseline from its probe array: the median score, the mean of each cosine (a cosine's median
    jumps between 0 and ~0.21 with the probe list, its mean moves 0.04 at the 95th percentile: --probe-spread)."""
    import numpy as np

    return np.array([np.median(a[:, 0]), a[:, 1].mean(), a[:, 2].mean()])


def grouped(per_set: dict[str, list[dict[str, Any]]], features: Sequence[str] | None,
            margin: Sequence[float]) -> dict[str, dict[str, float]]:
    """Leave one set out: fit (as :func:`fit`, threshold by the margin rule) on the other sets' dev halves and
    score the left-out set's dev half; a feature that only tells the fitted stores apart fails here."""
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="knotwork-nothing-fold-") as tmp:
        for left in per_set:
            w = fit({k: v for k, v in per_set.items() if k != left}, Path(tmp) / "w.json", features, margin)
            one = {left: [dict(r) for r in per_set[left]]}
            score_rows(one, w)
            f = figures(one[left], 0, "dev", judged_by(w["threshold"]))
            out[left] = {"unanswerable -> nothing": f.get("unanswerable -> nothing", float("nan")),
                         "worst loss": max((v for k, v in f.items() if k.endswith(" loss")), default=0.0)}
    return out


def score_rows(per_set: dict[str, list[dict[str, Any]]], weights: dict[str, Any]) -> None:
    """Each judged row's probability ``p`` under ``weights`` (the JSON the package reads)."""
    import numpy as np

    from knotwork.search.answerable import probability

    w = {**weights, "mean": np.asarray(weights["mean"]), "scale": np.asarray(weights["scale"]), "coef": np.asarray(weights["coef"])}
    for r in (r for rows in per_set.values() for r in rows if _judgeable(r)):
        r["p"] = probability(r["features"], w)


def judged_by(threshold: float) -> Callable[[dict[str, Any]], bool]:
    """The rule at ``threshold``: a question is answered with nothing when it finds nothing or its best hit's
    probability is below it (a search the rule does not judge keeps its hits)."""
    return lambda r: r["top"] is None or ("p" in r and r["p"] < threshold)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma list of " + ", ".join(SETS))
    parser.add_argument("--json", type=Path, help="write every question's best score and the figures here")
    parser.add_argument("--store-dir", type=Path, help="keep the stores here (LongMemEval's and codemem's are reused)")
    parser.add_argument("--floor", type=float, help="report this floor instead of the one chosen on dev")
    parser.add_argument("--rows", type=Path, help="read the rows of an earlier --json instead of searching")
    parser.add_argument("--similar", action="store_true",
                        help="also measure the similar-line floor on the stores in --store-dir (after a run of codemem, convo, convo2)")
    parser.add_argument("--lme-data", type=Path, help="longmemeval_oracle.json.gz (default: bench/longmemeval.py's)")
    parser.add_argument("--fit", type=Path, help="fit the learned rule on the dev halves and write its weights here")
    parser.add_argument("--rule", type=Path, help="report the learned rule of these weights (default: the package's)")
    parser.add_argument("--fit-sets", help="comma list: fit on these sets' dev halves only (default: every set read)")
    parser.add_argument("--lme-questions", type=int, help="LongMemEval: only this many questions (spread) and their sessions")
    parser.add_argument("--probe-spread", action="store_true",
                        help="how the baseline moves with the probe list (needs --store-dir with this script's stores)")
    parser.add_argument("--margin", default="0", help="raise every baseline by this much when choosing the threshold: a number, or auto (with --probe-spread)")
    parser.add_argument("--features", help="comma list: fit on these features (default the package's)")
    parser.add_argument("--probe-checks", action="store_true",
                        help="with --probe-spread and --fit/--rule: the rule's dev figures under other probe baselines")
    parser.add_argument("--show-halves", default="dev,test,fresh", help="which halves to print (dev keeps the test halves unseen)")
    parser.add_argument("--cosine-statistic", choices=("median", "mean"), default="median",
                        help="with --probe-spread: the baseline of the two cosines from this statistic of the probes (the score's stays the median)")
    parser.add_argument("--grouped", action="store_true",
                        help="with --fit: also fit on every fitted set's dev half but one and score that one (leave one set out)")
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    if set(wanted) - set(SETS):
        parser.error(f"--sets: unknown {sorted(set(wanted) - set(SETS))}")

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    per_set: dict[str, list[dict[str, Any]]] = {}
    load = os.getloadavg()
    if args.rows:
        per_set = {k: v for k, v in json.loads(args.rows.read_text())["rows"].items() if k in wanted}
    else:
        with tempfile.TemporaryDirectory(prefix="knotwork-nothing-") as tmp:
            store_dir = args.store_dir or Path(tmp)
            store_dir.mkdir(parents=True, exist_ok=True)
            for name in wanted:
                started = time.perf_counter()
                say(f"{name}: building the store and searching ...")
                per_set[name] = (codemem_rows(store_dir, say) if name == "codemem" else longmemeval_rows(store_dir, say, args.lme_data, args.lme_questions)
                                 if name == "longmemeval" else convo_rows(name, store_dir, say))
                say(f"  {name}: {len(per_set[name])} questions in {time.perf_counter() - started:.0f} s")
    table = None
    margin = [float(args.margin)] * 3 if args.margin != "auto" else None
    if args.probe_spread:
        if not args.store_dir:
            parser.error("--probe-spread needs --store-dir")
        table = probe_table(args.store_dir)
        spread = probe_spread(table)
        say("probe spread: " + json.dumps(spread))
        if args.cosine_statistic == "mean":  # the cosines' baselines from the mean, every row rebased to it
            per_set = rebased(per_set, table, mean_cosines, workspaces())
        if margin is None:
            margin = [spread["median"]["p95 move"][0], *spread[args.cosine_statistic]["p95 move"][1:]]
    if margin is None:
        parser.error("--margin auto needs --probe-spread")
    halves = [h.strip() for h in args.show_halves.split(",") if h.strip()]
    floor = args.floor if args.floor is not None else choose(per_set)
    report: dict[str, Any] = {"floor": floor, "chosen_on": "dev" if args.floor is None else "given", "load_before": load,
                              "load_after": os.getloadavg(), "sets": {}}
    print(f"floor {floor:.4f} ({report['chosen_on']}); a query whose best hit scores below it is answered with nothing")
    for name, rows in per_set.items():
        report["sets"][name] = {half: figures(rows, floor, half) for half in halves}
        for half, f in report["sets"][name].items():
            shown = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in f.items())
            print(f"{name} {half}: {shown}")
    if args.fit or args.rule:
        if args.fit:
            chosen = [s.strip() for s in args.fit_sets.split(",")] if args.fit_sets else list(per_set)
            weights = fit({k: v for k, v in per_set.items() if k in chosen}, args.fit,
                          args.features.split(",") if args.features else None, margin)
            if args.grouped:
                report["grouped"] = grouped({k: v for k, v in per_set.items() if k in chosen},
                                            args.features.split(",") if args.features else None, margin)
                print("grouped (fitted without the set, its dev half): " + "; ".join(
                    f"{k} {v['unanswerable -> nothing']:.2f} / loss {v['worst loss']:.3f}" for k, v in report["grouped"].items()))
        else:
            weights = json.loads(args.rule.read_text(encoding="utf-8"))
        score_rows(per_set, weights)
        rule = judged_by(weights["threshold"])
        report["answerable_rule"] = {"threshold": weights["threshold"], "sets": {}}
        print(f"learned rule: threshold {weights['threshold']:.4f} (dev); coef {dict(zip(weights['features'], weights['coef']))}")
        for name, rows in per_set.items():
            report["answerable_rule"]["sets"][name] = {half: figures(rows, 0, half, rule) for half in halves}
            for half, f in report["answerable_rule"]["sets"][name].items():
                shown = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in f.items())
                print(f"rule {name} {half}: {shown}")
    if table is not None:
        report["probe_spread"] = spread
    if args.probe_checks and table is not None and (args.fit or args.rule):
        report["probe_checks"] = probe_checks(per_set, table, weights, workspaces(), print)
    if args.similar:
        report["similar"] = unrelated_neighbours(args.store_dir)
        print(json.dumps(report["similar"], indent=1))
    if args.json:
        args.json.write_text(json.dumps({**report, "rows": per_set}, indent=1))


if __name__ == "__main__":
    main()
