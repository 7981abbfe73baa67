"""Rebuild turns.jsonl from the chitchat-dataset wheel (see README.md); questions.jsonl is hand-written.

    pip download --no-deps chitchat-dataset==0.9.0 -d /tmp/ccc
    python bench/data/convo/build.py /tmp/ccc/chitchat_dataset-0.9.0-py3-none-any.whl > bench/data/convo/turns.jsonl

Selection, all deterministic: six chat participants ("owners") with many
conversations; for each, the two-person conversations of 20-60 turns not
already taken by an earlier owner, and of those the one nearest each of 11
evenly spaced instants over the owner's active period. A turn is one
speaker's run of consecutive messages, joined with spaces. Speakers get
pseudonyms (the same person keeps one name everywhere); phone numbers are
masked. Timestamps are the source's, as given.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

OWNERS = ["5e5f6bde", "842e34da", "60576dcf", "3863a74c", "d6e03ccc", "94e95939"]  # sender id prefixes
HALF = {"p1": "dev", "p2": "test", "p3": "dev", "p4": "test", "p5": "dev", "p6": "test"}
PER_OWNER = 11
PHONE = re.compile(r"\(?\b\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}\b")
NAMES = """Ava Ben Cora Dan Eli Fay Gus Hana Ivan Jade Kai Lena Milo Nora Omar Pia Quinn Rosa Sam Tara Uma Vic Wes Xena Yara Zane
Abby Blake Cleo Drew Emma Finn Gia Hugo Iris Jon Kira Leo Maya Nico Opal Paul Remy Sara Theo Ula Vera Will Zoe
Adam Bea Carl Dina Evan Flora Gabe Holly Ian Joy Kent Lucy Mark Nina Owen Penny Rhys Sofia Troy Val Wade Yuki""".split()


def load(path: Path) -> dict:
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as zf:
            return json.loads(zf.read("chitchat_dataset/dataset.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def senders(convo: dict) -> set[str]:
    return {m["sender"] for turn in convo["messages"] for m in turn}


def epoch(convo: dict) -> float:
    return datetime.fromisoformat(convo["messages"][0][0]["timestamp"].replace("Z", "+00:00")).timestamp()


def build(data: dict) -> list[dict]:
    conversations_of: dict[str, list[str]] = defaultdict(list)
    for key, convo in data.items():
        for s in senders(convo):
            conversations_of[s].append(key)
    full = {s[:8]: s for s in conversations_of}
    used: set[str] = set()
    stores = []
    for n, prefix in enumerate(OWNERS, 1):
        owner = full[prefix]
        good = sorted(
            (k for k in conversations_of[owner]
             if 20 <= len(data[k]["messages"]) <= 60 and k not in used and len(senders(data[k])) == 2),
            key=lambda k: data[k]["messages"][0][0]["timestamp"],
        )
        times = [epoch(data[k]) for k in good]
        pick: list[str] = []
        for i in range(PER_OWNER):
            target = times[0] + (times[-1] - times[0]) * i / (PER_OWNER - 1)
            best = min((j for j in range(len(good)) if good[j] not in pick), key=lambda j: abs(times[j] - target))
            pick.append(good[best])
        pick.sort(key=lambda k: data[k]["messages"][0][0]["timestamp"])
        used.update(pick)
        stores.append((f"p{n}", owner, pick))
    name_of: dict[str, str] = {}

    def name(sender: str) -> str:
        if sender not in name_of:
            name_of[sender] = NAMES[len(name_of)]
        return name_of[sender]

    for _, owner, _ in stores:
        name(owner)
    rows = []
    for store, _, pick in stores:
        for key in pick:
            thread = key[:8]
            for i, turn in enumerate(data[key]["messages"]):
                text = PHONE.sub("[number removed]", " ".join(m["text"].strip() for m in turn if m["text"].strip()))
                rows.append({"id": f"{thread}#{i}", "store": store, "half": HALF[store], "thread": thread, "index": i,
                             "speaker": name(turn[0]["sender"]), "text": text, "at": turn[0]["timestamp"], "source_id": key})
    return rows


def main() -> None:
    for row in build(load(Path(sys.argv[1]))):
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
