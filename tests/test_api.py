"""The public API on a real SQLite file: store, find, change and forget memories."""

from __future__ import annotations

import os.path
from datetime import UTC, datetime, timedelta

import pytest

import knotwork
from knotwork import AmbiguousId, Conflict, InvalidInput, Knotwork, NotFound


def test_add_returns_stored_memory_with_every_field(mem: Knotwork) -> None:
    m = mem.add(
        "Use ruff for linting in the api package",
        workspace="api",
        agent_id="coder",
        category="Decision",
        tags={"team": "platform", "priority": 2},
        artifacts=["pyproject.toml", "https://docs.astral.sh/ruff/"],
        evidence=["ADR-014", "PR-123"],
        importance=0.9,
        metadata={"source": "review"},
        valid_at="2026-01-03T10:00:00Z",
    )
    assert len(m.id) == 26 and not m.duplicate
    got = mem.get(m.id)
    assert got == m
    assert got.category == "decision"
    assert got.tags == {"team": "platform", "priority": "2"}
    assert got.artifacts == ["pyproject.toml", "https://docs.astral.sh/ruff/"]
    assert got.evidence == ["ADR-014", "PR-123"]
    assert got.importance == 0.9
    assert got.metadata == {"source": "review"}
    assert got.valid_at == datetime(2026, 1, 3, 10, tzinfo=UTC)
    assert got.workspace == "api" and got.agent_id == "coder"
    assert got.version == 1 and got.invalid_at is None


def test_valid_at_accepts_datetimes_and_defaults_to_now(mem: Knotwork) -> None:
    naive = datetime(2025, 5, 1, 12, 30)
    aware = datetime(2025, 5, 1, 14, 30, tzinfo=UTC) + timedelta(hours=0)
    a = mem.add("naive datetime is UTC", valid_at=naive)
    b = mem.add("aware datetime kept", valid_at=aware)
    c = mem.add("date only", valid_at="2025-05-01")
    before = datetime.now(UTC)
    d = mem.add("defaults to now")
    assert a.valid_at == datetime(2025, 5, 1, 12, 30, tzinfo=UTC)
    assert b.valid_at == aware
    assert c.valid_at == datetime(2025, 5, 1, tzinfo=UTC)
    assert abs((d.valid_at - before).total_seconds()) < 5


def test_same_content_same_scope_is_stored_once(mem: Knotwork) -> None:
    first = mem.add("The staging database is db-stage-2", workspace="ops")
    again = mem.add("  The staging   database is db-stage-2 ", workspace="ops")
    assert again.duplicate and again.id == first.id
    other_ws = mem.add("The staging database is db-stage-2", workspace="web")
    other_agent = mem.add("The staging database is db-stage-2", workspace="ops", agent_id="bot")
    assert not other_ws.duplicate and not other_agent.duplicate
    assert len({first.id, other_ws.id, other_agent.id}) == 3
    assert mem.store.count_memories() == 3


def test_add_many_is_one_transaction_and_dedups(mem: Knotwork) -> None:
    out = mem.add_many(
        [{"content": "alpha fact", "workspace": "w"}, {"content": "beta fact"}, {"content": "alpha fact", "workspace": "w"}]
    )
    assert [m.duplicate for m in out] == [False, False, True]
    assert out[2].id == out[0].id
    with pytest.raises(InvalidInput, match=r"items\[1\]\.content"):
        mem.add_many([{"content": "gamma fact"}, {"content": "   "}])
    with pytest.raises(InvalidInput, match=r"items\[0\].*unknown field"):
        mem.add_many([{"content": "delta", "colour": "red"}])
    assert mem.store.count_memories() == 2  # nothing of the failed batches landed


