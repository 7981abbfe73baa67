"""Precision and recall of the offline extraction rules on a labelled set.

    python bench/extraction.py [--labels bench/data/extraction_labels.txt] [--show-errors]

Entities are compared by normalised name (the resolver's exact-match key);
the predicted entities are the rules' entities plus the ends of their facts
(what the graph stores). Facts are compared as (subject, predicate, object)
with normalised names. Micro-averaged, per section and overall, with the
extraction time per sentence.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

from knotwork.knowledge.extract import extract
from knotwork.knowledge.resolve import normalize

LABELS = Path(__file__).parent / "data" / "extraction_labels.txt"


@dataclass
class Item:
    section: str
    text: str
    entities: set[str] = field(default_factory=set)
    facts: set[tuple[str, str, str]] = field(default_factory=set)


def load(path: Path) -> list[Item]:
    items: list[Item] = []
    section = "all"
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("E:"):
            items[-1].entities = {normalize(x) for x in line[2:].split(";") if x.strip()}
        elif line.startswith("F:"):
            for triple in line[2:].split(";"):
                if triple.strip():
                    s, p, o = (x.strip() for x in triple.split("|"))
                    items[-1].facts.add((normalize(s), p, normalize(o)))
        else:
            items.append(Item(section, line))
    return items


def predict(text: str) -> tuple[set[str], set[tuple[str, str, str]]]:
    out = extract(text)
    facts = {(normalize(f.subject), f.predicate, normalize(f.object)) for f in out.facts}
    entities = {normalize(e.name) for e in out.entities} | {s for s, _, _ in facts} | {o for _, _, o in facts}
    return entities, facts


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, predicted: set, gold: set) -> None:
        self.tp += len(predicted & gold)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    items = load(args.labels)
    scores: dict[str, tuple[Score, Score]] = {}
    start = time.perf_counter()
    for item in items:
        ents, facts = predict(item.text)
        for key in (item.section, "all"):
            e, f = scores.setdefault(key, (Score(), Score()))
            e.add(ents, item.entities)
            f.add(facts, item.facts)
        if args.show_errors and (ents != item.entities or facts != item.facts):
            print(item.text)
            for label, pred, gold in (("entities", ents, item.entities), ("facts", facts, item.facts)):
                if pred - gold:
                    print(f"   extra {label}: {sorted(pred - gold)}")
                if gold - pred:
                    print(f"   missed {label}: {sorted(gold - pred)}")
    per_item_ms = (time.perf_counter() - start) / len(items) * 1000
    print(f"{len(items)} sentences, {per_item_ms:.2f} ms each\n")
    print("| section | sentences | entity P | entity R | fact P | fact R |")
    print("|---|---|---|---|---|---|")
    for key, (e, f) in scores.items():
        n = len(items) if key == "all" else sum(i.section == key for i in items)
        print(f"| {key} | {n} | {e.precision:.3f} | {e.recall:.3f} | {f.precision:.3f} | {f.recall:.3f} |")


if __name__ == "__main__":
    main()
