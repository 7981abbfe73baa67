"""The fitting half of knotwork.knowledge.outside: how unlike the training memories a text is, and how sure a
fact read from such text is (src/knotwork/knowledge/data/fact_outside.json). Called by
bench/train_fact_scorer.py, which writes (or, with ``--check``, compares) the file beside the fact scorer's, so a
refit of the scorer refits this too.

- **The outside-text model** (:func:`knotwork.knowledge.outside.features`): a Platt-calibrated logistic regression
  (bench/calibrated_fit.py, C below) over the register of each training candidate's text, label 1 for the corpus'
  outside text and 0 for the older memory-style sets, folds grouped by source. It reads the text, never the
  candidate, so it cannot learn which facts are right.
- **The map for unfamiliar text**: the fact scorer is refitted once per kind of set with that kind left out
  (:func:`unfamiliar_scores`: heldout, agents, labels, the corpus; the same fit as the shipped one), so every
  candidate has the probability a scorer that never saw text of its kind gives it; a Platt map of the logit
  fitted on the corpus' candidates, with that probability and with the by-source out-of-fold one (:func:`fit`),
  says how often such a candidate is right.
- **The ramp** ``RAMP``: where the outside probability starts to pull toward the map and where it is all the
  map's. Chosen on dev, out of fold by source, among (0.5, 0.9), (0.6, 0.95) and (0.7, 1.0) with the map as
  fitted here (lowered all the way, before ``KEEP``): the held-out dev facts at 0.9 or more stay 79, 81, 81 of
  82 and memory2's 83, 84, 84 of 84; the corpus' ECE by source is 0.025, 0.017, 0.023 and, with its kind left out
  of the scorer's fit, its precision at 0.9 0.734, 0.756, 0.719.
- ``KEEP``: the lowering stops at the reading default (below).
"""

from __future__ import annotations

import numpy as np

import calibrated_fit

#: the outside-text model's L2 strength (out-of-fold AUC 0.85 by source over every candidate of both modes; not tuned)
C = 0.3
MIN_COUNT = 2
RAMP = (0.6, 0.95)
#: the lowering stops here (knotwork.knowledge.outside): the reading default, so that stored and shown facts stay
#: as they were; lowered all the way (0), the corpus' dev value-change sequences fell from 36 to 25 of 48 current
#: and its dev recall from 0.337 to 0.248 (precision 0.945 to 0.967)
KEEP = 0.7
DIGITS = 5


def kind(name: str) -> str:
    """The kind of a training set (``corpus/chat`` -> ``corpus``): the unit a scorer is refitted without."""
    return "corpus" if name.startswith("corpus/") else name


def outside_labels(tags: list[tuple[str, str, int]]) -> np.ndarray:
    return np.asarray([int(kind(t[0]) == "corpus") for t in tags])


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def unfamiliar_scores(feats: list[list[str]], labels: list[int], groups: list[int], tags: list[tuple[str, str, int]],
                      fit) -> np.ndarray:
    """Each candidate's probability from the fact scorer fitted (``fit``, the shipped fit) without its kind of set."""
    from knotwork.domain.calibrated import CalibratedLogistic

    kinds = np.asarray([kind(t[0]) for t in tags])
    out = np.zeros(len(labels))
    for k in sorted(set(kinds)):
        keep = np.flatnonzero(kinds != k)
        data, _ = fit([feats[i] for i in keep], [labels[i] for i in keep], [groups[i] for i in keep])
        model = CalibratedLogistic(data, "unfamiliar")
        for i in np.flatnonzero(kinds == k):
            out[i] = model.probability(feats[i])
    return np.round(out, DIGITS)


def _map(z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=1e6, solver="lbfgs").fit(z.reshape(-1, 1), y)
    return round(float(m.coef_[0][0]), DIGITS), round(float(m.intercept_[0]), DIGITS)


def fit(register: list[list[str]], labels: list[int], tags: list[tuple[str, str, int]], seen: np.ndarray,
        unfamiliar: np.ndarray) -> tuple[dict, np.ndarray, list[tuple[np.ndarray, tuple[float, float]]]]:
    """The file's data; the out-of-fold outside probability of every candidate; and per fold (grouped by source)
    its test rows and the unfamiliar map fitted without them (for :func:`lowered`'s out-of-fold figures).

    The map is fitted on the corpus' candidates twice over: with ``seen``, the scorer's out-of-fold probability
    with folds grouped by source (a new source of a kind the scorer was fitted on), and with ``unfamiliar``, the
    probability from a scorer fitted without the corpus (a new kind of text). Text a store meets is either; on
    dev the first alone left the map near the identity (the corpus' out-of-fold ECE is 0.10 there, and its test
    half's 0.28), the second alone made it so steep that outside text kept 0.61 at the scorer's 0.95 and, lowered
    all the way, the corpus' dev recall fell from 0.34 to 0.19."""
    from sklearn.model_selection import GroupKFold

    out = outside_labels(tags)
    sources = [t[2] for t in tags]
    data, r = calibrated_fit.fit(register, out.tolist(), sources, C, min_count=MIN_COUNT, digits=DIGITS)
    y, z = np.asarray(labels), np.concatenate([_logit(seen), _logit(unfamiliar)])

    def fitted(rows: np.ndarray) -> tuple[float, float]:
        corpus = rows[out[rows] == 1]
        return _map(np.concatenate([z[corpus], z[len(y) + corpus]]), np.concatenate([y[corpus], y[corpus]]))

    folds = [(test, fitted(train)) for train, test in GroupKFold(n_splits=5).split(register, y, sources)]
    data = dict(data, unfamiliar_map=list(fitted(np.arange(len(y)))), ramp=list(RAMP), keep=KEEP)
    return data, r, folds


def lowered(p: np.ndarray, r: np.ndarray, slope: float, intercept: float, ramp: tuple[float, float] = RAMP,
            keep: float = KEEP) -> np.ndarray:
    """knotwork.knowledge.outside.Outside.lower over arrays."""
    w = np.clip((r - ramp[0]) / (ramp[1] - ramp[0]), 0.0, 1.0)
    g = 1.0 / (1.0 + np.exp(-(slope * _logit(p) + intercept)))
    return np.where((w <= 0) | (p <= keep), p, np.maximum(keep, np.minimum(p, (1 - w) * p + w * g)))


def out_of_fold(p: np.ndarray, r: np.ndarray, folds: list[tuple[np.ndarray, tuple[float, float]]]) -> np.ndarray:
    """``p`` lowered with out-of-fold outside probabilities and maps fitted without each fold."""
    out = p.copy()
    for test, (slope, intercept) in folds:
        out[test] = lowered(p[test], r[test], slope, intercept)
    return out
