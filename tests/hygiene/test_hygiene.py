"""Memory hygiene through the API: partitions, consolidation on add, duplicates and merges, snapshots,
store/ignore instructions, expiry and the health in the stats."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput, Knotwork, NotFound
from knotwork.config import Settings
from knotwork.domain.temporal import now
from tests._sql import execute


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def hmem(target: str, home: Path) -> Iterator[Knotwork]:
    """A store (on each backend) whose instructions come from ``home`` (no user's instructions.txt can leak in)."""
    with knotwork.open(target, settings=Settings(home=home)) as m:
        yield m


def _count(mem: Knotwork) -> int:
    return mem.store.count_memories()


# -- 1. partitions ------------------------------------------------------------------------
def test_reads_see_the_shared_pool_unless_a_partition_is_named(hmem: Knotwork) -> None:
    shared = hmem.add("The release train leaves every Tuesday", workspace="w")
    ops = hmem.add("The release train status page was regenerated", workspace="w", agent_id="profile-mgr")
    assert [h.memory.id for h in hmem.search("release train", workspace="w")] == [shared.id]
    assert [m.id for m in hmem.list(workspace="w")] == [shared.id]
    assert [h.memory.id for h in hmem.search("release train", workspace="w", agent_id="profile-mgr")] == [ops.id]
    assert {m.id for m in hmem.list(workspace="w", agent_id="*")} == {shared.id, ops.id}
    recalled = hmem.recall(workspace="w", query="release train").text
    assert "every Tuesday" in recalled and "regenerated" not in recalled


@pytest.mark.parametrize("bad", ["prof*", "**", "a b", "-x"])
def test_a_bad_partition_is_a_clear_error(hmem: Knotwork, bad: str) -> None:
    with pytest.raises(InvalidInput, match="agent_id"):
        hmem.search("anything", agent_id=bad)
    with pytest.raises(InvalidInput, match="agent_id"):
        hmem.add("We chose SQLite for the store", agent_id=bad)
    assert _count(hmem) == 0


# -- 2. consolidation on add ---------------------------------------------------------------
def test_add_decides_add_update_supersede_and_noop(hmem: Knotwork) -> None:
    first = hmem.add("The billing service uses Python 3.11 in production", workspace="w")
    assert first.decision == "ADD" and first.touched is None

    again = hmem.add("the billing service uses python 3.11 in production.", workspace="w")
    assert again.decision == "NOOP" and again.touched == first.id and again.id == first.id

    more = hmem.add("The billing service uses Python 3.11 in production, deployed with blue-green releases", workspace="w")
    assert more.decision == "UPDATE" and more.touched == first.id and more.version == 2
    assert [m.content for m in hmem.history(first.id)][0] == first.content  # the old text stays in the history

    changed = hmem.add(
        "The billing service uses Python 3.12 in production, deployed with blue-green releases",
        workspace="w", valid_at="2030-01-01T00:00:00Z",
    )
    assert changed.decision == "SUPERSEDE" and changed.touched == first.id and changed.id != first.id
    old = hmem.get(first.id)
    assert old.invalid_at == datetime(2030, 1, 1, tzinfo=UTC)  # retired at the new valid_at, as supersedes links do
    assert [r.type for r in hmem.relationships(changed.id, "outgoing")] == ["supersedes"]
    assert _count(hmem) == 2


def test_consolidation_stays_within_workspace_and_partition_and_can_be_turned_off(hmem: Knotwork) -> None:
    a = hmem.add("The deploy window is Tuesday at 14:00 UTC", workspace="w")
    elsewhere = hmem.add("the deploy window is tuesday at 14:00 utc", workspace="v")
    partition = hmem.add("the deploy window is tuesday at 14:00 utc", workspace="w", agent_id="bot")
    off = hmem.add("the deploy window is tuesday at 14:00 utc", workspace="w", consolidate=False)
    assert {m.decision for m in (elsewhere, partition, off)} == {"ADD"}
    assert len({a.id, elsewhere.id, partition.id, off.id}) == 4
    with pytest.raises(InvalidInput, match="consolidate"):
        hmem.add("The deploy window moved to Wednesday", consolidate="no")  # type: ignore[arg-type]
    assert _count(hmem) == 4


def test_add_many_decides_each_item_against_the_store_and_the_batch(hmem: Knotwork) -> None:
    stored = hmem.add("The billing service uses Python 3.11 in production", workspace="w")
    out = hmem.add_many([
        {"content": "the billing service uses python 3.11 in production.", "workspace": "w"},  # NOOP (store)
        {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "w"},  # ADD
        {"content": "The deploy window is Tuesday at 14:00 UTC, announced in #ops", "workspace": "w"},  # UPDATE (batch)
        {"content": "Maybe the cache is stale", "workspace": "w"},  # IGNORE
        {"content": "The billing service uses Python 3.12 in production", "workspace": "w"},  # SUPERSEDE (store)
        {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "w"},  # exact repeat of item 1
    ])
    assert [m.decision for m in out] == ["NOOP", "ADD", "UPDATE", "IGNORE", "SUPERSEDE", "NOOP"]
    assert out[0].touched == stored.id
    window = out[1].id
    assert out[2].touched == window and out[2].id == window and out[2].version == 2
    assert [m.content for m in hmem.history(window)][0] == "The deploy window is Tuesday at 14:00 UTC"
    assert out[4].touched == stored.id and hmem.get(stored.id).invalid_at is not None
    assert out[5].duplicate and out[5].id == window
    assert _count(hmem) == 3  # the 3.11 memory (retired), the deploy window, the 3.12 memory
    health = hmem.stats().health
    assert health["ignored_adds"] == 1 and health["superseded_on_add"] == 1


def test_add_many_without_an_embedder_consolidates_by_words(target: str, home: Path) -> None:
    with knotwork.open(target, settings=Settings(home=home, embedder="none")) as mem:
        out = mem.add_many([
            {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "w"},
            {"content": "The deploy window is Tuesday at 14:00 UTC, announced in #ops", "workspace": "w"},
            {"content": "The deploy window is Tuesday at 14:00 UTC", "workspace": "v"},
        ])
        assert [m.decision for m in out] == ["ADD", "UPDATE", "ADD"]
        assert out[1].id == out[0].id and mem.store.count_memories() == 2


def test_add_many_as_a_raw_load_and_all_or_nothing(hmem: Knotwork) -> None:
    texts = ["The deploy window is Tuesday at 14:00 UTC", "the deploy window is tuesday at 14:00 utc",
             "Maybe the cache is stale"]
    raw = hmem.add_many([{"content": t, "workspace": "w"} for t in texts], consolidate=False, force=True)
    assert [m.decision for m in raw] == ["ADD"] * 3 and _count(hmem) == 3
    with pytest.raises(InvalidInput, match="force"):
        hmem.add_many([{"content": "The release is on Friday"}], force=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"items\[1\]\.importance"):
        hmem.add_many([{"content": "The release is on Friday"}, {"content": "x", "importance": 7}])
    assert _count(hmem) == 3


def test_different_statements_sharing_words_are_both_kept(hmem: Knotwork) -> None:
    a = hmem.add("We merged PR 123 into the billing service today", workspace="w")
    b = hmem.add("We merged PR 124 into the billing service today", workspace="w")
    c = hmem.add("Alice reviewed the billing service migration", workspace="w")
    d = hmem.add("Bob reviewed the billing service migration", workspace="w")
    assert [m.decision for m in (a, b, c, d)] == ["ADD"] * 4
    assert all(hmem.get(m.id).invalid_at is None for m in (a, b, c, d))


# -- 2b. duplicates and merges of existing data -------------------------------------------
def test_find_duplicates_and_merge_keep_history_and_links(hmem: Knotwork) -> None:
    a = hmem.add("Retry failed webhooks three times with exponential backoff", workspace="w", consolidate=False)
    b = hmem.add("Retry failed webhooks 3 times with exponential backoff", workspace="w", consolidate=False)
    other = hmem.add("The office plants need watering on Fridays", workspace="w")
    hmem.link(b.id, other.id, "relates_to")
    groups = hmem.find_duplicates(0.9, workspace="w")
    assert [sorted(g.ids) for g in groups] == [sorted([a.id, b.id])]
    report = hmem.merge([a.id, b.id])
    assert report.kept == a.id and report.merged == [b.id]
    merged = hmem.get(b.id)  # retired, never deleted
    assert merged.invalid_at is not None and len(hmem.history(b.id)) == 2
    assert {r.type for r in hmem.relationships(b.id)} == {"relates_to", "supersedes"}
    assert hmem.find_duplicates(0.9, workspace="w") == []  # the merged one left the current memories
    assert hmem.stats().health["duplicates_merged"] == 1


@pytest.mark.parametrize("threshold", [0.2, 1.5, "high", float("nan"), True])
def test_find_duplicates_rejects_a_bad_threshold(hmem: Knotwork, threshold: object) -> None:
    with pytest.raises(InvalidInput, match="threshold"):
        hmem.find_duplicates(threshold)  # type: ignore[arg-type]


def test_merge_errors_write_nothing(hmem: Knotwork) -> None:
    a = hmem.add("Cache keys expire after ten minutes", workspace="a")
    b = hmem.add("Cache keys expire after 10 minutes", workspace="b")
    c = hmem.add("Cache keys expire after ten minutes", workspace="a", agent_id="bot")
    with pytest.raises(InvalidInput, match="different workspaces"):
        hmem.merge([a.id, b.id])
    with pytest.raises(InvalidInput, match="partitions"):
        hmem.merge([a.id, c.id])
    with pytest.raises(InvalidInput, match="at least two"):
        hmem.merge([a.id, a.id])
    with pytest.raises(NotFound):
        hmem.merge([a.id, "01ZZZZZZZZZZZZZZZZZZZZZZZZ"])
    assert hmem.store.count_links() == 0 and all(hmem.get(m.id).invalid_at is None for m in (a, b, c))


# -- 3. snapshots -----------------------------------------------------------------------------
def _snapshot(mem: Knotwork, text: str, at: str, key: str = "profile", **kw: object) -> knotwork.Memory:
    return mem.add(text, category="snapshot", tags={"key": key}, valid_at=at, workspace="w", agent_id="profile-mgr", **kw)


def test_a_snapshot_replaces_that_days_earlier_ones(hmem: Knotwork) -> None:
    day1 = [_snapshot(hmem, f"Profile: 1{i} open tickets", f"2030-01-01T0{i}:00:00Z") for i in range(3)]
    day2 = _snapshot(hmem, "Profile: 20 open tickets", "2030-01-02T09:00:00Z")
    other_key = _snapshot(hmem, "Status: all green", "2030-01-02T10:00:00Z", key="status")
    kept = hmem.list(workspace="w", agent_id="profile-mgr", category="snapshot")
    assert {m.id for m in kept} == {day1[-1].id, day2.id, other_key.id}
    assert day1[2].touched == day1[1].id and "replaced 1" in day1[2].reason
    older = _snapshot(hmem, "Profile: 9 open tickets", "2030-01-02T08:00:00Z")  # earlier than the day's kept one
    assert older.decision == "NOOP" and older.touched == day2.id
    assert hmem.stats().health["snapshots_replaced"] == 2


def test_one_batch_of_snapshots_replaces_one_another_in_turn(hmem: Knotwork) -> None:
    """Two snapshots of one key and day in one batch, over a stored earlier one: each replaces the one before it
    inside the same transaction, so the second's similar list must not name the first's deleted predecessor
    (the vector index still holds it until the transaction commits)."""
    first = _snapshot(hmem, "Profile: 10 open tickets, mood calm", "2030-01-01T01:00:00Z")
    hmem.add("The harbor database moved to PostgreSQL", workspace="w")
    kw = {"category": "snapshot", "tags": {"key": "profile"}, "workspace": "w", "agent_id": "profile-mgr"}
    second, third = hmem.add_many([
        {"content": "Profile: 11 open tickets, mood busy", "valid_at": "2030-01-01T02:00:00Z", **kw},
        {"content": "Profile: 12 open tickets, mood tired", "valid_at": "2030-01-01T03:00:00Z", **kw},
    ])
    assert (second.touched, third.touched) == (first.id, second.id)
    kept = hmem.list(workspace="w", agent_id="profile-mgr", category="snapshot")
    assert [m.id for m in kept] == [third.id]
    assert hmem.stats().health["snapshots_replaced"] == 2


def test_snapshots_never_appear_in_default_reads(hmem: Knotwork) -> None:
    snap = hmem.add("Profile: prefers tea, 12 open tickets", category="snapshot", tags={"key": "profile"}, workspace="w")
    fact = hmem.add("The user prefers tea over coffee", workspace="w")
    assert [h.memory.id for h in hmem.search("prefers tea", workspace="w")] == [fact.id]
    assert [m.id for m in hmem.list(workspace="w")] == [fact.id]
    assert [m.id for m in hmem.list(workspace="w", category="snapshot")] == [snap.id]


def test_prune_snapshots_keeps_the_latest_of_each_day_and_is_idempotent(target: str, home: Path) -> None:
    with knotwork.open(target, settings=Settings(home=home, embedder="none")) as mem:
        # a store written before snapshots were pruned on add: the rows go in as they were
        drafts = [mem._draft(f"Profile v{i}", category="snapshot", tags={"key": "p"}, valid_at=f"2030-01-01T0{i}:00:00Z")
                  for i in range(4)]
        drafts.append(mem._draft("Profile next day", category="snapshot", tags={"key": "p"}, valid_at="2030-01-02T01:00:00Z"))
        mem.store.insert_memories(drafts)
        assert mem.prune_snapshots() == 3
        assert mem.prune_snapshots() == 0
        left = {m.content for m in mem.list(category="snapshot")}
        assert left == {"Profile v3", "Profile next day"}


def test_the_snapshot_prune_runs_once_on_upgrade(target: str, home: Path) -> None:
    with knotwork.open(target, settings=Settings(home=home, embedder="none")) as mem:
        mem.store.insert_memories(
            [mem._draft(f"Status {i}", category="snapshot", tags={"key": "s"}, valid_at=f"2030-01-01T0{i}:00:00Z") for i in range(3)]
        )
    execute(target, "DELETE FROM hygiene_counters")  # as a store from before the upgrade: no prune has ever run
    with knotwork.open(target, settings=Settings(home=home, embedder="none")) as mem:
        assert [m.content for m in mem.list(category="snapshot")] == ["Status 2"]
        assert mem.stats().health["snapshots_pruned"] == 2


# -- 4. store/ignore instructions ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Maybe the cache is stale", "speculation"),
        ("The flaky test might be a race in the scheduler", "speculation"),
        ("how do I rotate the API keys?", "question"),
        ("let me try running the migration again", "debugging"),
        ("search: redis eviction policy", "search query"),
    ],
)
def test_ignored_adds_store_nothing_and_say_why(hmem: Knotwork, text: str, reason: str) -> None:
    out = hmem.add(text, workspace="w")
    assert out.decision == "IGNORE" and reason in out.reason
    assert _count(hmem) == 0
    with pytest.raises(NotFound):
        hmem.get(out.id)
    forced = hmem.add(text, workspace="w", force=True)
    assert forced.decision == "ADD" and hmem.get(forced.id).content == text
    assert hmem.stats().health["ignored_adds"] == 1


