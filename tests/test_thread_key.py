"""``metadata.thread``: the documented key naming the conversation or session a memory belongs to."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork import InvalidInput, Knotwork
from tests.test_cli import run


def test_thread_is_kept_trimmed_and_bad_ones_are_refused_whole(mem: Knotwork) -> None:
    m = mem.add("We ship on Thursdays", metadata={"thread": "  standup-2026-11-26 ", "by": "ana"})
    assert mem.get(m.id).metadata == {"thread": "standup-2026-11-26", "by": "ana"}
    for bad in ("", "   ", "two\nlines", "x" * 201, 42, None, ["a"]):
        with pytest.raises(InvalidInput) as caught:
            mem.add(f"Release notes for {bad!r}", metadata={"thread": bad})
        assert caught.value.field == "metadata.thread"
    with pytest.raises(InvalidInput, match=r"items\[1\]\.metadata\.thread"):
        mem.add_many([{"content": "first of two"}, {"content": "second of two", "metadata": {"thread": ""}}])
    with pytest.raises(InvalidInput, match="metadata.thread"):
        mem.update(m.id, metadata={"thread": 7})
    assert mem.store.count_memories() == 1  # nothing half-written
    assert mem.get(m.id).version == 1


def test_cli_refuses_a_bad_thread_with_exit_2(capsys, db_path: Path) -> None:
    code, _, err = run(capsys, "add", "Deploys are frozen", "--db", str(db_path), "--metadata", '{"thread": 5}')
    assert code == 2 and "metadata.thread" in err and len(err.strip().splitlines()) == 1
