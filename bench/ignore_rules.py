"""The store/ignore rules alone: how often they turn away a memory worth keeping, and how often they rightly turn
away chatter.

Only the pure decision runs (``Instructions.ignore_reason`` of the built-in rules, the one an ``add`` asks
first); nothing is stored, no model is loaded. Two sides:

- **Memories that must be kept**, every labelled memory-style text of the repository, per set and half:
  - ``extraction:*``: the sentences of bench/data/extraction_*.txt and extraction_corpus/*.txt (an item labelled
    with a fact, ``F:`` or ``R:``, is a true memory; an item with none is a hedge, plan or question and is
    counted as a text only) and the memories of their ``*_sequences.txt`` files (each states a value: true);
  - ``pairs:*``: both texts of every pair of bench/data/supersession_*_pairs.jsonl, consolidation_pairs.jsonl
    (both are memories a user chose to store: true);
  - ``projects``: the memories of the dev projects of bench/data/project_changes (true; the test projects are
    held out and counted only with ``--project-test``, which prints figures and no text);
  - ``codemem``: bench/codemem/memories.jsonl with their categories (true: an agent stored each);
  - ``convo``, ``convo2``: the turns of bench/data/convo*/turns.jsonl (a turn a question names as its gold is
    evidence: true; the others are conversation, counted as texts only);
  - ``longmemeval``: the user turns of /work/shared/data/longmemeval_oracle.json.gz (a ``has_answer`` turn of
    an answer session is evidence: true), the half of the question that first names the session.
- **Chatter that should be ignored**: bench/data/ignore_chatter.txt (its header says how it was made), lines
  labelled ``I`` (debugging chatter, search queries, lone questions, speculation: ignore) and ``K`` (statements
  shaped like chatter: keep), dev and test halves. Reported: chatter recall (share of ``I`` lines ignored) and
  wrong ignores (``K`` lines ignored).

Run the same command on another source tree (``PYTHONPATH=<tree>/src``) to compare rules; ``--list`` prints
the true memories ignored, by rule (dev halves only unless ``--half test``).

Run: python bench/ignore_rules.py [--half dev|test|both] [--list] [--project-test]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from knotwork.hygiene.instructions import builtin

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
LME = Path("/work/shared/data/longmemeval_oracle.json.gz")
CHATTER = DATA / "ignore_chatter.txt"


@dataclass(frozen=True, slots=True)
class Text:
    set: str
    half: str
    text: str
    true: bool  # a labelled fact, a stored memory or an answer's evidence: must be kept
    category: str | None = None


def _half(section: str) -> str:
    return "test" if section.startswith("test") else "dev"  # a file with no halves was tuned on: dev


def extraction_texts() -> list[Text]:
    out: list[Text] = []
    files = sorted(DATA.glob("extraction_*.txt")) + sorted((DATA / "extraction_corpus").glob("*.txt"))
    for path in files:
        name = f"extraction:{path.stem.removeprefix('extraction_')}"
        sequences = path.stem.endswith("sequences")
        section, items = "dev", []  # [half, text, has a fact]
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if not line or line.startswith("# ") or line == "#":
                continue
            if line.startswith("## "):
                section = line[3:].strip()
            elif line.startswith("### "):
                continue
            elif sequences:
                if m := re.match(r"^\d{4}-\d{2}-\d{2}\s*\|\s*(.+)$", line):
                    items.append([_half(section), m.group(1), True])
            elif line.startswith(("F:", "R:")):
                items[-1][2] = items[-1][2] or bool(line[2:].strip())
            elif re.match(r"^[A-Z]:", line):
                continue
            else:
                items.append([_half(section), line, False])
        out += [Text(f"{name}", h, t, f) for h, t, f in items]
    return out


def pair_texts() -> list[Text]:
    out: list[Text] = []
    for path in sorted(DATA.glob("*_pairs.jsonl")):
        if path.name == "people_pairs.jsonl":
            continue  # names, not memories
        name = "pairs:" + path.stem.removesuffix("_pairs").removeprefix("supersession_").replace("supersession", "docs")
        for raw in path.read_text(encoding="utf-8").splitlines():
            pair = json.loads(raw)
            half = "test" if str(pair.get("split", "dev")).startswith("test") else "dev"
            out += [Text(name, half, pair[k], True) for k in ("old", "new") if pair.get(k)]
    return out


def project_texts(split: str) -> list[Text]:
    sys.path.insert(0, str(BENCH))
    import project_changes  # noqa: PLC0415

    return [Text("projects" if split == "dev" else "projects (test)", split, text, True)
            for p in project_changes.projects(split, None) for _, _, text in p.memories]


def codemem_texts() -> list[Text]:
    halves: dict[str, str] = {}
    for raw in (BENCH / "codemem" / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(raw)
        for g in q["gold"]:
            halves.setdefault(g, q["half"])
    out = []
    for raw in (BENCH / "codemem" / "memories.jsonl").read_text(encoding="utf-8").splitlines():
        m = json.loads(raw)
        out.append(Text("codemem", halves.get(m["id"], "dev"), m["content"], True, m.get("category")))
    return out


def convo_texts(name: str) -> list[Text]:
    folder = DATA / name
    gold = {g for raw in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            for g in json.loads(raw)["gold"]}
    out = []
    for raw in (folder / "turns.jsonl").read_text(encoding="utf-8").splitlines():
        t = json.loads(raw)
        out.append(Text(name, t["half"], t["text"], t["id"] in gold))
    return out


def longmemeval_texts() -> list[Text]:
    if not LME.exists():
        return []
    with gzip.open(LME, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)
    half: dict[str, str] = {}
    evidence: set[tuple[str, int]] = set()
    sessions: dict[str, list[dict]] = {}
    for q in raw:
        h = "dev" if hashlib.sha256(q["question_id"].encode("utf-8")).digest()[0] % 2 == 0 else "test"
        for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True):
            half.setdefault(sid, h)
            sessions.setdefault(sid, session)
            if sid in q["answer_session_ids"]:
                evidence.update((sid, i) for i, t in enumerate(session) if t.get("has_answer"))
    return [Text("longmemeval", half[sid], t["content"], (sid, i) in evidence)
            for sid, session in sessions.items() for i, t in enumerate(session)
            if t["role"] == "user" and t["content"].strip()]


def chatter_lines(path: Path = CHATTER) -> list[tuple[str, str, str]]:
    """(half, label I or K, text) of the chatter set; a line that reads as nothing is an error."""
    out, half = [], None
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line in ("== dev", "== test"):
            half = line[3:]
        elif (m := re.match(r"^([IK]) \| (.+)$", line)) and half:
            out.append((half, m.group(1), m.group(2)))
        else:
            raise SystemExit(f"{path.name}:{n}: cannot read {line!r}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("dev", "test", "both"), default="both")
    ap.add_argument("--list", action="store_true",
                    help="print the true memories ignored, by rule, and the chatter missed")
    ap.add_argument("--project-test", action="store_true", help="count the held-out test projects too (figures only)")
    args = ap.parse_args()
    rules = builtin()
    halves = ("dev", "test") if args.half == "both" else (args.half,)
    texts = extraction_texts() + pair_texts() + project_texts("dev") + codemem_texts() + convo_texts("convo") \
        + convo_texts("convo2") + longmemeval_texts()
    if args.project_test:
        texts += project_texts("test")
    rows: dict[tuple[str, str], Counter] = defaultdict(Counter)
    lost: dict[str, list[str]] = defaultdict(list)
    by_rule: Counter = Counter()
    for t in texts:
        if t.half not in halves:
            continue
        reason = rules.ignore_reason(t.text, t.category)
        row = rows[(t.set, t.half)]
        row["texts"] += 1
        row["true"] += t.true
        if reason:
            row["ignored"] += 1
            if t.true:
                row["lost"] += 1
                by_rule[(t.half, reason)] += 1
                if not t.set.startswith("projects (test)") and (t.half == "dev" or args.half == "test"):
                    lost[reason].append(f"[{t.set} {t.half}] {t.text[:200]}")
    print(f"{'set':28} {'half':5} {'texts':>7} {'true':>7} {'ignored':>8} {'ignored true':>13}")
    total: dict[str, Counter] = defaultdict(Counter)
    for (name, half), row in sorted(rows.items()):
        print(f"{name:28} {half:5} {row['texts']:7} {row['true']:7} {row['ignored']:8} {row['lost']:13}")
        total[half].update(row)
    for half, row in sorted(total.items()):
        print(f"{'all':28} {half:5} {row['texts']:7} {row['true']:7} {row['ignored']:8} {row['lost']:13}")
    print("\ntrue memories ignored, by rule:")
    for (half, reason), n in sorted(by_rule.items()):
        print(f"  {half:5} {n:5}  {reason}")
    if CHATTER.exists():
        print("\nchatter set (I: should be ignored, K: statements that must be kept):")
        missed: list[str] = []
        for half in halves:
            lines = [(label, text) for h, label, text in chatter_lines() if h == half]
            got = [(label, text, rules.ignore_reason(text, None)) for label, text in lines]
            i_all = sum(label == "I" for label, _, _ in got)
            i_hit = sum(label == "I" and r is not None for label, _, r in got)
            k_all = sum(label == "K" for label, _, _ in got)
            k_hit = sum(label == "K" and r is not None for label, _, r in got)
            print(f"  {half:5} chatter ignored {i_hit}/{i_all} ({i_hit / max(1, i_all):.3f}); "
                  f"statements ignored (wrong) {k_hit}/{k_all}")
            if args.list and (half == "dev" or args.half == "test"):
                missed += [f"  [{half}] kept chatter: {text}" for label, text, r in got if label == "I" and r is None]
                missed += [f"  [{half}] ignored statement ({r}): {text}"
                           for label, text, r in got if label == "K" and r]
        if missed:
            print("\n".join(missed))
    if args.list:
        for reason, items in sorted(lost.items()):
            print(f"\n== {reason}: {len(items)}")
            for line in items:
                print("  " + line)


if __name__ == "__main__":
    main()
