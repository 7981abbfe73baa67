"""Memory hygiene on a noisy corpus built from real text: what is kept, what is lost, recall, add latency.

The corpus: the user turns of the answer sessions of ``--questions`` LongMemEval
questions, mixed with noise. The true memories, each of which must survive, are
those turns except the ones that are questions and nothing else ("Can you suggest
some meditation apps? Which one is free?"): those are what an agent should not
store (the issue's "search queries"), and are counted apart. The noise:

- profile snapshots synced hourly (``--days`` days × 24, partition ``profile-mgr``,
  category ``snapshot``, tag ``key=profile``), each summing up the latest true memories;
- restated facts: every ``--restate``-th true memory again, lower-cased or with
  a filler lead ("As I said, ...");
- search queries: each question's text, as an agent might store what it searched for;
- speculation: "Maybe ..." / "It might be that ..." notes.

Two stores get the same adds in the same order. *before*: knotwork as it was
(``consolidate=False``, ``force=True``, snapshots as plain memories, reads over every
partition). *after*: the defaults (consolidation, store/ignore rules, snapshots once a
day, reads of the shared pool). Reported: memories before/after, duplicates and
snapshots removed, true memories lost (a true memory survives when a current memory
holds all its words), session recall@5 of the questions on both stores, and add
latency p50/p95 of the true memories with consolidation vs plain, in the same process.

Run: python bench/hygiene.py [--questions 30]
"""

from __future__ import annotations

import argparse
import os
import re
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import knotwork
from knotwork.config import Settings
from knotwork.hygiene.consolidate import words

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval  # noqa: E402

DATA = Path("/work/shared/data/longmemeval_oracle.json.gz")
WS = "bench"
FILLERS = ("As I said, ", "Like I mentioned, ", "Just to repeat: ")