def test_a_statement_that_opens_like_chatter_is_kept_and_chatter_is_still_ignored(hmem: Knotwork) -> None:
    # A gerund that is the subject of a statement, a state dated "since", a "trying"/"running" with no work
    # under way: each a memory worth keeping (all were ignored as chatter on their opening word alone).
    statements = [
        "Running nox requires Python 3.8",
        "Running tests in CI takes 4 minutes",
        "Running in production since March 2026",
        "Checking the logs via the console showed the app could not read its .env file",
        "Retrying with the same idempotency key cannot create duplicate payments",
        "Trying to lose five kilos before the wedding",
        "Let me tell you, my sister lives in Lyon",
        "Let me know if it helps, I live in Leeds now",
    ]
    chatter = [
        "Running the tests again",
        "Running it again",
        "checking the logs",
        "Trying to connect to the database",
        "Retrying with sudo",
        "Checking if there is an error in the worker",
        "Checking for updates...",
        "Now let me check the app.tsx file:",
        "let me rebuild the project to verify it still builds correctly",
    ]
    kept = [hmem.add(text, workspace="s") for text in statements]
    assert [m.decision for m in kept] == ["ADD"] * len(statements)
    assert sorted(hmem.get(m.id).content for m in kept) == sorted(statements)
    ignored = [hmem.add(text, workspace="c") for text in chatter]
    assert [(m.decision, "debugging chatter" in (m.reason or "")) for m in ignored] == [("IGNORE", True)] * len(chatter)
    assert _count(hmem) == len(statements)


