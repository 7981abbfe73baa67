"""``metadata.thread``: the documented key naming the conversation or session a memory belongs to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knotwork import InvalidInput, Knotwork
from tests._cli import run


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


def test_thread_field_is_stored_as_metadata_thread_and_filters_list_and_search(mem: Knotwork) -> None:
    a = mem.add("Ava: do you have a dog?", workspace="chat", thread=" walk-1 ", force=True)
    b = mem.add("Gus: yes, a beagle named Rex", workspace="chat", thread="walk-1", force=True)
    c = mem.add("Gus: our dog Rex hates the rain", workspace="chat", metadata={"thread": "walk-2"}, force=True)
    d = mem.add("Gus: Rex the dog again", workspace="chat", force=True)
    assert (a.thread, mem.get(b.id).thread, c.thread, d.thread) == ("walk-1", "walk-1", "walk-2", None)
    assert mem.get(a.id).metadata == {"thread": "walk-1"}
    assert mem.get(a.id).to_dict()["thread"] == "walk-1"
    assert {m.id for m in mem.list(workspace="chat", thread="walk-1")} == {a.id, b.id}
    assert [m.id for m in mem.list(workspace="chat", thread="walk-2")] == [c.id]  # metadata.thread is the same field
    assert {m.id for m in mem.list(workspace="chat")} == {a.id, b.id, c.id, d.id}
    found = mem.search("dog Rex", workspace="chat", thread="walk-1")
    assert found and {h.memory.id for h in found} <= {a.id, b.id}
    assert {h.memory.id for h in mem.search("dog Rex", workspace="chat")} >= {b.id, c.id, d.id}
    batch = mem.add_many([{"content": "Ava: it rained all day", "workspace": "chat", "thread": "walk-2"}], consolidate=False)
    assert [m.id for m in mem.list(workspace="chat", thread="walk-2")] == [batch[0].id, c.id]


def test_thread_moves_with_update_and_leaves_with_none(mem: Knotwork) -> None:
    m = mem.add("Ana: the build is green again", metadata={"by": "ana", "thread": "ci"}, force=True)
    moved = mem.update(m.id, thread="release")
    assert moved.thread == "release" and moved.metadata == {"by": "ana", "thread": "release"} and moved.version == 2
    assert [x.id for x in mem.list(thread="release")] == [m.id] and not list(mem.list(thread="ci"))
    out = mem.update(m.id, thread=None)
    assert out.thread is None and out.metadata == {"by": "ana"}
    both = mem.update(m.id, metadata={"by": "bo"}, thread="ci")
    assert both.metadata == {"by": "bo", "thread": "ci"}


def test_bad_threads_are_refused_naming_the_field_and_nothing_is_written(mem: Knotwork) -> None:
    for bad in ("", "  ", "a\nb", "x" * 201, 7):
        with pytest.raises(InvalidInput) as caught:
            mem.add("Deploys are frozen this week", thread=bad)
        assert caught.value.field == "thread"
        with pytest.raises(InvalidInput) as caught:
            mem.list(thread=bad)
        assert caught.value.field == "thread"
    with pytest.raises(InvalidInput, match="differs from metadata.thread"):
        mem.add("Deploys are frozen this week", thread="a", metadata={"thread": "b"})
    with pytest.raises(InvalidInput, match=r"items\[1\]\.thread"):
        mem.add_many([{"content": "first of two", "thread": "t"}, {"content": "second of two", "thread": ""}])
    assert mem.store.count_memories() == 0


def test_cli_thread_option_on_add_list_search_and_update(capsys, db_path: Path) -> None:
    db = str(db_path)
    code, out, _ = run(capsys, "add", "Ava: we adopted a beagle", "--db", db, "--thread", "chat-9", "--force", "--json")
    assert code == 0
    memory_id = json.loads(out)["id"]
    run(capsys, "add", "Gus: beagles are loud", "--db", db, "--force")
    code, out, _ = run(capsys, "list", "--db", db, "--thread", "chat-9", "--json")
    listed = json.loads(out)["memories"]
    assert code == 0 and [m["id"] for m in listed] == [memory_id] and listed[0]["thread"] == "chat-9"
    code, out, _ = run(capsys, "search", "beagle", "--db", db, "--thread", "chat-9", "--json")
    assert code == 0 and [h["memory"]["id"] for h in json.loads(out)["hits"]] == [memory_id]
    code, _, _ = run(capsys, "update", memory_id, "--db", db, "--thread", "")
    assert code == 0
    code, out, _ = run(capsys, "list", "--db", db, "--thread", "chat-9", "--json")
    assert json.loads(out)["memories"] == []
    code, _, err = run(capsys, "add", "Deploys are frozen", "--db", db, "--thread", "two\nlines")
    assert code == 2 and "thread" in err and len(err.strip().splitlines()) == 1
