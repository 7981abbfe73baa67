"""The readers keyed on a name, off the labelled pairs: how often do they read a change in real text?

Consolidation asks the readers keyed on a person's, a seat's or a thing's name (``consolidate._named``: a seat's
holder, a person's standing, term, employer or address, one thing's version floor) of candidates below every
rule's cosine floor, down to ``READER_COSINE``. Here they read every ordered pair of texts within one store of
the conversation sets (bench/data/convo, bench/data/convo2; a store is one user's memories) and within each file
of bench/data/extraction_corpus (agents, assistant, chat, docs, issues, meetings, attributes), with no cosine
floor at all, and each pair they read as a change is printed for reading by hand. A reading is right when the
later text does replace the earlier one's value in one memory store.

    PYTHONPATH=src python bench/name_readers.py [--show N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from itertools import permutations
from pathlib import Path

from knotwork.hygiene.consolidate import _named

DATA = Path(__file__).resolve().parent / "data"


def groups() -> dict[str, list[str]]:
    """Texts by store: each conversation store, each extraction-corpus file (items only, no label lines)."""
    out: dict[str, list[str]] = defaultdict(list)
    for name in ("convo", "convo2"):
        for line in (DATA / name / "turns.jsonl").read_text(encoding="utf-8").splitlines():
            turn = json.loads(line)
            out[f"{name}/{turn['store']}"].append(turn["text"])
    for path in sorted((DATA / "extraction_corpus").glob("*.txt")):
        if path.name.endswith("_sequences.txt"):
            continue
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or line[:2] in ("E:", "F:", "R:", "C:", "S:", "A:"):
                continue
            out[f"corpus/{path.stem}"].append(line)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=50, help="print at most this many pairs read as a change")
    args = ap.parse_args()
    pairs = fired = 0
    found: list[tuple[str, str, str, str]] = []
    started = time.process_time()
    for store, texts in groups().items():
        texts = list(dict.fromkeys(t for t in texts if len(t) < 400))
        for earlier, later in permutations(texts, 2):
            pairs += 1
            if change := _named(earlier, later, False):
                fired += 1
                found.append((store, earlier, later, change))
    cpu = time.process_time() - started
    print(f"{pairs:,} ordered pairs in {len(groups())} stores; read as a change: {fired}; "
          f"{cpu / max(pairs, 1) * 1e6:.1f} µs of CPU per pair (shared machine, rough)")
    for store, earlier, later, change in found[: args.show]:
        print(f"- {store}: {earlier!r} -> {later!r} ({change})")


if __name__ == "__main__":
    main()