def test_a_question_that_tells_of_the_one_asking_is_kept(hmem: Knotwork) -> None:
    kept = hmem.add("Is it safe to use tea tree oil on my scalp as a treatment for dandruff?", workspace="w")
    assert kept.decision == "ADD"
    assert hmem.add("Is it safe to use tea tree oil as a treatment for dandruff?", workspace="v").decision == "IGNORE"
    # a clause of the asker's own before the question states something too; an auxiliary or a verb of
    # thinking after "I" does not
    assert hmem.add("I live in LA, so could you search there?", workspace="a").decision == "ADD"
    assert hmem.add("Yeah, I live in Oregon, what about you?", workspace="b").decision == "ADD"
    assert hmem.add("ok, I see, why is that?", workspace="v").decision == "IGNORE"
    assert hmem.add("how do I rotate the keys, and where are they kept?", workspace="v").decision == "IGNORE"
    assert hmem.add("Can I use the Hero8 for photos, or is it for video?", workspace="v").decision == "IGNORE"
    assert hmem.add("I also need some help, do you know a shop?", workspace="v").decision == "IGNORE"


def test_a_hedge_outside_the_main_clause_keeps_the_statement(hmem: Knotwork) -> None:
    # the hedge sets a part apart or sits in a later clause: the statement stands (all were ignored as speculation)
    statements = [
        "structlog 16.0.0 added a serializer parameter to JSONRenderer for other (possibly faster) JSON encoders",
        "I'm thinking of going to Europe, probably Paris or Rome, but I'm not sure yet.",
        "I'm looking forward to seeing how those conversations might develop in the future.",
        "Did I tell you Rosa got the job at the BBC?",
        "Yeah, I helped a friend install Linux the other day Have you?",
    ]
    assert [hmem.add(text, workspace="s").decision for text in statements] == ["ADD"] * len(statements)
    # a hedge of the main clause, after a lead-in or a leading condition, is still speculation
    guesses = ["Hmm, maybe I should switch to a standing desk.", "If the disk fills up, we might lose the queue",
               "If destroy hook is really that important maybe V8 should track it natively."]
    assert [(m.decision, m.reason) for m in (hmem.add(t, workspace="g") for t in guesses)] == [
        ("IGNORE", "speculation ('maybe')"), ("IGNORE", "speculation ('might')"), ("IGNORE", "speculation ('maybe')")]
    assert _count(hmem) == len(statements)


