"""Agreement of two labellings of a sample of the memory3 set (bench/data/extraction_memory3.txt).

    python bench/memory3_agreement.py sample      # write extraction_memory3_double/sample.txt: 60 items, texts only
    python bench/memory3_agreement.py score       # compare extraction_memory3_double/second.txt with the set's labels

The sample takes 30 items of each half (seeded), each with up to three earlier items of its source as context (a
pronoun is read from earlier items of one source). The committed ``sample.txt`` was drawn from the set of 509 items
(commit 0c99a46); items were added to the set afterwards, so ``sample`` now draws another sample, and ``score``
matches ``second.txt`` to the set by text. The second labelling is written from ``sample.txt`` alone, never
from the set's labels, into ``second.txt``: each item's ``### half:n`` header, its text, then ``E:``, ``F:`` and
``R:`` lines as in the set. Scores, as ``bench/corpus_agreement.py`` gives them for the corpus: entities and facts
(with their status, F or R) as the F1 of one labelling against the other (micro, symmetric), and Cohen's kappa on
whether an item states any fact at all.

This script reads label files only: it imports nothing of knotwork (its own name normaliser lower-cases and drops
punctuation, close to the resolver's key), so it can be run before any system has seen the set.
"""

from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from corpus_agreement import table  # one agreement table for both double-labelled samples

DATA = Path(__file__).parent / "data"
SET = DATA / "extraction_memory3.txt"
DOUBLE = DATA / "extraction_memory3_double"
PER_HALF = 30
CONTEXT = 3
SEED = 36


def normalize(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", name.lower()).strip()


@dataclass
class Item:
    half: str
    source: str
    text: str
    entities: set[str] = field(default_factory=set)
    facts: set[tuple[str, str, str, str]] = field(default_factory=set)


def _labels(item: Item, line: str) -> None:
    if line.startswith("E:"):
        item.entities = {normalize(x) for x in line[2:].split(";") if x.strip()}
    else:
        status = "current" if line.startswith("F:") else "retired"
        for triple in line[2:].split(";"):
            if triple.count("|") == 2:
                s, p, o = (x.strip() for x in triple.split("|"))
                item.facts.add((normalize(s), p, normalize(o), status))


def load(path: Path = SET) -> list[Item]:
    items: list[Item] = []
    half = source = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("## "):
            half, source = line[3:].split()[0], ""
        elif line.startswith("# source:"):
            source = line.split(":", 1)[1].strip()
        elif not line or line.startswith("# "):
            continue
        elif line.startswith(("E:", "F:", "R:")):
            _labels(items[-1], line)
        else:
            items.append(Item(half, source, line))
    return items


def chosen(items: list[Item]) -> list[int]:
    rng = random.Random(SEED)
    out: list[int] = []
    for half in ("dev", "test"):
        out += sorted(rng.sample([i for i, it in enumerate(items) if it.half == half], PER_HALF))
    return out


def sample() -> None:
    items = load()
    DOUBLE.mkdir(exist_ok=True)
    lines = ["# A sample of bench/data/extraction_memory3.txt for a second labelling (bench/memory3_agreement.py).",
             "# Label each item's last line (not the '> ' context lines) by the set's header and",
             "# bench/data/extraction_corpus/GUIDE.md: E:, F:, R: lines after it.", ""]
    for index in chosen(items):
        start = index
        while start > 0 and index - start < CONTEXT and items[start - 1].source == items[index].source:
            start -= 1
        lines.append(f"### {items[index].half}:{index}")
        lines += [f"> {items[i].text}" for i in range(start, index)]
        lines += [items[index].text, ""]
    (DOUBLE / "sample.txt").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {DOUBLE / 'sample.txt'}")


def second() -> dict[str, Item]:
    out: dict[str, Item] = {}
    key = ""
    for raw in (DOUBLE / "second.txt").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("# ", "> ")):
            continue
        if line.startswith("### "):
            key = line[4:].strip()
            out[key] = Item(key.split(":")[0], "", "")
        elif line.startswith(("E:", "F:", "R:")):
            _labels(out[key], line)
        elif key:
            out[key].text = line
    return out


def score() -> None:
    """Each item of ``second.txt`` is matched to the set's item with the same text (texts are unique in the set),
    so the score holds after items were added to the set; the sample itself is the committed ``sample.txt``."""
    by_text = {item.text: item for item in load()}
    first, two, halves = [], [], []
    for key, item in second().items():
        if item.text not in by_text:
            raise SystemExit(f"second.txt item {key} is not an item of the set")
        first.append(by_text[item.text])
        two.append(item)
        halves.append(by_text[item.text].half)
    dev = sum(h == "dev" for h in halves)
    print(f"{len(first)} items labelled twice ({dev} dev, {len(first) - dev} test)")
    table(first, two, halves, ("dev", "test"), "half")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("sample", "score"))
    args = parser.parse_args()
    sample() if args.what == "sample" else score()


if __name__ == "__main__":
    main()
