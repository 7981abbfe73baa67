"""People under two names: how often the graph's rule ("Bob" = "Bob Martinez") joins two names, and how often rightly.

Data: ``bench/data/people_pairs.jsonl``, pairs of names the offline extraction found in one store (a lone
capitalised word and a longer name starting with it) in real text: LongMemEval (a random sample of 400 of the
3,888 such pairs of its 500 question stores), convo, convo2 and codemem (every such pair). Each row was labelled
by hand before the rule ran on it: ``same`` is true when the short name stands for the person the full name names.
``others``: the other longer names of that store starting with the same word (the rule leaves a name with two
full names alone). ``half``: dev or test, by store.

Usage: ``python bench/people.py [--data bench/data/people_pairs.jsonl] [--show]``. Deterministic; no timing.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from knotwork.knowledge.people import full_given, lone_given

DATA = Path(__file__).parent / "data" / "people_pairs.jsonl"


def joins(row: dict) -> bool:
    """Would the graph join ``short`` to ``full`` in this store?"""
    given = lone_given(row["short"], row["short_type"])
    if given is None or full_given(row["full"], row["full_type"]) != given:
        return False
    return not any(full_given(o, None) == given for o in row["others"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--show", action="store_true", help="print every pair the rule joins")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # pairs, same, joined, joined rightly
    for r in rows:
        j = joins(r)
        for key in ((r["set"], r["half"]), ("all", r["half"])):
            t = table[key]
            t[0] += 1
            t[1] += r["same"]
            t[2] += j
            t[3] += j and r["same"]
        if args.show and j:
            print(f"joined: {r['short']!r} -> {r['full']!r} ({r['set']} {r['store']}) {'right' if r['same'] else 'WRONG'}")
    print("| set | half | pairs | same person | joined | joined rightly | wrong joins | precision | recall |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (name, half), (n, same, joined, right) in sorted(table.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        precision = f"{right / joined:.2f}" if joined else "-"
        recall = f"{right / same:.2f}" if same else "-"
        print(f"| {name} | {half} | {n} | {same} | {joined} | {right} | {joined - right} | {precision} | {recall} |")


if __name__ == "__main__":
    main()
