"""What every add answers, as a digest to compare across two versions of the code: an add that must not change
behaviour (a refactor of the write path) leaves the digest as it was.

The adds: ``bench/hygiene.py``'s noisy corpus (LongMemEval user turns, restatements, hourly profile snapshots,
search queries, speculation), each through ``add`` with the defaults into one store, then the same corpus through
``add_many`` in batches of ``--batch`` into another (items repeat within a batch, so the batch's own decisions
count too; a snapshot goes alone). Then the labelled pairs of ``bench/data/consolidation_pairs.jsonl`` and
``bench/data/supersession_pairs.jsonl`` (of each, the first ``--pairs`` labelled NOOP, UPDATE or SUPERSEDE and a
quarter as many labelled ADD), each pair in a workspace of its own,
old then new and, in another, new then old (valid_at a month apart): restatements, extensions and changed
values, among them older values arriving late; through ``add`` one by one, and through ``add_many`` a pair
per batch (decided against the batch). Per answer: decision, the memory it touched and its reason, with every memory id replaced by the
number of the add that first answered with it (ids are random); then every memory of each store as stored
(content, version, retired or not, ``superseded_by``, supersedes links). Printed: counts of decisions and a
SHA-256 of all of it; ``--dump FILE`` writes the lines hashed, to diff.

    PYTHONPATH=src python bench/add_answers.py --questions 10 --days 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import knotwork  # noqa: E402
from hygiene import DATA, WS, corpus  # noqa: E402
from knotwork import Settings  # noqa: E402

ID = re.compile(r"\b[0-9a-z]{26}\b", re.I)


class Names:
    """Memory ids as the number of the answer that first named them."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, text: str | None) -> str | None:
        if text is None:
            return None
        return ID.sub(lambda m: self.seen.setdefault(m.group(0), f"m{len(self.seen)}"), text)


def fields(item: dict) -> dict:
    if item["kind"] == "pair":
        return {"workspace": item["workspace"], "valid_at": item["valid_at"]}
    out: dict = {"workspace": WS, "metadata": {"session": item.get("session", "")}}
    if item["kind"] == "snapshot":
        out.update(agent_id="profile-mgr", tags={"key": "profile"}, valid_at=item["valid_at"], category="snapshot")
    return out


def pairs(n: int) -> list[dict]:
    """Each labelled pair as two adds in a workspace of its own, in both arrival orders (``pair`` groups them)."""
    out: list[dict] = []
    for name in ("consolidation_pairs", "supersession_pairs"):
        with (Path(__file__).resolve().parent / "data" / f"{name}.jsonl").open(encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        # the first ``n`` pairs labelled other than ADD (the ones that touch a stored memory), and n/4 ADD pairs
        rows = [r for r in rows if r["label"] != "ADD"][:n] + [r for r in rows if r["label"] == "ADD"][:n // 4]
        for k, row in enumerate(rows):
            old = {"content": row["old"], "valid_at": "2030-01-01T09:00:00Z"}
            new = {"content": row["new"], "valid_at": "2030-02-01T09:00:00Z"}
            for order, two in (("forward", (old, new)), ("late", (new, old))):
                pair = f"{name}-{k}-{order}"
                out += [{**one, "kind": "pair", "pair": pair, "workspace": pair} for one in two]
    return out


def batches(items: list[dict], size: int) -> list[list[dict]]:
    """``items`` in order, in batches of ``size``; a snapshot goes in a batch of its own (two snapshots of one key
    and day in one ``add_many`` fail on a foreign key of the similar lists, a fault of its own)."""
    out: list[list[dict]] = [[]]
    for item in items:
        if item["kind"] == "pair":  # a pair in a batch of its own
            if out[-1] and out[-1][-1].get("pair") == item["pair"]:
                out[-1].append(item)
            else:
                out.append([item])
        elif item["kind"] == "snapshot":
            out += [[item], []]
        elif len(out[-1]) == size:
            out.append([item])
        else:
            out[-1].append(item)
    return [b for b in out if b]


def answer(m: knotwork.Memory, name: Names) -> str:
    return json.dumps([m.decision, name(m.id), name(m.touched), name(m.reason), m.duplicate])


def stored(mem: knotwork.Knotwork, name: Names) -> list[str]:
    out = []
    for m in mem.store.iter_memories():
        meta = m.metadata.get("superseded_by")
        out.append(json.dumps([name(m.id), m.content, m.version, m.invalid_at is not None,
                               name(json.dumps(meta, sort_keys=True)) if meta else None]))
    links = sorted(json.dumps([name(r.from_id), name(r.to_id), r.type, sorted(r.metadata)]) for r in mem.list_links("*"))
    return sorted(out) + links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--restate", type=int, default=4)
    parser.add_argument("--batch", type=int, default=25)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--pairs", type=int, default=60, help="pairs other than ADD taken from each labelled file")
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    items, _ = corpus(args)
    items += pairs(args.pairs)
    lines: list[str] = []
    decisions: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        with knotwork.open(Path(tmp) / "single.db", settings=Settings(home=home)) as mem:
            name = Names()
            for item in items:
                m = mem.add(item["content"], **fields(item))
                decisions["add", m.decision] += 1
                lines.append("add " + answer(m, name))
            lines += ["stored " + line for line in stored(mem, name)]
        with knotwork.open(Path(tmp) / "batch.db", settings=Settings(home=home)) as mem:
            name = Names()
            for chunk in batches(items, args.batch):
                for m in mem.add_many([{"content": i["content"], **fields(i)} for i in chunk]):
                    decisions["add_many", m.decision] += 1
                    lines.append("add_many " + answer(m, name))
            lines += ["stored " + line for line in stored(mem, name)]
    print(f"{len(items)} adds, each way; decisions: " + ", ".join(f"{k} {d}: {n}" for (k, d), n in sorted(decisions.items())))
    print("digest " + hashlib.sha256("\n".join(lines).encode()).hexdigest())
    if args.dump:
        args.dump.write_text("\n".join(lines) + "\n", "utf-8")


if __name__ == "__main__":
    main()