def test_workspace_scoping(mem: Knotwork) -> None:
    g = mem.add("deploy checklist lives in the wiki")
    a = mem.add("deploy with helm in cluster A", workspace="alpha")
    b = mem.add("deploy with ansible in cluster B", workspace="beta")
    in_alpha = {h.memory.id for h in mem.search("deploy", workspace="alpha")}
    in_beta = {h.memory.id for h in mem.search("deploy", workspace="beta")}
    in_global = {h.memory.id for h in mem.search("deploy")}
    assert in_alpha == {g.id, a.id}
    assert in_beta == {g.id, b.id}
    assert in_global == {g.id}
    assert {m.id for m in mem.list(workspace="alpha")} == {g.id, a.id}
    assert {m.id for m in mem.list()} == {g.id}
    assert {m.id for m in mem.list(workspace="*")} == {g.id, a.id, b.id}


@pytest.mark.parametrize(
    "query", ['"unbalanced', "foo*", "-bar", "NEAR(a b)", "a OR b", "AND", "NOT", "col:val", "a\"b\"c"],
)
def test_search_escapes_query_syntax(mem: Knotwork, query: str) -> None:
    mem.add("a plain note about foo and bar near the col val")
    hits = mem.search(query)  # must not raise
    assert isinstance(hits, list)


@pytest.mark.parametrize("query", ["(", ")", "^", "'", "***"])
def test_search_refuses_query_syntax_alone_by_name(mem: Knotwork, query: str) -> None:
    """Query syntax with no word in it is no query: refused naming the field, never passed to the index."""
    mem.add("a plain note about foo and bar near the col val")
    with pytest.raises(InvalidInput) as refused:
        mem.search(query)
    assert refused.value.field == "query"


def test_search_ranks_relevant_first_and_respects_limit(mem: Knotwork) -> None:
    mem.add_many([{"content": f"note number {i} about gardening"} for i in range(20)])
    target = mem.add("Redis is the cache for the reports module")
    hits = mem.search("which cache do reports use?", limit=5)
    assert hits[0].memory.id == target.id
    assert len(mem.search("gardening", limit=7)) == 7
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_search_filters(mem: Knotwork) -> None:
    a = mem.add("postgres tuning notes", category="ops", tags={"db": "pg"}, agent_id="x")
    b = mem.add("postgres backup notes", category="howto", tags={"db": "pg"}, agent_id="y")
    assert mem.search("postgres") == []  # both live in partitions: the shared pool has neither
    assert [h.memory.id for h in mem.search("postgres", category="ops", agent_id="*")] == [a.id]
    assert [h.memory.id for h in mem.search("postgres", agent_id="y")] == [b.id]
    assert {h.memory.id for h in mem.search("postgres", tags=["db=pg"], agent_id="*")} == {a.id, b.id}
    assert mem.search("postgres", tags={"db": "mysql"}, agent_id="*") == []


def test_invalid_memories_leave_search_unless_asked(mem: Knotwork) -> None:
    m = mem.add("the office is in Lisbon")
    mem.update(m.id, valid_at="1999-01-01", invalid_at="2000-01-01")
    assert mem.search("office Lisbon") == []
    assert [h.memory.id for h in mem.search("office Lisbon", include_invalid=True)] == [m.id]


def test_short_ids_resolve_by_prefix_and_suffix(mem: Knotwork) -> None:
    m = mem.add("short ids round-trip")
    assert mem.get(m.id[-8:]).id == m.id
    assert mem.get(m.id[-8:].lower()).id == m.id
    assert mem.get(m.id[:20]).id == m.id
    with pytest.raises(InvalidInput, match="at least 8"):
        mem.get(m.id[-7:])
    with pytest.raises(NotFound):
        mem.get("ZZZZZZZZZZ")


def test_ambiguous_prefix_lists_candidates(mem: Knotwork) -> None:
    for attempt in range(5):  # ids share their first 8 chars unless a ~1 s time boundary falls between them
        ms = mem.add_many([{"content": f"twin {attempt} {i}"} for i in range(3)])
        prefix = os.path.commonprefix([m.id for m in ms])
        if len(prefix) >= 8:
            break
    prefix = prefix[:8]
    with pytest.raises(AmbiguousId) as err:
        mem.get(prefix)
    for m in ms:
        assert m.id in str(err.value)
    assert set(err.value.candidates) == {m.id for m in ms}


