"""Consolidation decisions on labelled pairs: precision and recall of NOOP, UPDATE and SUPERSEDE, dev and test.

Pairs: bench/data/consolidation_pairs.jsonl (bench/consolidation_pairs.py; labels made before any rule ran).
Cosine comes from the configured embedder (default: the bundled MiniLM), as on add.
A wrong NOOP or SUPERSEDE loses a true memory, so thresholds are chosen on dev for
precision first: ``--sweep`` prints, per rule, precision and recall on dev at each
cosine threshold; the constants in knotwork/hygiene/consolidate.py are the lowest
thresholds at which dev precision stays 1.0.

Run: python bench/consolidation.py [--sweep]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from knotwork.config import Settings
from knotwork.embed.factory import make_embedder
from knotwork.hygiene import consolidate as c

PAIRS = Path(__file__).resolve().parent / "data/consolidation_pairs.jsonl"
LABELS = ("ADD", "NOOP", "UPDATE", "SUPERSEDE")


def cosines(pairs: list[dict]) -> np.ndarray:
    embedder = make_embedder(Settings().embedder)
    old = embedder.embed([p["old"] for p in pairs])
    new = embedder.embed([p["new"] for p in pairs])
    return np.einsum("ij,ij->i", old, new)


def predict(pairs: list[dict], cos: np.ndarray) -> list[str]:
    return [c.decide(p["new"], [("old", p["old"], float(x))]).kind for p, x in zip(pairs, cos)]


def report(name: str, gold: list[str], pred: list[str]) -> None:
    print(f"\n{name}: {len(gold)} pairs; confusion (rows gold, columns predicted)")
    conf = Counter(zip(gold, pred))
    print("gold\\pred  " + "".join(f"{l:>10}" for l in LABELS))
    for g in LABELS:
        print(f"{g:<10} " + "".join(f"{conf[(g, p)]:>10}" for p in LABELS))
    for label in LABELS[1:]:
        tp = conf[(label, label)]
        said = sum(conf[(g, label)] for g in LABELS)
        real = sum(conf[(label, p)] for p in LABELS)
        prec = f"{tp / said:.3f}" if said else "-"
        print(f"{label:<10} precision {prec} ({tp}/{said})  recall {tp / real if real else 0:.3f} ({tp}/{real})")
    lost = sum(conf[(g, p)] for g in LABELS for p in ("NOOP", "SUPERSEDE") if g != p and g in ("ADD", "UPDATE"))
    print(f"true memories lost (an ADD or UPDATE pair decided NOOP or SUPERSEDE): {lost}")


def sweep(pairs: list[dict], cos: np.ndarray) -> None:
    """Each rule alone on dev, at cosine thresholds from 0.5 to 0.98."""
    dev = [i for i, p in enumerate(pairs) if p["split"] == "dev"]
    names = {"NOOP": "NOOP_COSINE", "UPDATE": "UPDATE_COSINE", "SUPERSEDE": "SUPERSEDE_COSINE"}
    saved = {n: getattr(c, n) for n in names.values()}
    for label, const in names.items():
        print(f"\n{label} on dev (the other rules at their set thresholds)")
        for t in np.arange(0.5, 0.99, 0.04):
            setattr(c, const, float(t))
            pred = predict([pairs[i] for i in dev], cos[dev])
            said = [pairs[i]["label"] for i, p in zip(dev, pred) if p == label]
            real = sum(pairs[i]["label"] == label for i in dev)
            hit = said.count(label)
            print(f"  cosine >= {t:.2f}: precision {hit / len(said) if said else float('nan'):.3f} ({hit}/{len(said)}), "
                  f"recall {hit / real:.3f}")
        setattr(c, const, saved[const])


def unclear(pairs: list[dict], cos: np.ndarray, pred: list[str]) -> None:
    """How many of the pairs the rules call ADD are in truth something else, above and below each cosine:
    where an LLM, when one is configured, is asked (knotwork/hygiene/judge.py, UNCLEAR_COSINE, set on dev)."""
    for split in ("dev", "test"):
        print(f"\nrules' ADD on {split}: pairs whose gold label is not ADD, at or above / below each cosine")
        rows = [(p["label"], float(x)) for p, x, d in zip(pairs, cos, pred) if p["split"] == split and d == "ADD"]
        for t in (0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
            above = [g for g, x in rows if x >= t]
            below = [g for g, x in rows if x < t]
            print(f"  cosine {t:.2f}: at or above {sum(g != 'ADD' for g in above)}/{len(above)}, "
                  f"below {sum(g != 'ADD' for g in below)}/{len(below)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true", help="precision/recall per rule on dev at each threshold")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}; thresholds NOOP {c.NOOP_COSINE}, UPDATE {c.UPDATE_COSINE}, "
          f"SUPERSEDE {c.SUPERSEDE_COSINE}, NOOP overlap {c.NOOP_OVERLAP}")
    pairs = [json.loads(line) for line in PAIRS.open()]
    cos = cosines(pairs)
    by_label = defaultdict(list)
    for p, x in zip(pairs, cos):
        by_label[p["label"]].append(float(x))
    print("cosine by label (all pairs): " + ", ".join(
        f"{k} p10 {np.percentile(v, 10):.2f} median {np.median(v):.2f}" for k, v in sorted(by_label.items())))
    if args.sweep:
        sweep(pairs, cos)
    pred = predict(pairs, cos)
    for split in ("dev", "test"):
        idx = [i for i, p in enumerate(pairs) if p["split"] == split]
        report(split, [pairs[i]["label"] for i in idx], [pred[i] for i in idx])
    unclear(pairs, cos, pred)
    return None


if __name__ == "__main__":
    sys.exit(main())
