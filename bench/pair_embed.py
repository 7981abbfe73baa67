"""A learned pair model that reads which words are the value: does it carry over to a set it never saw, where the
sentence-shape rules of ``knotwork.hygiene.consolidate.decide`` do not?

Every labelled pair of the eight seen sets (supersession old, memory, fresh, fresh2, fresh3, fresh4, fresh5, and
the consolidation pairs; SUPERSEDE is the positive class) is read with the bundled embedder (knotwork's own
``make_embedder(Settings().embedder)``, the MiniLM int8 every add runs), in four ways:

- ``full``: the cosine of the two texts, the one ``decide`` is given on add;
- ``frame``: the cosine of the two texts MASKED: every token of a value kind (a number, version, amount, date, time,
  weekday, word of status or role, capitalised name; ``pair_model.tokens``) written in one text only is replaced
  by a placeholder of its kind ("Harbor's primary database is NAME NUMBER"), so two texts that say one thing of one
  subject with another value read alike, whatever the value;
- ``value``: the cosine of the two masked-out spans alone ("MySQL 5.7" / "PostgreSQL 16" near, "orders" /
  "caching" far), when both texts have one;
- ``head``: the SBERT-style pair vector of the masked frames, [|u - v|, u * v] (768 numbers).

Feature groups (``--groups``, comma-separated): ``cos`` (full, frame, value cosines, frame - full, whether each
text has a masked span, the kinds masked on each side), ``subject`` (names with their number and names of several
words: the same, shared, swapped; the first capitalised run shared), ``shape`` (bench/pair_model.py's shape-free
features, ``--strict`` set), ``head`` (the 768 numbers). A logistic regression (L2, ``--c``, standardised
features) is scored leave one whole SET out; the threshold for a held-out set is fixed without it, as
bench/pair_model.py fixes it: the lowest of 0.50 … 0.95 at which "rules OR model" keeps SUPERSEDE precision
>= 0.95 on every other set (no lower than the rules alone where those are lower: old), read from a nested
leave-one-set-out fit on the other sets alone. As on add, the model may only retire a candidate the service
would hand to ``decide`` (cosine >= ``CANDIDATE_COSINE``), and only where the rules decided ADD (their NOOP or
UPDATE stands).

Reported per held-out set: rules alone, model alone, rules OR model (P / R of SUPERSEDE, true memories lost: an
ADD or NOOP pair decided SUPERSEDE), and the model's ROC AUC on all pairs and on the pairs the rules leave.

``--trees`` fits gradient-boosted trees (interactions) instead, under the same protocol.

Run: python bench/pair_embed.py [--groups cos,subject,align,shape,head] [--c C] [--trees] [--errors N] [--show SET]
(embeddings are cached in /tmp by a hash of the texts)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

from knotwork.config import Settings
from knotwork.embed.factory import make_embedder
from knotwork.hygiene import consolidate as c

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pair_model as pm  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SETS = dict(pm.SETS, fresh5="supersession_fresh5_pairs")
NAMES = ["old", "memory", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "consolidation"]
THRESHOLDS = pm.THRESHOLDS + [0.97, 0.98, 0.99]
TARGET = pm.TARGET
BALANCE: str | None = None  # --balanced: class weights "balanced"
TREES = False  # --trees: gradient-boosted trees instead of the logistic model
VALUE_KINDS = {"number": "number", "amount": "number", "version": "number", "date": "date", "time": "time",
               "weekday": "day", "status": "status", "name": "name"}


def masked(old: str, new: str) -> tuple[str, str, str, str, set[str], set[str]]:
    """(old masked, new masked, old's masked-out words, new's, kinds masked in old, in new): a token of a value
    kind written in one text only becomes its kind's placeholder; runs of one placeholder are written once."""
    o, n = pm.tokens(old), pm.tokens(new)
    ow, nw = {t for t, _ in o}, {t for t, _ in n}

    def one(toks: list[tuple[str, str]], raw: str, other: set[str]) -> tuple[str, str, set[str]]:
        words = pm.TOKEN.findall(re.sub(r"\.js\b", "", raw))
        out, span, kinds = [], [], set()
        for (tok, kind), word in zip(toks, words):
            if kind in VALUE_KINDS and tok not in other:
                place = VALUE_KINDS[kind]
                kinds.add(place)
                span.append(word)
                if not out or out[-1] != place:
                    out.append(place)
            else:
                out.append(word)
        return " ".join(out), " ".join(span), kinds

    mo, so, ko = one(o, old, nw)
    mn, sn, kn = one(n, new, ow)
    return mo, mn, so, sn, ko, kn


