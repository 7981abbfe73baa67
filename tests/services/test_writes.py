"""The write path as stages: each timed in write_stats, the vectors computed once per add (consolidation's
UPDATE stores the draft's own, no second embedding)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import knotwork
from knotwork import Settings


def open_background(tmp_path: Path) -> knotwork.Knotwork:
    mem = knotwork.open(tmp_path / "k.db", settings=Settings(home=tmp_path / "home", enrich="background"))
    mem.enrichment.stop()  # the graph's name vectors would count as embeddings too
    return mem


def test_an_update_decided_on_add_embeds_the_text_once_and_stores_those_vectors(tmp_path: Path) -> None:
    with open_background(tmp_path) as mem:
        calls = mem.embedder.coalescer.calls
        first = mem.add("The billing service uses Python 3.11 in production", workspace="w")
        assert first.decision == "ADD" and mem.embedder.coalescer.calls - calls == 1  # decided and stored on one run
        text = "The billing service uses Python 3.11 in production, deployed with blue-green releases"
        calls = mem.embedder.coalescer.calls
        more = mem.add(text, workspace="w")
        assert more.decision == "UPDATE" and more.touched == first.id
        assert mem.embedder.coalescer.calls - calls == 1
        stored = mem.store.vectors_by_memory([first.id])[first.id][1]
        fresh = mem.embedder.embed(mem.embedder.chunks(text))
        # SQLite keeps vectors as int8 with a scale (store/sqlite/scaled.py): a component within half a step (the
        # largest component / 254) of the fresh one, a little more once made unit length again
        assert np.allclose(np.frombuffer(stored[0], dtype="<f4"), fresh[0], atol=float(np.abs(fresh[0]).max()) / 127)
        assert [h.memory.id for h in mem.search("blue-green releases billing", workspace="w")][0] == first.id


def test_write_stats_time_each_stage_and_enrich_counts_memories_read_in(tmp_path: Path) -> None:
    with open_background(tmp_path) as mem:
        mem.add_many([{"content": f"Team {i} moved the billing service to PostgreSQL", "workspace": "w"} for i in range(3)])
        stats = mem.write_stats()
        assert list(stats) == ["validate", "embed", "decide", "store", "enrich"]
        assert all(stats[s]["runs"] == 1 and stats[s]["seconds"] > 0 for s in ("validate", "embed", "decide", "store"))
        assert stats["enrich"] == {"seconds": 0.0, "runs": 0}
        assert mem.wait_for_extraction(60)
        enrich = mem.write_stats()["enrich"]
        assert enrich["runs"] == 3 and enrich["seconds"] > 0


def test_inline_enrichment_is_timed_as_its_own_stage(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", enrich="inline", embedder="none")
    with knotwork.open(tmp_path / "k.db", settings=settings) as mem:
        mem.add("Alice works at Acme and lives in Berlin.", workspace="w")
        stats = mem.write_stats()
        assert stats["enrich"]["runs"] >= 1 and stats["enrich"]["seconds"] > 0
        assert mem.search_facts("Alice", workspace="w")  # read in by the add itself
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}


def test_status_shows_this_process_write_stages(tmp_path: Path) -> None:
    from knotwork.render import render

    with open_background(tmp_path) as mem:
        assert "writes:" not in render("status", mem.status(), "compact")
        mem.add("The deploy window is Tuesday at 14:00 UTC", workspace="w")
        status = mem.status()
        assert status.writes["embed"]["runs"] == 1 and status.writes["store"]["runs"] == 1
        line = render("status", status, "compact").splitlines()[-1]
        assert " · writes: validate " in line and " embed " in line and line.endswith("per run")
        assert mem.wait_for_extraction(60)
        assert "; enrich " in render("status", mem.status(), "compact")
