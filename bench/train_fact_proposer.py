"""Fit the learned fact proposer (src/knotwork/knowledge/data/fact_proposer.json) on the dev halves.

    python bench/train_fact_proposer.py [--check] [--corpus DIR] [--out FILE] [--show N]

Every ordered pair of mentions of a dev-half sentence (:func:`knotwork.knowledge.proposer.pairs`) is one
example; its label is the predicate of the labelled fact between the two names, matched as
``bench/extraction.py`` scores (normalised names: the parse's phrase or the guide's cut of it,
:func:`knotwork.knowledge.proposer.guide_name`), or by the labelled end's head token (:func:`heads`: "toolchain"
and "a comprehensive Python toolchain" meet), or none. The fact's status is not learned: at run time the
rules' cues on the path between the two names say whether it is over (:func:`knotwork.knowledge.proposer.over`),
and the scoring here checks it (a fact matches only with its labelled status). Training data: the
``## dev ...`` sections of ``extraction_heldout.txt``, ``extraction_agents.txt``, every
``extraction_corpus/<kind>.txt``, ``extraction_memory2.txt`` (which the fact scorer leaves out) and
``extraction_proposer_dev.txt`` (84 sentences labelled for the proposer alone); the test halves are never
read. The older ``extraction_labels.txt`` is left out: with it (107 more labelled pairs, nearly all of them
pairs the rules already read) the dev tables below were no better (tried in round 4).

A class is a predicate of the vocabulary with at least ``MIN_POSITIVES`` labelled pairs that the rules'
stored facts (the rules' candidates scored by the shipped fact scorer, at the store floor
``KNOTWORK_KG_MIN_STORE`` as shipped) leave unrelated. Each class gets its own logistic regression (one
against the rest; scikit-learn, liblinear, L1 so that most weights are zero and the file small), fitted on
every pair, those the rules relate too (they teach each predicate's common shapes), and its own Platt map,
fitted on the out-of-fold raw scores of the pairs the rules leave unrelated, the only ones it reads at run
time (five folds grouped by source where the corpus names one, else by sentence: bench/calibrated_fit.py, as
the fact scorer and the sentence gate are fitted). A class whose Platt slope is not positive there (its
scores do not rank those pairs) is left out.

It then reads the dev halves out of fold: each pair's class is the one with the highest out-of-fold
probability, a fact when that reaches the threshold (and, at run time, the store floor too), added to the
rules' stored facts as the run time does; it prints fact precision and recall per set and per kind of source
with and without the proposer, at each threshold. The shipped ``threshold`` is the lowest at which no set's
dev precision (held-out, agents, memory2, the proposer's own sentences, the corpus' kinds pooled) falls below
its precision without the proposer while some set's recall rises (precision first); if there is none it is 1.0, which no probability reaches:
then the setting ``KNOTWORK_KG_PROPOSER`` adds nothing until a refit on more labelled text finds one.

``--check`` rebuilds and compares with the shipped file instead of writing it (exit 1 if they differ).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import calibrated_fit  # noqa: E402
from extraction import CORPUS, DATA, MEMORY2, load, read_line, store_floor, training_sets  # noqa: E402

#: labelled sentences written for the proposer alone (a dev half only: every item is training data)
PAIRS = DATA / "extraction_proposer_dev.txt"

# L1 strength: 0.25, 0.5, 1, 2 and 4 were tried on the dev data of round 4 (out of fold, the tables below); none
# gives a threshold that keeps every set's dev precision; 0.5 adds the most right facts at 0.3-0.6
C = 0.5
PENALTY = "l1"
MIN_COUNT = 10       # a feature seen in fewer pairs is left out (keeps the file small; its weight would be noise)
ALIGN = True         # labels meet mentions by head token too (heads())
MIN_POSITIVES = 8    # a predicate with fewer labelled pairs the rules leave gets no class
FOLDS = 5
DIGITS = 3
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def proposer_sets(corpus: Path = CORPUS, extra: tuple[Path, ...] = (MEMORY2, PAIRS)):
    """What ``extraction.training_sets`` yields, and the dev halves of ``extra`` (the memory-style set, which
    the fact scorer leaves out, and the proposer's own labelled sentences), each item its own fold group
    (those files name no source)."""
    yield from training_sets(corpus)
    group = 10**6
    for path in extra:
        if not path.exists():
            continue
        items = [i for i in load(path, True) if i.section.split()[0] == "dev"]
        yield path, True, True, items, list(range(group, group + len(items)))
        group += len(items)


def heads(doc, ends) -> dict[int, set[str]]:
    """The gold ends (normalised names) each token heads: an end is found as a run of the document's tokens
    whose normalised text is the end's, and carried by the run's syntactic head. So a labelled end meets the
    mention over the same head whatever words either keeps ("toolchain" and "a comprehensive Python toolchain"),
    and a pair is not taught as stating nothing because its ends were cut another way."""
    from knotwork.knowledge.resolve import normalize

    toks = list(doc)
    keys = [normalize(t.text) if any(c.isalnum() for c in t.text) else "" for t in toks]
    out: dict[int, set[str]] = defaultdict(set)
    for end in ends:
        for i in range(len(toks)):
            acc = ""
            for j in range(i, min(len(toks), i + 8)):
                acc += keys[j]
                if acc == end and keys[i]:
                    run = toks[i : j + 1]
                    ids = {t.i for t in run}
                    top = [t for t in run if t.head.i not in ids or t.head.i == t.i]
                    out[(top[-1] if top else run[-1]).i].add(end)
                    break
                if not end.startswith(acc):
                    break
    return out


def _set_name(path: Path) -> str:
    return path.stem.removeprefix("extraction_") if path.parent.name != CORPUS.name else f"corpus/{path.stem}"


def examples(sets=None):
    """Per pair: features, label (a class name or ""), fold group, item number, its ends, whether the rules'
    stored facts relate it; per item: its set, gold facts, and the rules' stored facts (as bench/extraction.py
    keys them); and what was read of each set. ``sets``: what ``extraction.training_sets`` yields (default: it)."""
    from knotwork.knowledge import proposer, scorer
    from knotwork.knowledge.extract import candidates
    from knotwork.knowledge.resolve import normalize

    floor = store_floor()
    feats, labels, groups, owner, names, covered = [], [], [], [], [], []
    items_out: list[tuple[str, set, set]] = []
    read: list[str] = []
    for path, statuses, dev_only, items, item_groups in (training_sets() if sets is None else sets):
        if not statuses:
            continue
        n0 = len(labels)
        for item, (ex, doc), g in zip(items, candidates([i.text for i in items]), item_groups):
            ex = scorer.score(ex, item.text, doc)
            base = set()
            for f in ex.facts:
                if f.confidence >= floor:
                    key = (normalize(f.subject), f.predicate, normalize(f.object))
                    base.add(key + ("retired" if f.past else "current",))
                    if f.replaces:
                        base.add((key[0], f.predicate, normalize(f.replaces), "retired"))
            gold: dict[tuple[str, str], list[str]] = defaultdict(list)
            for s, p, o, _status in sorted(item.facts):
                gold[(s, o)].append(p)
            number = len(items_out)
            items_out.append((_set_name(path), set(item.facts), base))
            if doc is None:
                continue
            carried = heads(doc, {x for pair in gold for x in pair} - {"user", "team"}) if ALIGN else {}
            for s, o, fs in proposer.pairs(doc, ex, floor, every=True):
                found = gold.get((normalize(s.name), normalize(o.name)), [])
                if not found and ALIGN:  # the labels' ends by either name or the mentions' heads (heads())
                    for ks in {normalize(x) for x in (s.name, s.cut) if x} | carried.get(s.tok.i, set()):
                        for ko in {normalize(x) for x in (o.name, o.cut) if x} | carried.get(o.tok.i, set()):
                            found = found or gold.get((ks, ko), [])
                covered.append(fs[-1] == "covered")
                feats.append(fs[:-1] if covered[-1] else fs)
                labels.append(found[0] if found else "")
                groups.append(g)
                owner.append(number)
                names.append((normalize(s.name), normalize(o.name), s.name, o.name, proposer.type_of(s),
                              proposer.type_of(o), proposer.over(s, o), normalize(o.cut) if o.cut else None))
        read.append(read_line(path, dev_only, items, f"sentences, {len(labels) - n0} pairs, "
                                                     f"{sum(1 for x in labels[n0:] if x)} labelled"))
    return feats, labels, groups, owner, names, covered, items_out, read


def classes_of(labels: list[str], covered: list[bool]) -> list[str]:
    """The predicates with ``MIN_POSITIVES`` labelled pairs the rules leave unrelated."""
    from knotwork.knowledge import vocabulary as V

    counts: dict[str, int] = defaultdict(int)
    for x, c in zip(labels, covered):
        if x and not c:
            counts[x] += 1
    return sorted(c for c, n in counts.items() if n >= MIN_POSITIVES and V.signature(c) is not None)


def fit(feats, labels, groups, covered) -> tuple[dict, list[str], np.ndarray]:
    """Each class's model data and the out-of-fold probabilities (pairs × classes). Each class learns from every
    pair, those the rules relate too (far more examples of each predicate's shapes than the pairs left to the
    proposer); its Platt map is fitted only on the pairs the rules leave unrelated, the only ones it reads at run
    time."""
    left = ~np.asarray(covered, dtype=bool)
    out, oof, classes = {}, [], []
    for c in classes_of(labels, covered):
        y = [int(x == c) for x in labels]
        data, crossed = calibrated_fit.fit(feats, y, groups, C, min_count=MIN_COUNT, folds=FOLDS, digits=DIGITS,
                                           calibrate_on=left, penalty=PENALTY)
        data.pop("version")
        if data["calibration"]["platt"][0] <= 0:  # its scores do not rank the pairs it would read: no class
            print(f"{c}: left out (Platt slope {data['calibration']['platt'][0]} on the pairs the rules leave)")
            continue
        out[c] = data
        oof.append(crossed)
        classes.append(c)
    return out, classes, np.vstack(oof).T if oof else np.zeros((len(labels), 0))


def proposed(oof: np.ndarray, classes: list[str], owner: list[int], names: list, covered: list[bool],
             threshold: float, items: list | None = None) -> dict[int, set[tuple]]:
    """Per item: the facts the proposer adds out of fold at ``threshold`` (one per pair the rules leave
    unrelated, as at run time)."""
    from knotwork.knowledge import vocabulary as V

    out: dict[int, set[tuple]] = defaultdict(set)
    best: dict[tuple, tuple[float, tuple]] = {}
    for r in range(len(owner)):
        if not classes:
            break
        if covered[r]:
            continue
        j = int(np.argmax(oof[r]))
        p = float(oof[r, j])
        if p < threshold:
            continue
        pred = classes[j]
        ns, no, s, o, st, ot, past, cut = names[r]
        if items is not None and any(k[1] == pred and k[2] in (no, cut) for k in items[owner[r]][2]):
            continue  # as proposer.readings: the rules' stored facts give the object this relation already
        if pred == "is_a" and cut:  # as proposer.object_name: a kind by the guide's extent
            no = cut
        status = "retired" if past else "current"
        if V.fit(pred, s, st, o, ot, None) <= 0:
            continue
        key = (owner[r], s.casefold(), o.casefold())
        if key not in best or p > best[key][0]:
            best[key] = (p, (ns, pred, no, status))
    for (item, _, _), (_, fact) in best.items():
        out[item].add(fact)
    return out


def table(items, added: dict[int, set[tuple]] | None) -> dict[str, tuple[int, int, int]]:
    """(right, stored, labelled) per set, per corpus kind and over the corpus."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for n, (name, gold, base) in enumerate(items):
        facts = base | (added.get(n, set()) if added else set())
        for key in {name} | ({"corpus (every kind)"} if name.startswith("corpus/") else set()):
            rows[key][0] += len(facts & gold)
            rows[key][1] += len(facts)
            rows[key][2] += len(gold)
    return {k: tuple(v) for k, v in sorted(rows.items())}


