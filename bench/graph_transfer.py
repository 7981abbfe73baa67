"""What carrying the knowledge graph through export and import costs, against extracting it again.

    python bench/graph_transfer.py [--count 2000] [--embedder none]

Fills a SQLite store with the short memories of ``bench/kg_ingest.py`` (offline extraction on), then times:

- ``export``: every record (memories, then the graph), serialised as JSON lines;
- ``import (graph carried)``: the export into a new store, the graph written from its records;
- ``import (older export)``: the same memories without graph records, the graph extracted again: the
  import's own time (until it answers), then ``+ graph read in``, the time until
  ``wait_for_extraction()`` returns (the enrichment worker extracts the queued memories; zero when the
  import extracted them itself);

and checks that the carried graph came back whole (entities and facts, by id). Prints records/s and
memories/s; wall and CPU seconds (CPU: this process, the worker thread included).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import knotwork
from knotwork import Settings

from kg_ingest import corpus


def timed(fn):  # (result, wall s, cpu s)
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--embedder", default="none")
    args = parser.parse_args()
    settings = Settings(embedder=args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source.db"
        with knotwork.open(source, settings=settings) as mem:
            mem.add_many(corpus(args.count), consolidate=False)
            lines, wall, cpu = timed(lambda: [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in mem.export()])
            entities, facts = len(mem.store.kg_entity_ids()), len(mem.store.kg_fact_ids())
        records = [json.loads(line) for line in lines]
        older = [{k: v for k, v in r.items() if k != "mentions"} for r in records if "record" not in r]
        print(f"store: {args.count} memories, {entities} entities, {facts} facts; export {len(lines)} records "
              f"({sum(map(len, lines)) / 1e6:.1f} MB)")
        print(f"export                  {wall:7.2f} s wall {cpu:7.2f} s cpu  {len(lines) / wall:9.0f} records/s")
        for name, rows in (("import (graph carried)", records), ("import (older export)", older)):
            with knotwork.open(Path(tmp) / f"{name[8:13]}.db", settings=settings) as mem:
                report, wall, cpu = timed(lambda: mem.import_records(rows))
                _, wait_wall, wait_cpu = timed(lambda: mem.wait_for_extraction())
                got = (len(mem.store.kg_entity_ids()), len(mem.store.kg_fact_ids()))
                if name.startswith("import (graph"):
                    assert set(mem.store.kg_entity_ids()) >= set(r["id"] for r in records if r.get("record") == "entity")
                    assert got == (entities, facts), got
            print(f"{name:23s} {wall:7.2f} s wall {cpu:7.2f} s cpu  {report.added / wall:9.0f} memories/s"
                  f"  -> {got[0]} entities, {got[1]} facts")
            if not name.startswith("import (graph"):
                print(f"{'  + graph read in':23s} {wait_wall:7.2f} s wall {wait_cpu:7.2f} s cpu  "
                      f"{report.added / (wall + wait_wall):9.0f} memories/s, import and graph together")


if __name__ == "__main__":
    main()
