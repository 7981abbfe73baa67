"""Supersession in the graph on labelled pairs: does the newer memory's fact retire the older memory's fact
when it should, and only then?

Pairs: bench/data/supersession_memory_pairs.jsonl and bench/data/supersession_pairs.jsonl (dev and test
halves, labels written before any rule ran; bench/data/supersession_memory_pairs.md). Each pair's two texts
are read by the offline extraction (the shipped scorer; candidates under the store floor are not stored), and
the pair counts as retired in the graph when a fact of the new text has the subject and a single-valued
predicate (the ``kg_single_valued`` setting) of a fact of the old text and another object: what
knowledge/facts.py's ``plan`` does with the two facts when the new one is dated later. A fact of the new text
that repeats one of the old text's (same object) is no change.

Reported per half: how many pairs the graph retires, and of those how many are labelled SUPERSEDE
(precision), how many of the SUPERSEDE pairs it retires (recall), with the predicates it retired under;
``--rules`` counts only the facts of rules whose name ends in one of the given names (e.g. ``attr-possessive
attr-of role-of schedule``). ``--show`` prints the retiring pairs of a half.

Run: python bench/graph_supersession.py [--set memory|old|both] [--half dev|test|both] [--rules NAME ...] [--show]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
SETS = {"memory": DATA / "supersession_memory_pairs.jsonl", "old": DATA / "supersession_pairs.jsonl"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("memory", "old", "both"), default="both")
    ap.add_argument("--half", choices=("dev", "test", "both"), default="dev")
    ap.add_argument("--rules", nargs="*", default=None)
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()

    from knotwork.config import Settings
    from knotwork.knowledge.extract import extract_many
    from knotwork.knowledge.resolve import normalize

    settings = Settings()
    exact = {p for p in settings.kg_single_valued if not p.endswith("*")}
    prefixes = tuple(p[:-1] for p in settings.kg_single_valued if p.endswith("*"))

    def single(p: str) -> bool:
        return p in exact or p.startswith(prefixes)

    def facts(ex) -> set[tuple[str, str, str]]:
        return {(normalize(f.subject), f.predicate, normalize(f.object)) for f in ex.facts
                if f.confidence >= settings.kg_min_store and not f.past and single(f.predicate)
                and (args.rules is None or (f.rule or "").split(":")[-1] in args.rules)}

    names = ("memory", "old") if args.set == "both" else (args.set,)
    halves = ("dev", "test") if args.half == "both" else (args.half,)
    print("| set | half | pairs | SUPERSEDE | retired in the graph | of them SUPERSEDE | precision | recall |")
    print("|---|---|---|---|---|---|---|---|")
    shown: list[str] = []
    for name in names:
        pairs = [json.loads(line) for line in SETS[name].read_text(encoding="utf-8").splitlines() if line.strip()]
        for half in halves:
            part = [p for p in pairs if p["split"] == half]
            exs = extract_many([t for p in part for t in (p["old"], p["new"])])
            retired = right = 0
            preds: Counter[str] = Counter()
            for i, p in enumerate(part):
                old, new = facts(exs[2 * i]), facts(exs[2 * i + 1])
                hits = [(o, n) for o in old for n in new if o[:2] == n[:2] and o[2] != n[2] and n not in old]
                if not hits:
                    continue
                retired += 1
                right += p["label"] == "SUPERSEDE"
                preds.update(n[1] for _, n in hits[:1])
                if args.show:
                    shown.append(f"{name}/{half} {p['label']}: {p['old']!r} -> {p['new']!r}: {hits[0][0]} -> {hits[0][1]}")
            gold = sum(p["label"] == "SUPERSEDE" for p in part)
            prec = f"{right / retired:.3f}" if retired else "-"
            print(f"| {name} | {half} | {len(part)} | {gold} | {retired} | {right} | {prec} | {right / max(gold, 1):.3f} |")
            if preds:
                print(f"|   | predicates: {', '.join(f'{k} {v}' for k, v in preds.most_common())} | | | | | | |")
    for line in shown:
        print(line)


if __name__ == "__main__":
    main()
