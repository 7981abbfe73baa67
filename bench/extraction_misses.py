"""Where the extraction fails on the corpus' dev half: missed labelled facts and wrong facts, by kind of source.

    python bench/extraction_misses.py [--corpus DIR] [--store-floor X] [--list N]

Reads only the ``## dev ...`` sections of ``bench/data/extraction_corpus/<kind>.txt`` (tune on dev; the
test half is for reporting). Prints, per kind of source and over all: the labelled facts missed, by
predicate and by how the subject is written (User, Team, other), the wrong facts stored, by predicate and
by rule family, and ``--list`` examples of each. The store floor (default ``KNOTWORK_KG_MIN_STORE``) is
applied as in ``bench/extraction.py``; ``--store-floor 0`` shows every candidate the rules propose.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from extraction import CORPUS, corpus_sets, load, predict_scored  # noqa: E402


def _subject(s: str) -> str:
    return s if s in ("user", "team") else "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--store-floor", type=float, default=None)
    parser.add_argument("--list", type=int, default=8, help="examples of misses and wrong facts per kind")
    args = parser.parse_args()
    missed_all: Counter = Counter()
    wrong_all: Counter = Counter()
    for path, _ in corpus_sets(args.corpus):
        items = [i for i in load(path, statuses=True) if i.section.split()[0] == "dev"]
        predicted = predict_scored([i.text for i in items], True, args.store_floor)
        missed: Counter = Counter()
        wrong: Counter = Counter()
        misses, wrongs = [], []
        tp = gold = 0
        for item, (_e, facts, rules, confs) in zip(items, predicted):
            gold += len(item.facts)
            tp += len(facts & item.facts)
            for f in sorted(item.facts - facts):
                missed[(f[1], _subject(f[0]))] += 1
                misses.append((item.text, f))
            for f in sorted(facts - item.facts):
                family = ":".join(rules.get(f, "?").removesuffix("/old").split(":")[:2])
                wrong[(f[1], family)] += 1
                wrongs.append((item.text, f, rules.get(f), round(confs.get(f, 1.0), 2)))
        missed_all.update(missed)
        wrong_all.update(wrong)
        print(f"\n## {path.stem} (dev): {len(items)} items, {gold} labelled facts, {tp} found, "
              f"{sum(missed.values())} missed, {sum(wrong.values())} wrong")
        print("missed (predicate, subject):", ", ".join(f"{p}/{s} {n}" for (p, s), n in missed.most_common(15)))
        print("wrong (predicate, rule family):", ", ".join(f"{p}/{r} {n}" for (p, r), n in wrong.most_common(10)))
        for text, f in misses[:args.list]:
            print(f"  MISS {f[:3]} {f[3]}  <- {text[:140]}")
        for text, f, rule, conf in wrongs[:args.list]:
            print(f"  WRONG {f[:3]} {f[3]} {rule} {conf}  <- {text[:140]}")
    print("\n## every kind (dev)")
    print("missed:", ", ".join(f"{p}/{s} {n}" for (p, s), n in missed_all.most_common(30)))
    print("wrong:", ", ".join(f"{p}/{r} {n}" for (p, r), n in wrong_all.most_common(20)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
