"""The service's engines are built on first use, once, even when threads ask at the same moment."""

from __future__ import annotations

import threading
from pathlib import Path

import knotwork
from knotwork.services.parts import built

ENGINES = ("index", "lexical", "_pipeline", "knowledge", "enrichment", "writes", "hygiene")


def test_reading_a_memory_builds_no_engine_and_a_search_builds_what_it_needs(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db") as mem:
        added = mem.add("The nightly backup runs at 02:00", workspace="ops")
    with knotwork.open(tmp_path / "k.db") as mem:  # a store that is not new: nothing to upgrade at open
        assert mem.get(added.id).content == "The nightly backup runs at 02:00"
        assert [m.id for m in mem.list(workspace="ops")] == [added.id]
        assert [name for name in ENGINES if built(mem, name) is not None] == []
        assert [h.memory.id for h in mem.search("when does the backup run", workspace="ops")] == [added.id]
        assert {"index", "lexical", "_pipeline"} <= {name for name in ENGINES if built(mem, name) is not None}


def test_threads_asking_at_once_get_one_engine(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db") as mem:
        mem.add("Deploys need two reviews", workspace="w")
    with knotwork.open(tmp_path / "k.db") as mem:
        start = threading.Barrier(8)
        seen: list[object] = []

        def ask() -> None:
            start.wait()
            seen.append(mem.writes)  # builds knowledge, enrichment and the index on the way

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(seen) == 8 and len({id(w) for w in seen}) == 1
        assert mem.writes.knowledge is mem.knowledge and mem.writes.index is mem.index