def corpus(args: argparse.Namespace) -> tuple[list[dict], list[longmemeval.Question]]:
    """Every add in order: {content, kind, fields, session}; and the questions."""
    data = longmemeval.load(args.data)
    rng = random.Random(14)
    questions = [q for q in longmemeval.spread([q for q in data.questions if not q.abstention], args.questions)]
    sessions = {s for q in questions for s in q.answer_sessions}
    turns = [t for t in data.turns if t.session_id in sessions and t.role == "user" and len(t.content.strip()) > 20]
    items: list[dict] = []
    start = datetime(2030, 1, 1)
    true_seen: list[str] = []
    snapshots = [start + timedelta(hours=h) for h in range(24 * args.days)]
    step = max(1, len(turns) // max(1, len(snapshots)))
    for i, t in enumerate(turns):
        text = t.content.strip()
        lone_question = text.endswith("?") and not re.search(r"[.!](\s|$)", text)  # questions, no statement
        items.append({"content": text, "kind": "question turn" if lone_question else "true", "session": t.session_id})
        true_seen.append(text)
        if i % args.restate == 0:
            variant = text.lower() if rng.random() < 0.5 else rng.choice(FILLERS) + text[0].lower() + text[1:]
            items.append({"content": variant, "kind": "restated", "session": t.session_id})
        if i % step == 0 and snapshots:
            at = snapshots.pop(0)
            recent = "; ".join(s[:60] for s in true_seen[-3:])
            items.append({"content": f"User profile (sync {at:%Y-%m-%d %H:%M}): recent topics: {recent}", "kind": "snapshot",
                          "valid_at": at.isoformat() + "Z"})
    for q in questions:
        items.append({"content": q.text, "kind": "query"})
        topic = " ".join(q.text.split()[2:8]).rstrip("?")
        items.append({"content": f"Maybe the answer about {topic} is in an older chat", "kind": "speculation"})
    rng.shuffle(items[len(items) - 2 * len(questions):])
    return items, questions


def store(mems: dict[str, knotwork.Knotwork], items: list[dict]) -> dict[str, tuple[list[float], Counter]]:
    """Add every item to both stores, alternating which goes first (so load changes hit both alike);
    per store, the add latencies (ms) of the true memories and the decisions by kind."""
    out = {name: ([], Counter()) for name in mems}
    for n, item in enumerate(items):
        for name in (("before", "after") if n % 2 else ("after", "before")):
            hygiene = name == "after"
            fields: dict = {"workspace": WS, "metadata": {"session": item.get("session", "")}}
            if item["kind"] == "snapshot":
                fields.update(agent_id="profile-mgr", tags={"key": "profile"}, valid_at=item["valid_at"],
                              category="snapshot" if hygiene else "status")
            if not hygiene:
                fields.update(consolidate=False, force=True)
            started = time.perf_counter()
            m = mems[name].add(item["content"], **fields)
            if item["kind"] == "true":
                out[name][0].append((time.perf_counter() - started) * 1000)
            out[name][1][(item["kind"], m.decision)] += 1
    return out


def survivors(mem: knotwork.Knotwork, items: list[dict]) -> int:
    """True memories lost: no current memory of the workspace holds all their words."""
    current = [set(words(m.content)) for m in _all(mem)]
    lost = 0
    for item in items:
        if item["kind"] == "true":
            need = set(words(item["content"]))
            lost += not any(need <= have for have in current)
    return lost


def _all(mem: knotwork.Knotwork) -> list[knotwork.Memory]:
    out, cursor = [], None
    while True:
        page = mem.list(workspace=WS, limit=1000, cursor=cursor, include_invalid=False)
        out += page
        if not page.next_cursor:
            return out
        cursor = page.next_cursor


def recall_at(mem: knotwork.Knotwork, questions: list[longmemeval.Question], agent_id: str | None, k: int = 5) -> float:
    hit = 0
    for q in questions:
        found = mem.search(q.text, workspace=WS, limit=k, agent_id=agent_id)
        hit += any(h.memory.metadata.get("session") in q.answer_sessions for h in found)
    return hit / len(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--restate", type=int, default=4, help="restate every n-th true memory")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    items, questions = corpus(args)
    kinds = Counter(i["kind"] for i in items)
    print(f"corpus: {len(items)} adds ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"{len(questions)} questions")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        results = {}
        with knotwork.open(Path(tmp) / "before.db", settings=Settings(home=home)) as before, \
                knotwork.open(Path(tmp) / "after.db", settings=Settings(home=home)) as after:
            mems = {"before": before, "after": after}
            for mem in mems.values():
                mem.warm()
            added = store(mems, items)
            after.prune()
            for name, mem in mems.items():
                took, decisions = added[name]
                results[name] = {
                    "memories": mem.store.count_memories(),
                    "current": len(_all(mem)),
                    "lost": survivors(mem, items),
                    # before: a read saw every partition (agent_id None meant all of them)
                    "recall@5": recall_at(mem, questions, "*" if name == "before" else None),
                    "p50": statistics.median(took),
                    "p95": statistics.quantiles(took, n=20)[18],
                    "decisions": decisions,
                    "health": mem.stats().health,
                }
        b, a = results["before"], results["after"]
        print(f"\n{'':<28}{'before':>10}{'after':>10}")
        for key in ("memories", "current", "lost", "recall@5", "p50", "p95"):
            fmt = (lambda v: f"{v:.3f}") if key == "recall@5" else (lambda v: f"{v:.1f}") if key in ("p50", "p95") else str
            print(f"{key:<28}{fmt(b[key]):>10}{fmt(a[key]):>10}")
        d = a["decisions"]
        print("\nafter, decisions by kind: " + ", ".join(f"{k}/{v}: {n}" for (k, v), n in sorted(d.items())))
        print(f"duplicates removed: {d[('restated', 'NOOP')] + d[('restated', 'UPDATE')]} of {kinds['restated']} restated; "
              f"snapshots kept {a['health']['snapshots']} of {kinds['snapshot']} "
              f"(replaced {a['health']['snapshots_replaced']}, pruned {a['health']['snapshots_pruned']}); "
              f"ignored {a['health']['ignored_adds']} (queries {d[('query', 'IGNORE')]}/{kinds['query']}, "
              f"speculation {d[('speculation', 'IGNORE')]}/{kinds['speculation']}, question turns "
              f"{d[('question turn', 'IGNORE')]}/{kinds['question turn']}, true {d[('true', 'IGNORE')]})")
        print(f"add latency p95 with consolidation / plain: {a['p95'] / b['p95']:.2f}x "
              f"(p50 {a['p50'] / b['p50']:.2f}x); orphans after: {a['health']['orphaned']}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
