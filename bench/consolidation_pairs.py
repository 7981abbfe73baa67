"""Build the labelled pairs consolidation thresholds are chosen on: bench/data/consolidation_pairs.jsonl.

Every pair is (old, new, label) made from real text: sentences of the user
turns of LongMemEval (the oracle split, /work/shared/data). Labels come from
how a pair is made, and are written here before any rule runs on them:

- NOOP: the same statement again: the sentence with case and punctuation
  changed, with a filler lead ("As I said, ..."), or cut to its first clause.
- UPDATE: the sentence followed by the next sentence of the same turn (the new
  memory says more).
- SUPERSEDE: the sentence with one number in it changed (a value changed).
- ADD: two different sentences, from the sessions of two different questions,
  that share many words (both are true; folding one into the other loses one).

``split`` is dev or test by a hash of the old sentence, so a sentence never
lands in both halves. Run: python bench/consolidation_pairs.py [--per-label 150]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
from collections import defaultdict
from pathlib import Path

DATA = Path("/work/shared/data/longmemeval_oracle.json.gz")
OUT = Path(__file__).resolve().parent / "data/consolidation_pairs.jsonl"
FILLERS = ("As I said, ", "Just to repeat: ", "Reminder: ", "Like I mentioned, ")
_SENTENCE = re.compile(r"(?<=[.!])\s+")
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d{1,4}\b")


def sentences_by_turn(path: Path) -> list[tuple[str, list[str]]]:
    """(question id, sentences) of each distinct user turn."""
    seen: set[str] = set()
    out = []
    for q in json.load(gzip.open(path)):
        for session in q["haystack_sessions"]:
            for turn in session:
                text = turn["content"].strip()
                if turn["role"] != "user" or text in seen:
                    continue
                seen.add(text)
                parts = [" ".join(p.split()) for p in _SENTENCE.split(text)]
                parts = [p for p in parts if 6 <= len(p.split()) <= 40 and "?" not in p and "\n" not in p]
                if parts:
                    out.append((q["question_id"], parts))
    return out


def split_of(text: str) -> str:
    return "dev" if int(hashlib.sha256(text.encode()).hexdigest(), 16) % 2 == 0 else "test"


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def build(per_label: int, data: Path = DATA, seed: int = 14) -> list[dict]:
    rng = random.Random(seed)
    turns = sentences_by_turn(data)
    rng.shuffle(turns)
    pairs: list[dict] = []

    def add(old: str, new: str, label: str, how: str) -> None:
        pairs.append({"old": old, "new": new, "label": label, "how": how, "split": split_of(old)})

    counts: dict[str, int] = defaultdict(int)
    for _, sents in turns:
        s = rng.choice(sents)
        kind = rng.choice(("case", "filler", "clause", "update", "number"))
        if kind == "case" and counts["NOOP"] < per_label:
            add(s, s.lower().rstrip(".!") if s[0].isupper() else s.capitalize() + ".", "NOOP", "case and punctuation")
            counts["NOOP"] += 1
        elif kind == "filler" and counts["NOOP"] < per_label:
            add(s, rng.choice(FILLERS) + s[0].lower() + s[1:], "NOOP", "filler lead")
            counts["NOOP"] += 1
        elif kind == "clause" and counts["NOOP"] < per_label and ", " in s:
            head = s.split(", ")[0]
            if len(head.split()) >= 5:
                add(s, head + ".", "NOOP", "first clause only")
                counts["NOOP"] += 1
        elif kind == "update" and counts["UPDATE"] < per_label and len(sents) > 1:
            i = sents.index(s)
            if i + 1 < len(sents):
                add(s, s + " " + sents[i + 1], "UPDATE", "next sentence appended")
                counts["UPDATE"] += 1
        elif kind == "number" and counts["SUPERSEDE"] < per_label and (m := _NUMBER.search(s)):
            value = int(m.group(0))
            changed = str(value + rng.randint(1, 5)) if value < 1900 or value > 2100 else str(value + 1)
            add(s, s[: m.start()] + changed + s[m.end() :], "SUPERSEDE", "one number changed")
            counts["SUPERSEDE"] += 1
    # ADD: the most word-sharing sentence of another question's sessions
    pool = [(qid, s, words(s)) for qid, sents in turns for s in sents]
    index: dict[str, list[int]] = defaultdict(list)
    for i, (_, _, ws) in enumerate(pool):
        for w in ws:
            index[w].append(i)
    order = list(range(len(pool)))
    rng.shuffle(order)
    for i in order:
        if counts["ADD"] >= per_label:
            break
        qid, s, ws = pool[i]
        shared: dict[int, int] = defaultdict(int)
        for w in ws:
            if len(index[w]) < 400:  # common words say nothing about closeness
                for j in index[w]:
                    shared[j] += 1
        best = max((j for j in shared if pool[j][0] != qid and pool[j][1] != s), key=lambda j: shared[j], default=None)
        if best is None:
            continue
        other = pool[best]
        jaccard = len(ws & other[2]) / len(ws | other[2])
        if jaccard >= 0.3:
            add(s, other[1], "ADD", f"another question's sentence, word overlap {jaccard:.2f}")
            counts["ADD"] += 1
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-label", type=int, default=150)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    pairs = build(args.per_label, args.data)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    by = defaultdict(int)
    for p in pairs:
        by[(p["label"], p["split"])] += 1
    print(f"{len(pairs)} pairs -> {OUT}: " + ", ".join(f"{k[0]}/{k[1]} {v}" for k, v in sorted(by.items())))


if __name__ == "__main__":
    main()