STATUS_MORE = frozenset("draft accepted final rejected withdrawn deferred provisional superseded active proposed "
                        "approved implemented declined postponed abandoned".split())


def align(old: str, new: str, kinds_old: set[str], kinds_new: set[str]) -> list[str]:
    """Which words are the subject and which the value, read together: the subject is what both texts name (a
    name with its number, "PEP 747", "Node 17"; a name of several words), the value the masked-out kinds. Each
    feature is a conjunction a linear model cannot form from its parts: the subject kept and a value of one
    kind on both sides (one attribute, two values), the subject swapped and the value kept (two things, one
    value each), a status word on each side only (the closed list widened with proposal statuses)."""
    so, sn = pm.subjects(old), pm.subjects(new)
    subj = "none" if not (so or sn) else "kept" if so & sn and not (so - sn and sn - so) else (
        "swapped" if so - sn and sn - so else "one")
    swapped = kinds_old & kinds_new
    out = [f"subj:{subj}", f"subj:{subj}&swap:{bool(swapped)}"]
    out += [f"subj:{subj}&swap:{k}" for k in sorted(swapped)]
    wo = {w.lower() for w in pm.TOKEN.findall(old)}
    wn = {w.lower() for w in pm.TOKEN.findall(new)}
    st_o, st_n = (wo - wn) & (STATUS_MORE | pm.STATUS), (wn - wo) & (STATUS_MORE | pm.STATUS)
    if st_o and st_n:
        out.append(f"subj:{subj}&status_swap")
    elif st_o or st_n:
        out.append(f"subj:{subj}&status_one_side")
    if kinds_old and not kinds_new or kinds_new and not kinds_old:
        out.append(f"subj:{subj}&value_one_side")
    neg = bool(pm.NEGATION & wn) != bool(pm.NEGATION & wo)
    if neg:
        out.append(f"subj:{subj}&negation_one_side")
    return out


def embed_all(texts: list[str]) -> np.ndarray:
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    cache = Path(f"/tmp/pair_embed_{digest}.npy")
    if cache.exists():
        return np.load(cache)
    embedder = make_embedder(Settings().embedder)
    unique = sorted(set(texts))
    vecs = embedder.embed(unique)
    at = {t: i for i, t in enumerate(unique)}
    out = np.asarray([vecs[at[t]] for t in texts], dtype=np.float32)
    np.save(cache, out)
    return out


def load() -> list[dict]:
    pairs = []
    for name in NAMES:
        for line in (DATA / f"{SETS[name]}.jsonl").open(encoding="utf-8"):
            p = json.loads(line)
            p["set"] = name
            pairs.append(p)
    return pairs