def test_decisions_and_explicit_categories_are_kept_despite_hedges(hmem: Knotwork) -> None:
    kept = [
        hmem.add("We decided to pin numpy because 2.0 might break the wheels"),
        hmem.add("Maybe later: try the new scheduler", category="lesson"),
        hmem.add("The deploy failed because the disk was full; the fix was to rotate logs"),
    ]
    assert [m.decision for m in kept] == ["ADD"] * 3


def test_instructions_file_overrides_the_defaults(tmp_path: Path, home: Path) -> None:
    home.mkdir()
    (home / "instructions.txt").write_text(
        "# our rules\ndefaults: off\nignore-pattern: ^build \\d+ (passed|failed)$\nstore: release notes\n"
    )
    with knotwork.open(tmp_path / "i.db", settings=Settings(home=home, embedder="none")) as mem:
        assert mem.add("build 812 passed").decision == "IGNORE"
        assert mem.add("maybe we ship on Friday").decision == "ADD"  # the built-in speculation rule is off
        assert "release notes" in mem.instructions.prose()


def test_a_bad_instructions_file_is_a_clear_error(tmp_path: Path, home: Path) -> None:
    home.mkdir()
    (home / "instructions.txt").write_text("ignore-pattern: (unclosed\n")
    with pytest.raises(InvalidInput, match=r"instructions.txt line 1.*bad regular expression"):
        knotwork.open(tmp_path / "bad.db", settings=Settings(home=home, embedder="none"))