def choose(oof, classes, owner, names, covered, items) -> tuple[float, list[str]]:
    """The lowest threshold at which every set's dev precision holds and some set's recall rises, and the
    printed table."""
    base = table(items, None)
    lines = ["| threshold | set | P without | R without | P with | R with | added | added right |",
             "|---|---|---|---|---|---|---|---|"]
    chosen = 1.0
    for t in THRESHOLDS:
        added = proposed(oof, classes, owner, names, covered, t, items)
        withp = table(items, added)
        ok, gain = True, False
        for k, (r0, s0, g0) in base.items():
            r1, s1, g1 = withp[k]
            p0, p1 = (r0 / s0 if s0 else 1.0), (r1 / s1 if s1 else 1.0)
            lines.append(f"| {t:.2f} | {k} | {p0:.3f} | {r0 / g0:.3f} | {p1:.3f} | {r1 / g1:.3f} | {s1 - s0} | "
                         f"{r1 - r0} |")
            if not k.startswith("corpus/"):  # heldout, agents and the corpus pooled (a kind alone is too small)
                ok = ok and p1 >= p0 - 1e-9
            gain = gain or r1 > r0
        if ok and gain and chosen == 1.0:
            chosen = t
    return chosen, lines


def render(data: dict, threshold: float, read: list[str]) -> str:
    out = {"version": 1, "threshold": threshold, "classes": data, "trained_on": read}
    return json.dumps(out, sort_keys=True, indent=0, ensure_ascii=False, separators=(",", ":")) + "\n"


