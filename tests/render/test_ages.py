"""One age everywhere: since the memory became true (valid_at), with the stored time beside it when that reads
differently; the same units in compact answers (CLI, MCP), the hooks' recall and the web UI (tests/web)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.domain.temporal import now as clock
from knotwork.text import recall as recall_text
from knotwork.text.ages import age, ago
from knotwork.render.respond import Responder


def test_a_memory_told_late_is_as_old_as_what_it_says_and_shows_when_it_was_stored(tmp_path: Path) -> None:
    at = clock()
    became_true = (at - timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with knotwork.open(tmp_path / "ages.db", settings=Settings(embedder="none")) as mem:
        late = mem.add("The office moved to Leeds.", valid_at=became_true)
        fresh = mem.add("The standup is at 09:30.")
        listed = {m.id: m for m in mem.list()}
        assert age(listed[late.id], at) == "1y ago (stored now)"
        assert age(listed[fresh.id], at) == "now"  # stored when it became true: one age
        shown = Responder(mem)("list", mem.list(), "compact")
        assert "1y ago (stored now) The office moved to Leeds." in shown
        assert recall_text.fact_entry(listed[late.id], at).endswith(f"(1y ago (stored now), {late.id[-8:]})")


def test_the_hooks_count_in_the_same_units_as_the_cli() -> None:
    at = clock()
    for days in (3, 40, 125, 630):
        then = at - timedelta(days=days)
        assert recall_text.ago(then, at) == ago(then, at)
    assert recall_text.ago(at - timedelta(weeks=90), at) == "1y ago"  # was "90w ago"
