"""Supersession on labelled pairs: does a newer memory retire an older one when it should, and only then?

Pairs: two labelled sets, each with a dev and a test half (labels written before any rule ran):
``old``, bench/data/supersession_pairs.jsonl (documentation revisions; bench/data/supersession_pairs.md), and
``memory``, bench/data/supersession_memory_pairs.jsonl (the same question in memory wording: roles, cities,
employers, version floors, tools, defaults; bench/data/supersession_memory_pairs.md), and ``fresh``,
bench/data/supersession_fresh_pairs.jsonl (one held-out half, ``test2``: memory wording from sources neither other
set uses; bench/data/supersession_fresh_pairs.md; ``--set fresh``; seen since round 5 and read for tuning), and
``fresh2``, bench/data/supersession_fresh2_pairs.jsonl (a second held-out half, all ``test``: sources none of the
other three uses; bench/data/supersession_fresh2_pairs.md; scored only with ``--set fresh2``). Each pair goes through
the add-time rules (knotwork/hygiene/consolidate.py, ``decide``) as it would on ``add``: the new text against the
old one, with the configured embedder's cosine (default: the bundled MiniLM). A pair counts as superseded when
the decision is SUPERSEDE.

Reported per half: supersession precision (of the pairs the rules retire, the share whose label is SUPERSEDE)
and recall (of the SUPERSEDE pairs, the share retired), the confusion of all decisions, and the pairs that
lose a true memory (an ADD pair decided SUPERSEDE or NOOP). Rules are tuned on dev; test is reported as is.

Run: python bench/supersession.py [--set old|memory|fresh|fresh2] [--half dev|test|test2] [--show dev|test|test2]
[--kind KIND] [--sweep] (old and memory unless ``--set``; ``--sweep`` reads the dev half of the chosen sets)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from knotwork.hygiene import consolidate as c

sys.path.insert(0, str(Path(__file__).resolve().parent))
from consolidation import LABELS, cosines  # noqa: E402  (the same embedding of each pair's two texts)

PAIRS = Path(__file__).resolve().parent / "data/supersession_pairs.jsonl"
MEMORY_PAIRS = Path(__file__).resolve().parent / "data/supersession_memory_pairs.jsonl"
FRESH_PAIRS = Path(__file__).resolve().parent / "data/supersession_fresh_pairs.jsonl"
FRESH2_PAIRS = Path(__file__).resolve().parent / "data/supersession_fresh2_pairs.jsonl"
SETS = {"old": PAIRS, "memory": MEMORY_PAIRS, "fresh": FRESH_PAIRS, "fresh2": FRESH2_PAIRS}
DEFAULT_SETS = ("old", "memory")  # the fresh sets (one half each) are scored only when asked by name


def decisions(pairs: list[dict], cos: np.ndarray) -> list[c.Decision]:
    return [c.decide(p["new"], [("old", p["old"], float(x))]) for p, x in zip(pairs, cos)]


def report(name: str, gold: list[str], pred: list[str]) -> dict:
    conf = Counter(zip(gold, pred))
    print(f"\n{name}: {len(gold)} pairs; confusion (rows gold, columns decided)")
    print("gold\\dec   " + "".join(f"{lab:>10}" for lab in LABELS))
    for g in LABELS:
        print(f"{g:<10} " + "".join(f"{conf[(g, p)]:>10}" for p in LABELS))
    tp = conf[("SUPERSEDE", "SUPERSEDE")]
    said = sum(conf[(g, "SUPERSEDE")] for g in LABELS)
    real = sum(conf[("SUPERSEDE", p)] for p in LABELS)
    lost = sum(conf[("ADD", p)] for p in ("SUPERSEDE", "NOOP"))
    precision = tp / said if said else float("nan")
    recall = tp / real if real else float("nan")
    print(f"supersession precision {precision:.3f} ({tp}/{said})  recall {recall:.3f} ({tp}/{real}); "
          f"true memories lost (ADD decided SUPERSEDE or NOOP): {lost}")
    return {"precision": precision, "recall": recall, "tp": tp, "said": said, "real": real, "lost": lost}


def sweep(pairs: list[dict], cos: np.ndarray) -> None:
    """Each of the frame rule's cosine floors on dev, the others as set: precision and recall of SUPERSEDE."""
    dev = [i for i, p in enumerate(pairs) if p["split"] == "dev"]
    real = sum(pairs[i]["label"] == "SUPERSEDE" for i in dev)
    for name in ("FRAME_COSINE", "CLAUSE_COSINE", "COPULA_COSINE"):
        saved = getattr(c, name)
        print(f"\n{name} on dev (set: {saved}; the other floors as set)")
        for t in np.arange(0.5, 0.99, 0.05):
            setattr(c, name, float(t))
            found = decisions([pairs[i] for i in dev], cos[dev])
            said = [pairs[i]["label"] for i, d in zip(dev, found) if d.kind == "SUPERSEDE"]
            hit = said.count("SUPERSEDE")
            print(f"  cosine >= {t:.2f}: precision {hit / len(said) if said else float('nan'):.3f} "
                  f"({hit}/{len(said)}), recall {hit / real:.3f}")
        setattr(c, name, saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=("dev", "test", "test2"), help="print that half's errors")
    parser.add_argument("--sweep", action="store_true", help="the frame rule's cosine floors on dev")
    parser.add_argument("--kind", help="only pairs of this kind (old: revision, same-document, adapted; "
                        "memory: adapted, restated)")
    parser.add_argument("--set", choices=tuple(SETS), help="score only this set (default: old and memory; "
                        "fresh and fresh2, one half each, only when named)")
    parser.add_argument("--half", choices=("dev", "test", "test2"),
                        help="score only this half (tune on dev alone; test2 is the fresh set's)")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}; SUPERSEDE_COSINE {c.SUPERSEDE_COSINE}")
    for name in (args.set,) if args.set else DEFAULT_SETS:
        print(f"\n== {name} set: {SETS[name].name}")
        score(name, [json.loads(line) for line in SETS[name].open(encoding="utf-8")], args)


def score(name: str, pairs: list[dict], args: argparse.Namespace) -> None:
    """One set's halves (or the asked one): the report, and that half's errors if asked."""
    if args.kind:
        pairs = [p for p in pairs if p["kind"] == args.kind]
    if args.half:
        pairs = [p for p in pairs if p["split"] == args.half]
    cos = cosines(pairs)
    if args.sweep:
        sweep(pairs, cos)
    found = decisions(pairs, cos)
    halves = [h for h in ("dev", "test", "test2") if any(p["split"] == h for p in pairs)]
    for split in (args.half,) if args.half else halves:
        idx = [i for i, p in enumerate(pairs) if p["split"] == split]
        report(f"{name} {split}", [pairs[i]["label"] for i in idx], [found[i].kind for i in idx])
        if args.show == split:
            print(f"\n{name} {split} errors (gold -> decided, cosine, reason):")
            for i in idx:
                gold, dec = pairs[i]["label"], found[i].kind
                if (gold == "SUPERSEDE") != (dec == "SUPERSEDE"):
                    print(f"  {gold} -> {dec} {cos[i]:.2f} {found[i].reason or ''}\n    old: {pairs[i]['old']}\n"
                          f"    new: {pairs[i]['new']}")


if __name__ == "__main__":
    sys.exit(main())
