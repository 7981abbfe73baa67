"""Fit the sentence gate (src/knotwork/knowledge/data/sentence_gate.json) on the dev halves of the labelled sets.

    python bench/train_sentence_gate.py [--check] [--corpus DIR] [--out FILE]

The gate says how likely a sentence states a fact at all (knotwork.knowledge.gate). Its examples are the
sentences of the same training items as the fact scorer's (bench/train_fact_scorer.py: the dev halves of
``extraction_heldout.txt``, ``extraction_agents.txt`` and every corpus file, and all of
``extraction_labels.txt``; test halves are never read), each cut twice: by the dependency parse (as the
scorer reads a parsed memory) and by the regular-expression cutter (the fallback without spaCy).

Labels come from the items' labels: a sentence states a fact when its item labels one (``F:`` or ``R:``)
and the sentence names an end of it (its object, or its subject when that is not User or Team), or when the
item is that one sentence; every sentence of an item with no labelled fact states nothing. An item's
second sentence that names none of its facts' ends ("X is deprecated. Use Y instead.") states nothing.

Same fitting as the fact scorer (bench/calibrated_fit.py: L2 logistic regression, Platt map on out-of-fold
scores, five folds grouped by source where the corpus names one, else by item). The out-of-fold
probabilities are also what the fact scorer's training reads as its gate feature (:func:`oof_table`), so a
training candidate never sees a gate fitted on its own sentence.
``--check`` rebuilds and compares with the shipped file instead of writing it (exit 1 if they differ).
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import calibrated_fit  # noqa: E402
from extraction import CORPUS, read_line, reliability, training_sets  # noqa: E402

C = 0.5  # chosen on the dev data among 0.1, 0.25, 0.5, 1, 2 by out-of-fold log loss (see RESULTS.md)
MIN_COUNT = 3
FOLDS = 5
DIGITS = 5


@lru_cache(maxsize=2)
def rows(corpus: Path = CORPUS) -> tuple[list[tuple[str, str, str]], list[list[str]], list[int], list[int], list[str]]:
    """Per training sentence: its key (mode, item text, sentence text), features, label (1 states a fact) and
    group; and a line per set saying what was read (read once per process: the fact scorer's training reads it
    too)."""
    from knotwork.knowledge import gate
    from knotwork.knowledge.extract import _straight
    from knotwork.knowledge.nlp import pipeline
    from knotwork.knowledge.resolve import normalize
    from knotwork.knowledge.sentences import sentences

    nlp = pipeline()
    keys: list[tuple[str, str, str]] = []
    feats: list[list[str]] = []
    labels: list[int] = []
    groups: list[int] = []
    read: list[str] = []
    for path, _, dev_only, items, item_groups in training_sets(corpus):
        docs = nlp.pipe([_straight(i.text) for i in items]) if nlp is not None else [None] * len(items)
        n0 = len(labels)
        for item, doc, g in zip(items, docs, item_groups):
            ends = {e for f in item.facts for e in (f[0], f[2]) if e not in ("user", "team")}
            cuts = [("parse", s.text, s) for s in doc.sents] if doc is not None else []
            cuts += [("rules", s, None) for s in (sentences(item.text) or [item.text])]
            per_mode = {m: sum(1 for c in cuts if c[0] == m) for m in ("parse", "rules")}
            for mode, text, span in cuts:
                said = bool(item.facts) and (per_mode[mode] == 1 or any(e and e in normalize(text) for e in ends))
                keys.append((mode, item.text, text))
                feats.append(gate.features(text, span))
                labels.append(int(said))
                groups.append(g)
        read.append(read_line(path, dev_only, items, f"items, {len(labels) - n0} sentences, {sum(labels[n0:])} state a fact"))
    return keys, feats, labels, groups, read


def fit(feats: list[list[str]], labels: list[int], groups: list[int]) -> tuple[dict, np.ndarray]:
    return calibrated_fit.fit(feats, labels, groups, C, min_count=MIN_COUNT, folds=FOLDS, digits=DIGITS)


@lru_cache(maxsize=2)
def oof_table(corpus: Path = CORPUS) -> dict[tuple[str, str, str], float]:
    """Out-of-fold gate probability of each training sentence, by (mode, item text, sentence text)."""
    keys, feats, labels, groups, _ = rows(corpus)
    _, oof = fit(feats, labels, groups)
    return {k: round(float(p), 3) for k, p in zip(keys, oof)}


def render(data: dict, read: list[str]) -> str:
    data = dict(data, trained_on=read, version=1)
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    corpus = {"type": Path, "default": CORPUS, "help": "the new corpus' folder (its dev halves)"}
    args = calibrated_fit.arguments(__doc__, corpus=corpus).parse_args()

    from knotwork.knowledge import gate

    keys, feats, labels, groups, read = rows(args.corpus)
    data, oof = fit(feats, labels, groups)
    for line in read:
        print(line)
    y = np.asarray(labels)
    rows_, ece = reliability(oof, y)
    eps = 1e-6
    loss = float(-np.mean(y * np.log(np.clip(oof, eps, 1)) + (1 - y) * np.log(np.clip(1 - oof, eps, 1))))
    print(f"\n{len(y)} sentences, {int(y.sum())} state a fact ({y.mean():.3f}); {len(data['weights'])} features; "
          f"out-of-fold ECE {ece:.3f}, log loss {loss:.3f}\n")
    print("| gate probability | sentences | mean | share stating a fact |\n|---|---|---|---|")
    for b, n, mean, prec in rows_:
        print(f"| {b} | {n} | {mean:.3f} | {prec:.3f} |")
    return calibrated_fit.write_or_check(args.out or gate.WEIGHTS, render(data, read), args.check)


if __name__ == "__main__":
    sys.exit(main())
