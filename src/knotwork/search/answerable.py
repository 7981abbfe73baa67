"""Knowing when nothing matches, by a learned rule: is the best hit of a search an answer at all?

Trigger: a score floor (:mod:`~knotwork.search.floor`) that loses no answer left 7-40% of the questions a store
cannot answer with a hit (bench/RESULTS.md): "What is the capital of Peru?" in a meeting store shares a common
word with some memory and scores like a weak answer. Why a score alone cannot tell: the fused score mixes how
much of the query a memory holds with how close its vector is, and says nothing of the query's words the store
never holds. Outcome: a logistic model over a few numbers the search has at hand, the score and its two parts
for the best hit, how much of the query's weight (IDF) the best hit holds, how much the whole store holds at all
(a name or rare word the store never saw is the strongest sign of a question it cannot answer), and the query's
length. Every number is independent of the search's ``limit``; computing them reads the idf of the query's
terms and the best hit's words (no model call, well under a millisecond).

The weights are ``data/answerable.json``, fitted by ``bench/nothing.py --fit`` on the dev halves of the sets
(answerable questions of each benchmark and bench/data/unanswerable/), its threshold chosen there so that no
set's dev half loses more than 0.005 of its recall@5. Reading them needs only the standard library and NumPy.
The rule applies where the floor does (an absolute fusion, no ``center``, no memory named by an identifier).
It is on by default (``Settings.search_answerable``): on every answerable half measured (codemem, convo, convo2,
a LongMemEval store) it lost no recall@5, so where it cannot tell an answer from none it keeps the hits, as the
search did before it; on the LongMemEval store it empties only 0.15-0.20 of the searches that have no answer.
A hit's words are those BM25 reads: its content and its names (evidence ids, artifacts, tag values).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from knotwork.search.lexical import analyze, analyze_query
from knotwork.search.speakers import names_in
from knotwork.search.when import time_window

WEIGHTS = Path(__file__).parent / "data" / "answerable.json"
FEATURES = ("score", "bm25", "vector", "bm25_top", "vector_top", "matched", "known", "names_known", "unknown_terms",
            "terms", "in_window")
#: Read from the top hits together and from the query's rare words (:func:`features`); the bench fits on them
#: when asked (bench/nothing.py --features). The shipped weights do not read them: fitted with the probe
#: baseline on all four sets they lifted LongMemEval's dev half from 0.60 to 0.80, but through ``asks_many``,
#: which holds for 46 of its 101 answerable dev questions and 2 of its 20 unanswerable ones: a style of the
#: questions more than a sign of an answer (bench/RESULTS.md, issue 38 round 4).
TOGETHER = ("matched_top", "terms_top", "rare_best", "rare_top", "asks_many", "many_matched_top")
TOP = 5  # how many hits are read together
RARE = 0.02  # a term at most this share of the workspace's memories hold is rare
#: Questions that ask for an order, a list, a count or a comparison of events: their words are spread over
#: several memories (one per event), so no single best hit holds them.
ASKS_MANY = re.compile(
    r"\b(?:order of|in what order|what order|how many|list (?:of|all|the)|"
    r"which\b.{0,60}\b(?:first|earlier|later|most recently|more|fewer)\b|first or|before or after|compared? (?:to|with))",
    re.IGNORECASE)
LATE = timedelta(days=2)  # a time told a day or two after it happened still answers (rerankers.time_window)
#: Words that say how a question is asked, not what about: left out of the shares (a store of notes that never
#: says "which" holds the question's subject all the same).
FUNCTION_WORDS = frozenset(analyze_query(
    "a an the of in on at to for from by with about into over under and or but not no is are was were be been being "
    "am do does did doing have has had having can could will would shall should may might must what which who whom "
    "whose when where why how i me my mine we us our you your he him his she her it its they them their this that "
    "these those there here some any all many much more most other one ever again also just than then so if as "
    "whats what's did i tell you remind me know"
))


def features(text: str, best_scores: Mapping[str, float], best_score: float, best_content: str,
             df: Mapping[str, int], live: int, tops: Mapping[str, float] | None = None,
             at: datetime | None = None, best_valid_at: datetime | None = None,
             top_contents: Sequence[str] = ()) -> dict[str, float]:
    """The numbers the model reads, for a query ``text`` whose best hit scored ``best_score`` (its stages'
    scores ``best_scores``, its text ``best_content``); ``df`` is each query term's document frequency among
    the ``live`` memories the search sees (0: no memory holds it); ``tops`` each source's best score (a best
    hit may have come from one source only); ``at`` when the question is asked and ``best_valid_at`` when the best
    hit became true: a question that names a time ("What did click ship in July 2023?") is answered by the
    memories of that time, whatever words they share with it. ``top_contents``: the texts of the best hits,
    best first (the best hit's included; up to :data:`TOP` are read), for the features read from them together
    (:data:`TOGETHER`): a question for an order, a list or a count of events ("What is the order of airlines I
    flew with?") has its words spread over one memory per event, so its best hit alone holds little of it."""
    terms = [t for t in analyze_query(text) if t not in FUNCTION_WORDS] or analyze_query(text)
    n = max(live, 1)
    # Lucene's idf, as BM25 weighs a term; a term no memory holds weighs what the rarest possible term would.
    weight = {t: math.log(1 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}
    total = sum(weight.values()) or 1.0
    window = time_window(text, at) if at is not None else None
    held = set(analyze(best_content))
    names = [n for n in names_in(text) if " " not in n and n not in FUNCTION_WORDS]
    name_terms = [analyze_query(n) for n in names]
    together = set(held).union(*(analyze(c) for c in top_contents[1:TOP])) if top_contents else None
    rare = [t for t in terms if 0 < df.get(t, 0) <= RARE * n]  # the store holds them, and few of its memories do
    many = float(bool(ASKS_MANY.search(text)))
    values = {
        "score": best_score,
        "bm25": float(best_scores.get("bm25", 0.0)),
        "vector": float(best_scores.get("vector", 0.0)),
        "bm25_top": float((tops or {}).get("bm25", 0.0)),
        "vector_top": float((tops or {}).get("vector", 0.0)),
        "matched": sum(w for t, w in weight.items() if t in held) / total,
        "known": sum(w for t, w in weight.items() if df.get(t, 0)) / total,
        "names_known": (sum(any(df.get(t, 0) for t in ts) for ts in name_terms) / len(name_terms)) if name_terms else 1.0,
        "unknown_terms": math.log1p(sum(1 for t in terms if not df.get(t, 0))),
        "terms": math.log1p(len(terms)),
        "in_window": float(bool(window and best_valid_at and window[0] <= best_valid_at <= window[1] + LATE)),
    }
    if together is None:  # the top hits not given: the features of the best hit only
        return values
    matched_top = sum(w for t, w in weight.items() if t in together) / total
    return {**values,
            "matched_top": matched_top,
            "terms_top": sum(1 for t in set(terms) if t in together) / max(len(set(terms)), 1),
            "rare_best": (sum(1 for t in rare if t in held) / len(rare)) if rare else 1.0,
            "rare_top": (sum(1 for t in rare if t in together) / len(rare)) if rare else 1.0,
            "asks_many": many,
            "many_matched_top": many * matched_top}


def relative(values: Mapping[str, float], baseline: Mapping[str, float]) -> dict[str, float]:
    """The best hit against what off-topic probes get in its workspace (:mod:`~knotwork.search.baseline`): its
    score, cosine and the best cosine, each less the probes' median."""
    return {"score_rel": values["score"] - baseline["score"], "vector_rel": values["vector"] - baseline["vector"],
            "vector_top_rel": values["vector_top"] - baseline["vector_top"]}


RELATIVE = ("score_rel", "vector_rel", "vector_top_rel")


def reads_relative(weights: Mapping[str, Any] | None = None) -> bool:
    """Whether the weights read the best hit against its workspace's baseline (:func:`relative`)."""
    return any(f in RELATIVE for f in (weights or model())["features"])


def reads_together(weights: Mapping[str, Any] | None = None) -> bool:
    """Whether the weights read the top hits together (:data:`TOGETHER`); when they do not, a search reads the
    best hit's words only (a search with ``explain`` still shows them all)."""
    return any(f in TOGETHER for f in (weights or model())["features"])


@lru_cache(maxsize=1)
def model(path: Path = WEIGHTS) -> dict[str, Any]:
    """The fitted weights: feature names, their mean and scale, coefficients, intercept, threshold."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {**raw, "mean": np.asarray(raw["mean"]), "scale": np.asarray(raw["scale"]), "coef": np.asarray(raw["coef"])}


def probability(values: Mapping[str, float], weights: Mapping[str, Any] | None = None) -> float:
    """How likely the search's best hit answers the query, by the fitted model."""
    w = weights or model()
    x = (np.asarray([values[f] for f in w["features"]]) - w["mean"]) / w["scale"]
    z = float(x @ w["coef"] + w["intercept"])
    return 1.0 / (1.0 + math.exp(-z))


def answerable(values: Mapping[str, float], weights: Mapping[str, Any] | None = None) -> bool:
    """Whether the best hit passes the model's threshold (chosen on the dev halves)."""
    w = weights or model()
    return probability(values, w) >= w["threshold"]


def query_df(lexical: Any, text: str, workspace: str | None) -> tuple[dict[str, int], int]:
    """Each term of ``text``'s document frequency in the memories ``workspace`` sees, and how many those are."""
    return lexical.frequencies([t for t in analyze_query(text) if t not in FUNCTION_WORDS] or analyze_query(text), workspace)
