"""Fit the mention model (src/knotwork/knowledge/data/entity_mentions.json) on the dev halves of the labelled sets.

    python bench/train_entity_model.py [--check] [--errors] [--corpus DIR] [--out FILE]

The mention model says how likely an entity the offline extraction found is a named thing
(knotwork.knowledge.mentions). Its examples are the entity drafts of the same training items as the fact
scorer's (bench/train_fact_scorer.py: the dev halves of ``extraction_heldout.txt``, ``extraction_agents.txt``
and every corpus file, and all of ``extraction_labels.txt``; test halves are never read), read through the
dependency parse (without spaCy the extraction keeps every mention, so there is nothing to fit there), and
the words :func:`~knotwork.knowledge.mentions.proposals` adds (lower-case hyphenated words, Rust paths),
which stay only when the model says so. A draft is right when its normalised name is among the item's labelled entities (GUIDE.md section 3).

Same fitting as the other scorers (bench/calibrated_fit.py: L2 logistic regression, Platt map on
out-of-fold scores), with folds grouped by source everywhere (``extraction.source_groups``: a corpus
source, or an older set's section), since the checks that matter are text of sources nothing was tuned on.

The threshold a mention needs to stay (``keep`` in the file) is chosen on the out-of-fold probabilities:
the one among :data:`THRESHOLDS` with the best entity F1 over every dev set pooled, of those at which no
set's F1 falls below its F1 with every mention kept (:func:`choose`), where a set's predicted
entities are, as ``bench/extraction.py`` counts them, the kept drafts and the ends of the facts at the
store floor. The table it prints gives each set's entity precision and recall at each threshold.
``--errors`` prints, before any model, the wrong and missed entities of the dev halves by class.
``--check`` rebuilds and compares with the shipped file instead of writing it (exit 1 if they differ).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import calibrated_fit  # noqa: E402
from extraction import CORPUS, read_line, reliability, source_groups, store_floor, training_sets  # noqa: E402

C = 1.0  # chosen on the dev data among 0.25, 0.5, 1, 2, 4 by out-of-fold log loss (see RESULTS.md)
MIN_COUNT = 3
FOLDS = 5
DIGITS = 5
THRESHOLDS = (0.0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def set_name(path: Path) -> str:
    name = path.stem.removeprefix("extraction_")
    return f"corpus/{name}" if path.parent.name != "data" else name


def rows(corpus: Path = CORPUS):
    """Per draft: features, label, group, (set, item number, normalised name); per item: (set, gold entities,
    normalised ends of the facts at the store floor); a line per set saying what was read."""
    from knotwork.knowledge import mentions, scorer
    from knotwork.knowledge.extract import candidates
    from knotwork.knowledge.resolve import normalize

    floor = store_floor()
    feats, labels, groups, keys, items_out, read = [], [], [], [], [], []
    for (path, _, dev_only, items, _), by_source in zip(training_sets(corpus), source_groups(corpus)):
        n0 = len(labels)
        found = candidates([i.text for i in items])
        for item, (ex, doc), g in zip(items, found, by_source):
            ex = scorer.score(ex, item.text, doc)
            ends = mentions.fact_ends(ex)
            stored = {normalize(n) for f in ex.facts if f.confidence >= floor
                      for n in (f.subject, f.object, f.replaces) if n}
            number = len(items_out)
            items_out.append((set_name(path), item.entities, stored, item.text))
            for e in mentions.drafts(ex, doc):
                key = normalize(e.name)
                feats.append(mentions.features(e.name, e.type, e.rule, item.text, doc, ends))
                labels.append(int(key in item.entities))
                groups.append(g)
                keys.append((number, key, e.name, e.rule))
        read.append(read_line(path, dev_only, items, f"items, {len(labels) - n0} mentions, "
                                                     f"{sum(labels[n0:])} named things"))
    return feats, labels, groups, keys, items_out, read


def fit(feats, labels, groups):
    return calibrated_fit.fit(feats, labels, groups, C, min_count=MIN_COUNT, folds=FOLDS, digits=DIGITS)


def set_scores(p: np.ndarray, keys, items_out, threshold: float) -> dict[str, list[int]]:
    """Per set and pooled: [tp, fp, fn] of entities when drafts under ``threshold`` are left out."""
    kept: dict[int, set[str]] = defaultdict(set)
    for prob, (number, key, _, _) in zip(p, keys):
        if prob >= threshold:
            kept[number].add(key)
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for number, (name, gold, stored, _) in enumerate(items_out):
        predicted = kept[number] | stored
        for key in (name, "every set"):
            row = out[key]
            row[0] += len(predicted & gold)
            row[1] += len(predicted - gold)
            row[2] += len(gold - predicted)
    return out


def f1(row: list[int]) -> float:
    tp, fp, fn = row
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def pr(row: list[int]) -> str:
    tp, fp, fn = row
    return f"{tp / (tp + fp) if tp + fp else 1:.3f} / {tp / (tp + fn) if tp + fn else 1:.3f}"


def errors(keys, labels, items_out) -> None:
    """The wrong and missed entities of the dev halves, with no model, by class."""
    from knotwork.knowledge.lexicon import GENERIC_ACRONYMS, TECH

    wrong: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    drafted: dict[int, dict[str, str]] = defaultdict(dict)
    for (number, key, name, rule), y in zip(keys, labels):
        drafted[number][key] = name
    for number, (set_, gold, stored, text) in enumerate(items_out):
        predicted = set(drafted[number]) | stored
        for key in predicted - gold:
            name = drafted[number].get(key, key)
            if key in ("user", "team"):
                c = "User/Team ending no labelled fact"
            elif key in stored and key not in drafted[number]:
                c = "fact end only (not a named thing)"
            elif any(key in g or g in key for g in gold if g):
                c = "extent (overlaps a labelled entity)"
            elif name.upper() in GENERIC_ACRONYMS:
                c = "generic abbreviation"
            elif " " in name.strip() and re.search(r"(?:^|\s)-{1,2}\w|^(?:just|cargo|make|npm|uv|pnpm|yarn|pip|git)\s", name):
                c = "command line / flag"
            elif name[:1].isupper() and len(name.split()) > 1 and all(w[:1].isupper() for w in name.split()):
                c = "capitalised run (heading, title, phrase)"
            elif name[:1].isupper():
                c = "capitalised word"
            elif re.search(r"[_./()]|[a-z][A-Z]", name):
                c = "code-like word"
            else:
                c = "lower-case word or phrase"
            c = f"{set_.split('/')[0]}: wrong: {c}"
            wrong[c] += 1
            examples[c].append(name)
        for key in gold - predicted:
            if key in ("user", "team"):
                c = "User/Team"
            elif any(key in p or p in key for p in predicted if p):
                c = "extent (overlaps a predicted entity)"
            elif key not in re.sub(r"[^a-z0-9]", "", text.lower()):
                c = "not spelled in the text"
            elif key in TECH:
                c = "known technology"
            else:
                spelled = next((m.group() for m in re.finditer(r"\S+", text) if re.sub(r"[^a-z0-9]", "", m.group().lower()) == key), "")
                c = "capitalised" if spelled[:1].isupper() else "lower-case or code" if spelled else "several words"
            c = f"{set_.split('/')[0]}: missed: {c}"
            wrong[c] += 1
            examples[c].append(key)
    print("\n| class | count | examples |\n|---|---|---|")
    for c, n in sorted(wrong.items()):
        print(f"| {c} | {n} | {', '.join(examples[c][:8])} |")


def choose(tables: dict[float, dict[str, list[int]]]) -> float:
    """The threshold with the best pooled entity F1 out of fold among those at which no set's F1 (to three
    places) is lower than with every mention kept (a default must hold on every set measured); the lower one
    on a tie."""
    every = tables[0.0]
    holds = [t for t in THRESHOLDS if all(round(f1(tables[t][k]), 3) >= round(f1(every[k]), 3) for k in every)]
    return max(holds, key=lambda t: (round(f1(tables[t]["every set"]), 4), -t))


def render(data: dict, keep: float, read: list[str]) -> str:
    data = dict(data, keep=keep, trained_on=read, version=1)
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    corpus = {"type": Path, "default": CORPUS, "help": "the new corpus' folder (its dev halves)"}
    show = {"action": "store_true", "help": "print the dev halves' wrong and missed entities by class, no model"}
    args = calibrated_fit.arguments(__doc__, corpus=corpus, errors=show).parse_args()

    from knotwork.knowledge import mentions
    from knotwork.knowledge.nlp import pipeline

    if pipeline() is None:
        print("the mention model reads the dependency parse: install the English pipeline", file=sys.stderr)
        return 2
    mentions.load.cache_clear()
    feats, labels, groups, keys, items_out, read = rows(args.corpus)
    for line in read:
        print(line)
    if args.errors:
        errors(keys, labels, items_out)
        return 0
    data, oof = fit(feats, labels, groups)
    y = np.asarray(labels)
    rows_, ece = reliability(oof, y)
    eps = 1e-6
    loss = float(-np.mean(y * np.log(np.clip(oof, eps, 1)) + (1 - y) * np.log(np.clip(1 - oof, eps, 1))))
    print(f"\n{len(y)} mentions, {int(y.sum())} named things ({y.mean():.3f}); {len(data['weights'])} features; "
          f"out-of-fold ECE {ece:.3f}, log loss {loss:.3f} (folds by source)\n")
    print("| probability | mentions | mean | share named |\n|---|---|---|---|")
    for b, n, mean, prec in rows_:
        print(f"| {b} | {n} | {mean:.3f} | {prec:.3f} |")
    tables = {t: set_scores(oof, keys, items_out, t) for t in THRESHOLDS}
    names = sorted(tables[0.0])
    print("\nentity P / R out of fold, by the threshold a mention needs (0.0: every mention, as without the model)\n")
    print("| set | " + " | ".join(f"{t:.2f}" for t in THRESHOLDS) + " |")
    print("|---|" + "---|" * len(THRESHOLDS))
    for name in names:
        print(f"| {name} | " + " | ".join(pr(tables[t][name]) for t in THRESHOLDS) + " |")
    keep = choose(tables)
    print(f"\nkeep = {keep} (best pooled F1 out of fold with no set worse: {f1(tables[keep]['every set']):.3f}, "
          f"against {f1(tables[0.0]['every set']):.3f} keeping every mention)")
    return calibrated_fit.write_or_check(args.out or mentions.WEIGHTS, render(data, keep, read), args.check)


if __name__ == "__main__":
    sys.exit(main())