def main() -> int:
    corpus = {"type": Path, "default": CORPUS, "help": "the corpus' folder (its dev halves)"}
    show = {"type": int, "default": 0, "help": "list this many proposed facts (out of fold) at the chosen threshold"}
    args = calibrated_fit.arguments(__doc__, corpus=corpus, show=show).parse_args()
    from knotwork.knowledge import proposer

    feats, labels, groups, owner, names, covered, items, read = examples(proposer_sets(args.corpus))
    for line in read:
        print(line)
    data, classes, oof = fit(feats, labels, groups, covered)
    left = [x for x, c in zip(labels, covered) if not c]
    print(f"\n{len(labels)} pairs ({len(left)} the rules leave unrelated), {sum(1 for x in labels if x)} labelled "
          f"({sum(1 for x in left if x)}); classes: "
          + ", ".join(f"{c} ({sum(1 for x in labels if x == c)}/{sum(1 for x in left if x == c)})" for c in classes))
    threshold, lines = choose(oof, classes, owner, names, covered, items)
    print("\nout of fold, dev halves (the rules' facts at the store floor, with the proposer's added)\n")
    print("\n".join(lines))
    print(f"\nthreshold: {threshold}")
    if args.show:
        added = proposed(oof, classes, owner, names, covered, threshold if threshold < 1 else THRESHOLDS[0], items)
        for n, facts in list(added.items())[: args.show]:
            name, gold, _ = items[n]
            for f in sorted(facts):
                print(f"  {'RIGHT' if f in gold else 'WRONG'} {name} {f}")
    text = render(data, threshold, read)
    return calibrated_fit.write_or_check(args.out or proposer.WEIGHTS, text, args.check)


if __name__ == "__main__":
    sys.exit(main())