# -- 5. health in the stats --------------------------------------------------------------------------
def test_stats_report_what_a_health_check_needs(hmem: Knotwork) -> None:
    hmem.add("We use Postgres 15 for the ledger", workspace="a", tags={"team": "core"}, category="decision")
    hmem.add("We use Postgres 16 for the ledger", workspace="a", tags={"team": "core"}, category="decision")
    hmem.add("possibly a network blip", workspace="a")
    hmem.add("Nightly job summary", workspace="b", agent_id="ops", ttl=3600)
    s = hmem.stats()
    assert s.by_workspace == {"a": 2, "b": 1} and s.by_agent == {"": 2, "ops": 1}
    assert s.by_tag == {"team": 2} and s.by_category["decision"] == 2
    assert s.first_valid_at <= s.last_valid_at and s.embedder != "none"
    h = s.health
    assert h["superseded"] == 1 and h["superseded_on_add"] == 1 and h["ignored_adds"] == 1
    assert h["orphaned"] == {"links": 0, "vectors": 0, "similar": 0} and h["expired"] == 0


# -- 6. expiry -------------------------------------------------------------------------------------------
def _expire(target: str, memory_id: str) -> None:
    """Move a memory's expiry into the past, as time passing would."""
    execute(target, "UPDATE memories SET expires_at = ? WHERE id = ?", ("2000-01-01T00:00:00.000000Z", memory_id))


