"""Query terms in more than half of the memories are left out of the FTS query in big stores."""

from __future__ import annotations

from pathlib import Path

import knotwork
from knotwork.store.sqlite.termstats import MIN_ROWS


def test_terms_in_most_rows_are_dropped_only_in_big_stores(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    with knotwork.open(tmp_path / "k.db") as mem:
        stats = mem.store._term_stats
        mem.add("the zebra crossing")
        assert stats.informative(["the", "zebra"]) == ["the", "zebra"]  # small store: everything counts
        mem.add_many([{"content": f"the note number {i} about running"} for i in range(MIN_ROWS)])
        # "the" is in every row, "running" (stemmed: "run" matches "running") in most; "zebra" in one.
        assert stats.informative(["the", "runs", "zebra", "missing"]) == ["missing", "zebra"]  # rarest first
        assert stats.informative(["the"]) == []
        # Dropping them changes no ranking: the rare word still finds its memory first.
        assert mem.search("the zebra", recipe="memory_bm25")[0].memory.content == "the zebra crossing"


def test_document_frequencies_follow_other_writers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    with knotwork.open(tmp_path / "k.db") as reader, knotwork.open(tmp_path / "k.db") as writer:
        writer.add_many([{"content": f"plain row {i}"} for i in range(MIN_ROWS)])
        assert reader.store._term_stats.informative(["kiwi"]) == ["kiwi"]
        writer.add_many([{"content": f"kiwi row {i}"} for i in range(MIN_ROWS + 10)])
        # The reader's cache is dropped once the row count moved by a tenth: "kiwi" is now in most rows.
        assert reader.store._term_stats.informative(["kiwi", "plain"]) == ["plain"]


def test_common_terms_give_way_to_rare_ones_past_the_postings_budget(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    monkeypatch.setattr("knotwork.store.sqlite.termstats.POSTINGS_BUDGET", 150)
    with knotwork.open(tmp_path / "k.db") as mem:
        mem.add_many([{"content": f"row {i} " + ("apple " if i < 100 else "") + ("pear" if i < 60 else "")} for i in range(400)])
        mem.add("plum and apple and pear")
        stats = mem.store._term_stats
        # plum (1) + pear (61) fit in 150 postings; apple (101) would not.
        assert stats.informative(["apple", "pear", "plum"]) == ["plum", "pear"]
        # The rarest term stays even when it alone is over the budget.
        assert stats.informative(["apple"]) == ["apple"]
        assert mem.search("plum apple pear", recipe="memory_bm25")[0].memory.content == "plum and apple and pear"


def test_bm25_ranks_before_filtering_yet_misses_nothing_a_filter_keeps(tmp_path: Path, monkeypatch) -> None:
    # FTS5 ranks the best 2 x limit rows first and filters after; when the filter
    # leaves too few of them, the query runs again with the filter inside.
    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    with knotwork.open(tmp_path / "k.db") as mem:
        # More strong matches elsewhere than the 2 x 100 candidates ranked first (memory_bm25 takes 100).
        mem.add_many([{"content": f"apple apple apple {i}", "workspace": "orchard"} for i in range(250)])
        mem.add_many([{"content": f"filler row {i}"} for i in range(300)])  # keeps "apple" under half the rows
        mine = [mem.add(f"an apple in a long sentence about other things, number {i}", workspace="kitchen").id for i in range(3)]
        everywhere = mem.search("apple", workspace="*", recipe="memory_bm25", limit=5)
        assert {h.memory.workspace for h in everywhere} == {"orchard"}  # the strong matches rank first...
        kitchen = mem.search("apple", workspace="kitchen", recipe="memory_bm25", limit=5)
        assert sorted(h.memory.id for h in kitchen) == sorted(mine)  # ...yet the filtered search finds all three
        orchard = mem.search("apple", workspace="orchard", recipe="memory_bm25", limit=5)
        assert len(orchard) == 5 and {h.memory.workspace for h in orchard} == {"orchard"}
