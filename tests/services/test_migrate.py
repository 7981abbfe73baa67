"""``knotwork migrate``: a whole store moved SQLite -> PostgreSQL -> SQLite, everything kept, restartable."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

import knotwork
from knotwork import Settings
from knotwork.app import open_store
from knotwork.services import transfer
from tests._cli import run
from tests._snapshot import snapshot


def fill(path: str) -> dict[str, str]:
    with knotwork.open(path) as mem:
        a = mem.add("We deploy the shop with blue-green releases", workspace="shop", category="decision",
                    tags={"team": "ops"}, artifacts=["deploy.sh"], valid_at="2026-01-03T10:00:00Z")
        b = mem.add("Maximilian Fischer leads the payments team", workspace="shop",
                    entities=[{"name": "Maximilian Fischer", "type": "person", "summary": "payments lead"}],
                    facts=[{"subject": "Maximilian Fischer", "predicate": "works_at", "object": "Acme"}])
        c = mem.add("Maximilian Fischer now works at Globex", workspace="shop",
                    facts=[{"subject": "Maximilian Fischer", "predicate": "works_at", "object": "Globex"}])
        g = mem.add("Every service logs in JSON")
        mem.update(a.id, content="We deploy the shop with canary releases")
        mem.update(a.id, importance=0.9)
        mem.link(a.id, g.id, "references")
        mem.link(b.id, c.id, "relates_to", metadata={"why": "same person"})
        return {"a": a.id, "b": b.id, "c": c.id, "g": g.id}


def test_a_store_moves_to_postgres_and_back_unchanged(capsys, tmp_path: Path, postgres_database) -> None:
    source = str(tmp_path / "a.db")
    ids = fill(source)
    url = postgres_database.fresh()
    code, out, err = run(capsys, "migrate", "--from", f"sqlite:///{source}", "--to", url, "--progress")
    assert code == 0, err
    before, moved = snapshot(source), snapshot(url)
    facts = len(before["facts"])  # the two given, and what the local extractor found in the texts
    assert "✓ memories: 4 -> 4" in out and "✓ links: 2 -> 2" in out and f"✓ facts: {facts} -> {facts}" in out
    assert "memories" in err  # the progress bars
    assert moved == before
    assert len(before["history"][ids["a"]]) == 2 and before["vectors"] and before["facts"]
    assert any(f.superseded_by for f in before["facts"])  # the retired fact points at its replacement
    with knotwork.open(url) as mem:  # the moved store answers as the first did
        assert [h.memory.id for h in mem.search("canary releases", workspace="shop", limit=1)] == [ids["a"]]
        assert [r.memory.id for r in mem.related(ids["b"])] == [ids["c"]]
    back = str(tmp_path / "b.db")
    code, out, err = run(capsys, "migrate", "--from", url, "--to", back)
    assert code == 0, err
    assert snapshot(back) == before


def test_an_interrupted_move_finishes_when_run_again_without_duplicates(
    capsys, tmp_path: Path, postgres_database, monkeypatch
) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=Settings(embedder="none")) as mem:
        made = [mem.add(f"memory number {i}", workspace="w").id for i in range(7)]
        mem.link(made[0], made[6], "relates_to")
    url = postgres_database.fresh()
    monkeypatch.setattr(transfer, "BATCH", 3)

    def stop_after_first_batch(what: str, done: int) -> None:
        raise KeyboardInterrupt

    with closing(open_store(source, Settings())) as src, closing(open_store(url, Settings())) as dst:
        with pytest.raises(KeyboardInterrupt):
            transfer.move(src, dst, stop_after_first_batch)
        assert dst.count_memories() == 3  # the first batch landed whole
    code, out, err = run(capsys, "migrate", "--from", source, "--to", url)
    assert code == 0, err
    code, out, err = run(capsys, "migrate", "--from", source, "--to", url)  # once more: nothing to add
    assert code == 0, err
    assert "✓ memories: 7 -> 7" in out and "✓ links: 1 -> 1" in out
    assert snapshot(url) == snapshot(source)


def test_similar_lists_that_name_later_batches_move_and_finish_after_an_interruption(
    capsys, tmp_path: Path, postgres_database, monkeypatch
) -> None:
    """A memory's similar list names memories of any batch (here the lists span batches of 3): the lists
    go once every memory is there; a move stopped before them writes them when run again."""
    source = str(tmp_path / "a.db")
    with knotwork.open(source) as mem:
        mem.add_many([{"content": f"The release train {i} leaves on a Tuesday", "workspace": "w"} for i in range(8)],
                     consolidate=False)
    url = postgres_database.fresh()
    monkeypatch.setattr(transfer, "BATCH", 3)

    def stop_at_the_lists(what: str, done: int) -> None:
        if what == "similar lists":
            raise KeyboardInterrupt

    with closing(open_store(source, Settings())) as src, closing(open_store(url, Settings())) as dst:
        with pytest.raises(KeyboardInterrupt):
            transfer.move(src, dst, stop_at_the_lists)
        assert dst.count_memories() == 8
    code, out, err = run(capsys, "migrate", "--from", source, "--to", url)
    assert code == 0, err
    before, moved = snapshot(source), snapshot(url)
    assert len(before["similar"]) == 8 and all(len(near) == 5 for near in before["similar"].values())
    assert moved == before


def test_migrate_refuses_the_same_store_and_names_the_option(capsys, tmp_path: Path) -> None:
    path = str(tmp_path / "a.db")
    code, _, err = run(capsys, "migrate", "--from", path, "--to", path)
    assert code == 2 and "--to" in err