def test_expired_memories_leave_every_read_and_prune_purges_them(hmem: Knotwork, target: str) -> None:
    keep = hmem.add("The on-call rota is in the wiki", workspace="w")
    temp = hmem.add("Deploy freeze until the incident review", workspace="w", ttl="2h",
                    facts=[{"subject": "deploys", "predicate": "status", "object": "frozen"}])
    assert temp.expires_at is not None and temp.expires_at - temp.created_at == timedelta(hours=2)
    hmem.link(temp.id, keep.id, "references")
    _expire(target, temp.id)
    with pytest.raises(NotFound):
        hmem.get(temp.id)
    assert [h.memory.id for h in hmem.search("deploy freeze incident", workspace="w", include_invalid=True)] == []
    assert [m.id for m in hmem.list(workspace="w")] == [keep.id]
    assert hmem.stats().health["expired"] == 1
    report = hmem.prune()
    assert report.expired == 1
    assert hmem.store.count_vectors() == (1, 1) and hmem.store.count_links() == 0
    assert hmem.search_facts("deploys frozen") == []
    assert hmem.stats().health["orphaned"] == {"links": 0, "vectors": 0, "similar": 0}


@pytest.mark.parametrize(
    ("fields", "match"),
    [({"ttl": "3 fortnights"}, "ttl"), ({"ttl": 0}, "ttl"), ({"ttl": 60, "expires_at": "2099-01-01"}, "not both"),
     ({"expires_at": "2001-01-01"}, "has passed"), ({"expires_at": "soon"}, "expires_at")],
)
def test_bad_expiry_is_a_clear_error_with_nothing_written(hmem: Knotwork, fields: dict, match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        hmem.add("The staging database is reset nightly", **fields)
    assert _count(hmem) == 0


def test_expires_at_is_kept_and_exported(hmem: Knotwork) -> None:
    m = hmem.add("Temporary access for the auditor", expires_at="2099-01-01T00:00:00Z")
    assert hmem.get(m.id).expires_at == datetime(2099, 1, 1, tzinfo=UTC)
    (record,) = [r for r in hmem.export() if "record" not in r]  # the memory (graph records follow)
    assert record["expires_at"].startswith("2099-01-01") and now() < hmem.get(m.id).expires_at


def test_update_sets_moves_and_clears_an_expiry_with_a_version(hmem: Knotwork) -> None:
    m = hmem.add("Temporary access for the auditor")
    later = hmem.update(m.id, ttl="2h")
    assert later.expires_at is not None and timedelta(hours=1.99) < later.expires_at - later.updated_at <= timedelta(hours=2)
    assert hmem.update(m.id, expires_at="2099-01-01T00:00:00Z").expires_at == datetime(2099, 1, 1, tzinfo=UTC)
    cleared = hmem.update(m.id, expires_at=None)
    assert cleared.expires_at is None and [v.expires_at is None for v in hmem.history(m.id)] == [True, False, False, True]
    for fields, match in (({"ttl": 0}, "ttl"), ({"ttl": 60, "expires_at": "2099-01-01"}, "not both"),
                          ({"expires_at": "2001-01-01"}, "has passed")):
        with pytest.raises(InvalidInput, match=match):
            hmem.update(m.id, **fields)
    assert hmem.get(m.id).version == 4


def test_the_prune_worker_purges_what_expires_while_it_runs(hmem: Knotwork) -> None:
    from knotwork.services.hygiene import PruneWorker

    m = hmem.add("The staging password rotates tonight", ttl=1)
    worker = PruneWorker(hmem.prune, interval=0.2).start()
    try:
        deadline = time.monotonic() + 30
        while hmem.stats().health["expired_purged"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        worker.stop()
    assert hmem.stats().health["expired_purged"] == 1 and hmem.store.get_memory(m.id) is None
