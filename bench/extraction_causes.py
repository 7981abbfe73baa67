"""Why each missed labelled fact is missed, by predicate and by cause, on every dev half.

    python bench/extraction_causes.py [--store-floor X] [--list N] [--cause CAUSE] [--predicate P]

Reads the ``dev`` sections of the held-out set, the agents set, memory2, memory3 and every corpus kind (tune on dev; the
test halves are for reporting). A labelled fact the stored facts miss gets the first cause that fits:

- ``status``: the same (subject, predicate, object) is stored with the other status (current / over);
- ``floor``: the fact is a candidate, with its status, but under the store floor;
- ``floor-status``: a candidate under the floor, and with the other status;
- ``predicate``: a candidate (any confidence) joins the same two ends under another predicate;
- ``extent``: a candidate with the same predicate has one end the same and the other one overlapping
  (one name inside the other: "toolchain" against "Python toolchain");
- ``no-subject``: the subject is User or Team and the sentence has no first person ("I", "we", …), or
  the subject's name is not in the sentence (a pronoun, an earlier line);
- ``no-object``: the object is not in the sentence as written (the label spells it another way);
- ``sibling``: both ends are in the sentence, and a candidate of the same predicate shares one end with it (a
  list the reading did not distribute: "uses A for x and B for y");
- ``none``: both ends are in the sentence and no candidate joins them.

Per set and over every set: a table of predicate × cause, and ``--list`` examples per cause.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from extraction import (  # noqa: E402
    AGENTS, CORPUS, HELDOUT, MEMORY2, MEMORY3, corpus_sets, load, predict_scored, store_floor,
)

CAUSES = ("status", "floor", "floor-status", "predicate", "extent", "no-subject", "no-object", "sibling", "none")
_FIRST = re.compile(r"\b(?:I|me|my|mine|myself|I['’]m|I['’]ve|I['’]d|I['’]ll)\b")
_WE = re.compile(r"\b(?:we|us|our|ours|ourselves|we['’]re|we['’]ve|let['’]s)\b", re.I)


def _in(text_norm: str, name: str) -> bool:
    return bool(name) and name in text_norm


def cause(fact: tuple, text: str, stored: set[tuple], all_facts: dict[tuple, float]) -> str:
    from knotwork.knowledge.resolve import normalize

    s, p, o, st = fact
    other = "retired" if st == "current" else "current"
    if (s, p, o, other) in stored:
        return "status"
    if fact in all_facts:
        return "floor"
    if (s, p, o, other) in all_facts:
        return "floor-status"
    ends = {(c[0], c[2]) for c in all_facts if c[1] != p} | {(c[2], c[0]) for c in all_facts if c[1] != p}
    if (s, o) in ends:
        return "predicate"
    for c in all_facts:
        if c[1] != p:
            continue
        if (c[0] == s and c[2] != o and c[2] and (c[2] in o or o in c[2])) or \
                (c[2] == o and c[0] != s and c[0] and (c[0] in s or s in c[0])):
            return "extent"
    norm = normalize(text)
    if s == "user" and not _FIRST.search(text) or s == "team" and not _WE.search(text) or \
            s not in ("user", "team") and not _in(norm, s):
        return "no-subject"
    if not _in(norm, o):
        return "no-object"
    if any(c[1] == p and (c[0] == s or c[2] == o) for c in all_facts):
        return "sibling"
    return "none"


def dev_sets() -> list[tuple[str, Path]]:
    return [("heldout", HELDOUT), ("agents", AGENTS), ("memory2", MEMORY2), ("memory3", MEMORY3)] \
        + [(f"corpus/{p.stem}", p) for p, _ in corpus_sets(CORPUS)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store-floor", type=float, default=None)
    parser.add_argument("--list", type=int, default=0, help="examples per cause (per set)")
    parser.add_argument("--cause", default=None, help="list only this cause")
    parser.add_argument("--predicate", default=None, help="list only this predicate")
    parser.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    args = parser.parse_args()
    floor = store_floor() if args.store_floor is None else args.store_floor
    total: Counter = Counter()
    by_set: dict[str, Counter] = {}
    for name, path in dev_sets():
        if args.sets and name not in args.sets.split(","):
            continue
        items = [i for i in load(path, statuses=True) if i.section.split()[0] == "dev"]
        every = predict_scored([i.text for i in items], True, 0.0)
        table: Counter = Counter()
        examples: dict[str, list] = defaultdict(list)
        for item, (_e, facts, rules, confs) in zip(items, every):
            stored = {f for f in facts if confs.get(f, 1.0) >= floor}
            for f in sorted(item.facts - stored):
                c = cause(f, item.text, stored, confs)
                table[(f[1], c)] += 1
                if (args.cause in (None, c)) and (args.predicate in (None, f[1])):
                    near = sorted((k[:3], k[3][0], rules.get(k, "?"), round(v, 2)) for k, v in confs.items()
                                  if {k[0], k[2]} & {f[0], f[2]})
                    examples[c].append((item.text, f, near[:4]))
        by_set[name] = table
        total.update(table)
        n = sum(table.values())
        print(f"\n## {name} (dev): {n} missed; by cause: "
              + ", ".join(f"{c} {sum(v for (p, cc), v in table.items() if cc == c)}" for c in CAUSES))
        for c in CAUSES:
            for text, f, near in examples[c][:args.list]:
                print(f"  [{c}] {f[:3]} {f[3]}  <- {text[:160]}")
                for row in near:
                    print(f"        cand {row}")
    print("\n## every dev half: missed labelled facts, predicate × cause\n")
    preds = Counter()
    for (p, _c), v in total.items():
        preds[p] += v
    print("| predicate | " + " | ".join(CAUSES) + " | all |")
    print("|---|" + "---|" * (len(CAUSES) + 1))
    for p, n in preds.most_common():
        cells = " | ".join(str(total.get((p, c), 0) or "") for c in CAUSES)
        print(f"| {p} | {cells} | {n} |")
    cells = " | ".join(str(sum(v for (p, cc), v in total.items() if cc == c)) for c in CAUSES)
    print(f"| all | {cells} | {sum(total.values())} |")
    print("\n## by set: cause counts\n")
    print("| set | " + " | ".join(CAUSES) + " | all |")
    print("|---|" + "---|" * (len(CAUSES) + 1))
    for name, table in by_set.items():
        cells = " | ".join(str(sum(v for (p, cc), v in table.items() if cc == c)) for c in CAUSES)
        print(f"| {name} | {cells} | {sum(table.values())} |")
    print("\n## largest (predicate, cause) classes\n")
    for (p, c), v in total.most_common(20):
        kinds = ", ".join(f"{n} {t[(p, c)]}" for n, t in by_set.items() if t.get((p, c)))
        print(f"- {p} / {c}: {v} ({kinds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
