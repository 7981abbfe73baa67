"""Agreement of two labellers on a sample of the extraction corpus (bench/data/extraction_corpus/).

    python bench/corpus_agreement.py sample      # write double/sample.txt: 150 items, texts and context only
    python bench/corpus_agreement.py score       # compare double/second.txt with the corpus's own labels

The sample takes 25 items of each kind (seeded, both halves), each with the three items before it in its
source as context (a pronoun or "this crate" is read from earlier items of one source, GUIDE.md). The
second labeller sees the guide and the sample only, never the first labels, and writes ``double/second.txt``:
each item's ``### kind:n`` header, its text, then ``E:``, ``F:`` and ``R:`` lines as in the corpus.

Scores: entities and facts (with their status, F or R) as the F1 of one labeller's set against the other's
(micro, symmetric), and Cohen's kappa on whether an item states any fact at all.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from extraction import Item, _triple, load  # noqa: E402

CORPUS = Path(__file__).parent / "data" / "extraction_corpus"
DOUBLE = CORPUS / "double"
KINDS = ("agents", "issues", "docs", "chat", "meetings", "assistant")
PER_KIND = 25
CONTEXT = 3
SEED = 36


def _items(kind: str) -> list[Item]:
    return load(CORPUS / f"{kind}.txt", statuses=True)


def _chosen() -> list[tuple[str, int, list[Item]]]:
    rng = random.Random(SEED)
    out = []
    for kind in KINDS:
        items = _items(kind)
        for index in sorted(rng.sample(range(len(items)), PER_KIND)):
            out.append((kind, index, items))
    return out


def sample() -> None:
    DOUBLE.mkdir(exist_ok=True)
    lines = ["# A sample of the extraction corpus for a second, independent labeller (bench/corpus_agreement.py).",
             "# Label each item's last line (not the '> ' context lines) by GUIDE.md: E:, F:, R: lines after it.", ""]
    for kind, index, items in _chosen():
        lines.append(f"### {kind}:{index}")
        start = index
        while start > 0 and index - start < CONTEXT and items[start - 1].section == items[index].section:
            start -= 1
        lines += [f"> {items[i].text}" for i in range(start, index)]
        lines += [items[index].text, ""]
    (DOUBLE / "sample.txt").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {DOUBLE / 'sample.txt'}")


def _second() -> dict[str, Item]:
    from knotwork.knowledge.resolve import normalize

    out: dict[str, Item] = {}
    key = ""
    for raw in (DOUBLE / "second.txt").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("# ", "> ")):
            continue
        if line.startswith("### "):
            key = line[4:].strip()
            out[key] = Item(key, "")
        elif line.startswith("E:"):
            out[key].entities = {normalize(x) for x in line[2:].split(";") if x.strip()}
        elif line.startswith(("F:", "R:")):
            status = "current" if line.startswith("F:") else "retired"
            for triple in line[2:].split(";"):
                if triple.count("|") == 2:
                    out[key].facts.add(_triple(triple, normalize) + (status,))
        elif key:
            out[key].text = line
    return out


def _f1(a: list[set], b: list[set]) -> tuple[float, int, int]:
    both = sum(len(x & y) for x, y in zip(a, b))
    total = sum(len(x) for x in a) + sum(len(y) for y in b)
    return (2 * both / total if total else 1.0), sum(len(x) for x in a), sum(len(y) for y in b)


def _kappa(a: list[bool], b: list[bool]) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def table(first: list, other: list, groups: list[str], order: tuple[str, ...], label: str) -> None:
    """Entity F1, fact F1 and the states-a-fact kappa of two labellings of the same items, per group of
    ``order`` and over all; ``groups`` names each item's group."""
    print(f"{label:<10} {'entity F1':>9} {'fact F1':>8} {'facts 1st/2nd':>13} {'states-a-fact kappa':>19}")
    for group in (*order, "all"):
        pick = [i for i, g in enumerate(groups) if group in (g, "all")]
        ents, _, _ = _f1([first[i].entities for i in pick], [other[i].entities for i in pick])
        facts, n1, n2 = _f1([first[i].facts for i in pick], [other[i].facts for i in pick])
        kappa = _kappa([bool(first[i].facts) for i in pick], [bool(other[i].facts) for i in pick])
        print(f"{group:<10} {ents:>9.3f} {facts:>8.3f} {f'{n1}/{n2}':>13} {kappa:>19.3f}")


def score() -> None:
    second = _second()
    first, other, kinds = [], [], []
    for kind, index, items in _chosen():
        key = f"{kind}:{index}"
        if key not in second:
            raise SystemExit(f"second.txt has no item {key}")
        first.append(items[index])
        other.append(second[key])
        kinds.append(kind)
    print(f"{len(first)} items labelled twice ({PER_KIND} per kind, seed {SEED})")
    table(first, other, kinds, tuple(KINDS), "kind")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("sample", "score"))
    args = parser.parse_args()
    sample() if args.what == "sample" else score()


if __name__ == "__main__":
    main()
