"""Two runs of one benchmark side by side, question by question: did any ranked list move?

Reads two ``--json`` reports of bench/longmemeval.py, bench/codemem.py or bench/convo.py (the same questions,
e.g. a store before and after a change of the vector representation) and prints, per knotwork row and half
(LongMemEval: bench/longmemeval.py ``half()``; codemem: each question's half; convo: the report's half), every
hit figure of both runs and how many questions kept the same top ``--top`` ids in the same order, the same ids
in another order, or other ids.

    .venv/bin/python bench/ranked_diff.py before.json after.json [--top 10]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval  # noqa: E402


def rows(report: dict) -> dict[str, dict[str, dict]]:
    """Row name -> question id -> {"half", "hits", "ranked"}, whichever benchmark wrote the report."""
    if "systems" in report:  # longmemeval
        return {name: {qid: {**q, "half": longmemeval.half(qid)} for qid, q in s["questions"].items()}
                for name, s in report["systems"].items()}
    half = report.get("half")
    return {name: {qid: {**q, "half": q.get("half", half)} for qid, q in qs.items()}
            for name, qs in report["questions"].items()}


def mean(run: dict[str, dict], ids: list[str], metric: str) -> float:
    """The mean of a hit figure over the questions that have one (LongMemEval leaves turn figures out where no
    turn is marked)."""
    values = [run[q]["hits"][metric] for q in ids if run[q]["hits"][metric] is not None]
    return sum(values) / len(values) if values else float("nan")


def compare(a: dict[str, dict], b: dict[str, dict], top: int) -> list[str]:
    lines = []
    for half in sorted({q["half"] for q in a.values()}):
        ids = [qid for qid, q in a.items() if q["half"] == half and qid in b]
        same = order = other = 0
        for qid in ids:
            x, y = a[qid]["ranked"][:top], b[qid]["ranked"][:top]
            same += x == y
            order += x != y and sorted(x) == sorted(y)
            other += sorted(x) != sorted(y)
        metrics = sorted(a[ids[0]]["hits"]) if ids else []
        figures = ", ".join(f"{m} {mean(a, ids, m):.3f} → {mean(b, ids, m):.3f}" for m in metrics)
        lines.append(f"  {half}: {len(ids)} questions; top {top} identical {same}, reordered {order}, "
                     f"other ids {other}; {figures}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    a, b = (rows(json.loads(p.read_text(encoding="utf-8"))) for p in (args.before, args.after))
    for name in a:
        if name not in b:
            continue
        print(name)
        print("\n".join(compare(a[name], b[name], args.top)))


if __name__ == "__main__":
    main()