def features(pairs: list[dict], groups: set[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(dense features, the full cosine, feature names) of every pair."""
    reads = [masked(p["old"], p["new"]) for p in pairs]
    n = len(pairs)
    texts = ([p["old"] for p in pairs] + [p["new"] for p in pairs] + [r[0] for r in reads] + [r[1] for r in reads]
             + [r[2] or "-" for r in reads] + [r[3] or "-" for r in reads])
    vec = embed_all(texts)
    full_o, full_n, fr_o, fr_n, sp_o, sp_n = (vec[i * n:(i + 1) * n] for i in range(6))
    full = np.einsum("ij,ij->i", full_o, full_n)
    frame = np.einsum("ij,ij->i", fr_o, fr_n)
    both = np.array([bool(r[2]) and bool(r[3]) for r in reads])
    value = np.where(both, np.einsum("ij,ij->i", sp_o, sp_n), 0.0)
    cols, names = [], []
    if "cos" in groups:
        cols += [full[:, None], frame[:, None], value[:, None], (frame - full)[:, None], both[:, None].astype(float),
                 np.array([[bool(r[2]), bool(r[3])] for r in reads], dtype=float)]
        names += ["full", "frame", "value", "frame-full", "both_values", "old_masked", "new_masked"]
        kinds = sorted(set(VALUE_KINDS.values()))
        cols.append(np.array([[k in r[4] for k in kinds] + [k in r[5] for k in kinds] for r in reads], dtype=float))
        names += [f"old:{k}" for k in kinds] + [f"new:{k}" for k in kinds]
    sparse: list[list[str]] = [[] for _ in pairs]
    if "subject" in groups:
        for fs, p in zip(sparse, pairs):
            so, sn = pm.subjects(p["old"]), pm.subjects(p["new"])
            ro, rn = pm.runs(p["old"]), pm.runs(p["new"])
            fs += [f"subject_same:{so == sn}", f"subject_shared:{bool(so & sn)}",
                   f"subject_swap:{bool(so - sn) and bool(sn - so)}", f"lead_run_shared:{bool(ro) and ro[0] in rn}"]
    if "align" in groups:
        for fs, r, p in zip(sparse, reads, pairs):
            fs += align(p["old"], p["new"], r[4], r[5])
    if "shape" in groups:
        shaped = ("jaccard:", "len_ratio:", "cos:", "gone:word", "came:word", "swap:word", "shared:word")
        for fs, p in zip(sparse, pairs):
            fs += [f for f in pm.features(p["old"], p["new"], 0.0, "-") if not f.startswith(shaped)]
    if any(sparse):
        counts: dict[str, int] = {}
        for fs in sparse:
            for f in set(fs):
                counts[f] = counts.get(f, 0) + 1
        vocab = sorted(f for f, k in counts.items() if k >= 5)
        at = {f: i for i, f in enumerate(vocab)}
        x = np.zeros((n, len(vocab)))
        for r, fs in enumerate(sparse):
            x[r, [at[f] for f in set(fs) if f in at]] = 1
        cols.append(x)
        names += vocab
    if "head" in groups:
        cols += [np.abs(fr_o - fr_n), fr_o * fr_n]
        names += [f"absdiff{i}" for i in range(fr_o.shape[1])] + [f"prod{i}" for i in range(fr_o.shape[1])]
    return np.hstack(cols).astype(np.float64), full, names


def fit_predict(x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, cc: float) -> np.ndarray:
    if TREES:  # --trees: interactions a linear model cannot form (cc unused)
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0)
        return model.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    from sklearn.linear_model import LogisticRegression

    mu, sd = x[train].mean(0), x[train].std(0) + 1e-6
    model = LogisticRegression(C=cc, max_iter=2000, class_weight=BALANCE)
    model.fit((x[train] - mu) / sd, y[train])
    return model.predict_proba((x[test] - mu) / sd)[:, 1]


def loso(x: np.ndarray, y: np.ndarray, groups: np.ndarray, rows: np.ndarray, cc: float) -> np.ndarray:
    """Out-of-set probabilities for ``rows``: each set's from a model fitted on the other sets among ``rows``."""
    out = np.zeros(len(y))
    for g in sorted(set(groups[rows].tolist())):
        test = rows[groups[rows] == g]
        out[test] = fit_predict(x, y, rows[groups[rows] != g], test, cc)
    return out


def choose(prob: np.ndarray, y: np.ndarray, rules: np.ndarray, groups: np.ndarray) -> float | None:
    """bench/pair_model.py's rule over this script's thresholds (up to 0.99): the lowest at which rules OR model
    keeps precision >= TARGET on every set given (no lower than the rules alone where those are lower)."""
    saved = pm.THRESHOLDS
    pm.THRESHOLDS = THRESHOLDS
    try:
        return pm.choose(prob, y, rules, groups)
    finally:
        pm.THRESHOLDS = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="cos,subject,shape,align", help="feature groups: cos, subject, align, shape, head")
    parser.add_argument("--c", type=float, default=0.05)
    parser.add_argument("--show", choices=NAMES, help="print that set's pairs the model adds at its threshold")
    parser.add_argument("--errors", type=int, default=0, help="print each set's N highest-scored wrong pairs")
    parser.add_argument("--trees", action="store_true", help="gradient-boosted trees instead of the logistic model")
    parser.add_argument("--balanced", action="store_true", help="weigh the two classes alike")
    args = parser.parse_args()
    global BALANCE, TREES
    BALANCE = "balanced" if args.balanced else None
    TREES = args.trees
    groups = set(args.groups.split(","))
    print(f"load average: {os.getloadavg()}; groups {sorted(groups)}; C {args.c}")
    pairs = load()
    x, full, _ = features(pairs, groups)
    rule_kind = [c.decide(p["new"], [("old", p["old"], float(s))]).kind for p, s in zip(pairs, full)]
    y = np.array([p["label"] == "SUPERSEDE" for p in pairs])
    lost_kind = np.array([p["label"] in ("ADD", "NOOP") for p in pairs])
    rules = np.array([k == "SUPERSEDE" for k in rule_kind])
    # what the service hands to decide, and where the model is asked: the rules found nothing (ADD); a NOOP or an
    # UPDATE of the rules stands
    reach = (full >= c.CANDIDATE_COSINE) & np.array([k == "ADD" for k in rule_kind])
    setid = np.array([NAMES.index(p["set"]) for p in pairs])
    everything = np.arange(len(pairs))
    prob = loso(x, y.astype(int), setid, everything, args.c)
    from sklearn.metrics import roc_auc_score as auc

    table = []
    for gi, name in enumerate(NAMES):
        inside = setid == gi
        others = everything[~inside]
        inner = loso(x, y.astype(int), setid, others, args.c)
        o = ~inside
        t = choose(np.where(reach[o], inner[o], 0.0), y[o], rules[o], setid[o])
        gy, gr, gp, gl = y[inside], rules[inside], np.where(reach[inside], prob[inside], 0.0), lost_kind[inside]
        rest = ~gr
        a_all = auc(gy, prob[inside])
        a_rest = auc(gy[rest], prob[inside][rest]) if 0 < gy[rest].sum() < rest.sum() else float("nan")
        p0, r0, tp0, s0, n0 = pm.pr(gy, gr)
        row = [name, f"{p0:.3f} ({tp0}/{s0})", f"{r0:.3f} ({tp0}/{n0})", int((gr & gl).sum())]
        if t is None:
            row += ["none: off", "-", "-", f"{p0:.3f} ({tp0}/{s0})", f"{r0:.3f}", int((gr & gl).sum())]
        else:
            m = gp >= t
            pm_, rm, tpm, sm, _ = pm.pr(gy, m)
            e = gr | m
            pe, re_, tpe, se, _ = pm.pr(gy, e)
            row += [f"{t:.2f}", f"{pm_:.3f} ({tpm}/{sm})", f"{rm:.3f}", f"{pe:.3f} ({tpe}/{se})", f"{re_:.3f} ({tpe}/{n0})",
                    int((e & gl).sum())]
            if args.show == name:
                for i in np.flatnonzero(inside):
                    if reach[i] and prob[i] >= t and not rules[i]:
                        print(f"  {pairs[i]['label']} p={prob[i]:.2f}\n    old: {pairs[i]['old']}\n    new: {pairs[i]['new']}")
        row += [f"{a_all:.3f} / {a_rest:.3f}"]
        table.append(row)
        if args.errors:
            top = sorted((i for i in np.flatnonzero(inside) if reach[i] and not y[i]), key=lambda i: -prob[i])[:args.errors]
            for i in top:
                print(f"  {pairs[i]['label']} p={prob[i]:.3f} cos={full[i]:.2f}\n    old: {pairs[i]['old']}\n    new: {pairs[i]['new']}")
        best = []
        for th in THRESHOLDS:
            e = gr | (gp >= th)
            pe, re_, tpe, se, _ = pm.pr(gy, e)
            best.append(f"{th:.2f}:{pe:.2f}/{re_:.2f}/{int((e & gl).sum())}")
        print(f"{name}: t from others {t}; rules OR model P/R/lost by t: {' '.join(best)}")
    print("\n| held-out set | rules P | rules R | lost | t (others) | model P | model R | rules OR model P | R | lost "
          "| ROC AUC all / rules leave |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(str(v) for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
