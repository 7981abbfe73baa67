"""The fitting half of knotwork's learned scorers: a logistic regression over named present-or-absent
features, Platt-calibrated, with out-of-fold probabilities from folds grouped by source. What it returns is
the JSON that ``knotwork.domain.calibrated.CalibratedLogistic`` reads at run time.

Used by bench/train_fact_scorer.py, bench/train_sentence_gate.py and bench/train_supersession_scorer.py; each rebuilds its shipped file
byte for byte (``--check``), so every rounding here is part of the file format.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def _matrix(feats: list[list[str]], vocab: dict[str, int]):
    from scipy.sparse import csr_matrix

    rows, cols = [], []
    for r, fs in enumerate(feats):
        for col in sorted({vocab[f] for f in fs if f in vocab}):
            rows.append(r)
            cols.append(col)
    return csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(feats), len(vocab)))


def _fit(x, y, c: float, w, penalty: str = "l2"):
    from sklearn.linear_model import LogisticRegression

    sparse = {"l1_ratio": 1.0} if penalty == "l1" else {}  # scikit-learn 1.8 names the L1 penalty so
    return LogisticRegression(C=c, solver="liblinear", max_iter=1000, random_state=0, **sparse).fit(
        x, y, sample_weight=w)


def _platt(logit: np.ndarray, y: np.ndarray, w):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1e6, solver="lbfgs").fit(logit, y, sample_weight=w)


def fit(feats: list[list[str]], labels: list[int], groups: list[int], c: float, *, weights: np.ndarray | None = None,
        min_count: int = 2, folds: int = 5, digits: int = 5, calibrate_on: np.ndarray | None = None,
        penalty: str = "l2") -> tuple[dict, np.ndarray]:
    """The model's data (for the JSON file) and out-of-fold probabilities: each fold's raw score from a model
    fitted without it, calibrated by a Platt map fitted without it (an honest estimate). ``weights``: one per
    example (None: all alike); a feature seen in fewer than ``min_count`` examples is left out (its weight would
    be noise). ``calibrate_on`` (a boolean mask; None: every example): the examples whose out-of-fold scores fit
    the Platt map, where the model is used on only some of the examples it learns from. ``penalty``: "l2", or
    "l1" for a sparse model (most weights exactly zero, so a small file)."""
    from sklearn.model_selection import GroupKFold

    counts: dict[str, int] = {}
    for fs in feats:
        for f in set(fs):
            counts[f] = counts.get(f, 0) + 1
    vocab = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= min_count))}
    x, y, g = _matrix(feats, vocab), np.asarray(labels), np.asarray(groups)
    w = (lambda rows: None) if weights is None else (lambda rows: weights[rows])
    split = list(GroupKFold(n_splits=folds).split(x, y, g))
    raw = np.zeros(len(y))
    for train, test in split:
        raw[test] = _fit(x[train], y[train], c, w(train), penalty).predict_proba(x[test])[:, 1]
    raw = np.round(raw, digits)
    logit = np.log(np.clip(raw, 1e-6, 1 - 1e-6) / np.clip(1 - raw, 1e-6, 1)).reshape(-1, 1)
    mask = np.ones(len(y), dtype=bool) if calibrate_on is None else np.asarray(calibrate_on, dtype=bool)
    crossed = np.zeros(len(y))
    for train, test in split:
        if len(set(y[train[mask[train]]])) == 2:  # else the fold's masked part has one label: the whole fold
            train = train[mask[train]]
        crossed[test] = _platt(logit[train], y[train], w(train)).predict_proba(logit[test])[:, 1]
    everything = np.arange(len(y))
    platt = _platt(logit[mask], y[mask], w(everything[mask]))
    model = _fit(x, y, c, w(everything), penalty)
    names = sorted(vocab, key=vocab.get)
    kept = {n: round(float(v), digits) for n, v in zip(names, model.coef_[0]) if round(float(v), digits) != 0.0}
    data = {"version": 1, "bias": round(float(model.intercept_[0]), digits), "weights": kept,
            "calibration": {"platt": [round(float(platt.coef_[0][0]), digits), round(float(platt.intercept_[0]), digits)]}}
    return data, crossed


def write_or_check(target: Path, text: str, check: bool) -> int:
    """Write the rebuilt file, or (``check``) say whether the shipped one is the same; an exit status."""
    if check:
        same = target.exists() and target.read_text(encoding="utf-8") == text
        print(f"\n{target}: {'same as a fresh rebuild' if same else 'DIFFERS from a fresh rebuild'}")
        return 0 if same else 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"\nwrote {target} ({len(text)} bytes)")
    return 0


def arguments(doc: str, **more: dict) -> argparse.ArgumentParser:
    """The options every trainer takes (``--out``, ``--check``), then ``more`` (name -> add_argument's keywords)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, spec in more.items():
        parser.add_argument(f"--{name}", **spec)
    parser.add_argument("--out", type=Path, default=None, help="write here instead of the shipped file")
    parser.add_argument("--check", action="store_true", help="compare a rebuild with the shipped file")
    return parser