def test_update_keeps_history(mem: Knotwork) -> None:
    m = mem.add("We host on Heroku", tags={"lang": "py"})
    u1 = mem.update(m.id, content="We host on Fly")
    u2 = mem.update(m.id[-8:], tags={"lang": "python"}, importance=0.8)
    same = mem.update(m.id, importance=0.8)  # changes nothing: no new version
    assert (u1.version, u2.version, same.version) == (2, 3, 3)
    versions = mem.history(m.id)
    assert [v.version for v in versions] == [1, 2, 3]
    assert [v.content for v in versions] == ["We host on Heroku", "We host on Fly", "We host on Fly"]
    assert versions[0].tags == {"lang": "py"} and versions[-1].tags == {"lang": "python"}
    assert mem.get(m.id).created_at == m.created_at
    assert [h.memory.id for h in mem.search("fly")] == [m.id]
    assert mem.search("heroku") == []


def test_update_refusals(mem: Knotwork) -> None:
    a = mem.add("first")
    mem.add("second")
    with pytest.raises(Conflict):
        mem.update(a.id, content="second")
    with pytest.raises(InvalidInput, match="cannot change workspace"):
        mem.update(a.id, workspace="x")
    with pytest.raises(InvalidInput, match="nothing to change"):
        mem.update(a.id)
    with pytest.raises(InvalidInput, match="content"):
        mem.update(a.id, content=" ")
    assert mem.history(a.id) == [mem.get(a.id)]


def test_delete_forgets_memory_and_history(mem: Knotwork) -> None:
    m = mem.add("temporary")
    mem.update(m.id, content="temporary, edited")
    gone = mem.delete(m.id[-8:])
    assert gone.id == m.id
    with pytest.raises(NotFound):
        mem.get(m.id)
    assert mem.search("temporary") == []
    assert mem.store.memory_versions(m.id) == []
    again = mem.add("temporary, edited")  # content identity freed too
    assert not again.duplicate


def test_list_pagination_and_filters(mem: Knotwork) -> None:
    made = mem.add_many([{"content": f"item {i}", "tags": {"n": i % 2}} for i in range(25)])
    seen: list[str] = []
    cursor = None
    while True:
        page = mem.list(limit=10, cursor=cursor)
        seen += [m.id for m in page]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [m.id for m in reversed(made)]  # newest first, every one once
    odd = mem.list(tags={"n": "1"}, limit=100)
    assert len(odd) == 12 and all(m.tags["n"] == "1" for m in odd)
    assert len(mem.list(tags=["n"], limit=100)) == 25
    with pytest.raises(InvalidInput, match="limit"):
        mem.list(limit=0)


def test_list_time_range(mem: Knotwork) -> None:
    m = mem.add("timed")
    assert [x.id for x in mem.list(since=m.created_at)] == [m.id]
    assert list(mem.list(until=m.created_at)) == []
    assert list(mem.list(since="2999-01-01")) == []


def test_reopen_keeps_everything(db_path) -> None:
    with knotwork.open(db_path) as mem:
        m = mem.add("persisted across processes", tags={"k": "v"})
    with knotwork.open(str(db_path)) as mem:
        assert mem.get(m.id) == m
    with knotwork.open(f"sqlite://{db_path}") as mem:
        assert mem.get(m.id) == m


def test_default_location_is_knotwork_home(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KNOTWORK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KNOTWORK_DB", raising=False)
    with knotwork.open() as mem:
        mem.add("in the home folder")
        assert mem.store.location == str(tmp_path / "home" / "knotwork.db")
    assert (tmp_path / "home" / "knotwork.db").exists()
