"""Graph enrichment off the write path: an add answers before its memory is read into the graph, the queue is
drained by a worker, claims keep two workers from reading a memory twice (a worker killed in the middle of a
batch: tests/services/test_enrich_faults.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

import knotwork
from knotwork import Settings
from knotwork.domain.temporal import now
from knotwork.services.enrichment import MAX_ATTEMPTS, decode, encode

from tests._sql import execute, query


def settings(tmp_path: Path, **extra) -> Settings:
    return Settings(**{"home": tmp_path / "home", "enrich": "background", "embedder": "none", **extra})


NAMES = ("Alice Moreau", "Bruno Keller", "Chandra Rao", "Dmitri Volkov", "Elena Ruiz", "Farah Haddad", "Goran Petrov",
         "Hana Sato", "Ivan Horvat", "Julia Novak", "Kofi Mensah", "Lena Berg", "Marco Bianchi", "Nadia Karim",
         "Oscar Lindqvist", "Priya Nair", "Quentin Dubois", "Rosa Ortega", "Sven Olsen", "Tariq Aziz")
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka")
CITIES = ("Berlin", "Oslo", "Lisbon", "Kyoto", "Lima")


def line(i: int) -> str:
    return f"{NAMES[i]} works at {COMPANIES[i % 7]} and lives in {CITIES[i % 5]}."


def graph(target: str) -> tuple[list, list]:
    """The graph of a store, ids left out: entity names, and each fact with its memories' contents."""
    entities = sorted(r[0] for r in query(target, "SELECT name FROM entities"))
    facts = sorted(query(
        target,
        "SELECT f.fact, f.predicate, f.valid_at, f.invalid_at IS NULL, f.origin, m.content FROM facts f"
        " JOIN fact_sources s ON s.fact_id = f.id JOIN memories m ON m.id = s.memory_id",
    ))
    return entities, facts


# -- the add path ------------------------------------------------------------------------------------
def test_an_add_answers_before_enrichment_and_search_sees_it_at_once(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()  # nothing drains: what the add itself did is all there is
        m = mem.add("Alice works at Acme and lives in Berlin.", workspace="w")
        assert [h.memory.id for h in mem.search("Alice Acme", workspace="w")] == [m.id]
        assert mem.search_facts("Alice", workspace="w") == []
        assert mem.enrichment_backlog() == {"pending": 1, "running": 0, "failed": 0}
        assert mem.wait_for_extraction(30) is True
        assert mem.enrichment_backlog()["pending"] == 0
        facts = {(h.fact.subject, h.fact.predicate, h.fact.object) for h in mem.search_facts("Alice", workspace="w")}
        assert ("Alice", "works_at", "Acme") in facts
        assert mem.write_stats()["enrich"]["runs"] == 1


def test_the_worker_reads_queued_memories_in_without_being_asked(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path, enrich_interval=0.05)) as mem:
        mem.add_many([{"content": line(i), "workspace": "w"} for i in range(5)])
        deadline = time.monotonic() + 60
        while sum(mem.enrichment_backlog().values()) and time.monotonic() < deadline:
            time.sleep(0.05)  # the worker drains; this thread only looks
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}
        assert mem.search_facts("Dmitri Volkov", workspace="w")


def test_the_graph_of_background_and_inline_enrichment_is_the_same(tmp_path: Path) -> None:
    items = [{"content": line(i), "workspace": "w", "valid_at": f"2024-01-{1 + i:02d}T00:00:00Z"} for i in range(20)]
    items.append({"content": "A note with nothing to extract.", "workspace": "w", "valid_at": "2024-02-01T00:00:00Z",
                  "facts": [{"subject": "billing", "predicate": "uses", "object": "PostgreSQL"}]})
    with knotwork.open(tmp_path / "inline.db", settings=settings(tmp_path, enrich="inline")) as mem:
        mem.add_many(items)
    with knotwork.open(tmp_path / "queued.db", settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many(items)
        assert query(str(tmp_path / "queued.db"), "SELECT count(*) FROM facts") == [(0,)]
        assert mem.wait_for_extraction(60)
    expected = graph(str(tmp_path / "inline.db"))
    assert expected[1] and graph(str(tmp_path / "queued.db")) == expected


def test_a_duplicate_add_queues_only_what_its_caller_passed(tmp_path: Path) -> None:
    db = str(tmp_path / "k.db")
    with knotwork.open(db, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        first = mem.add("Alice works at Acme.", workspace="w")
        again = mem.add("Alice works at Acme.", workspace="w", facts=[{"subject": "Alice", "predicate": "lives_in", "object": "Oslo"}])
        assert again.duplicate and again.id == first.id
        assert query(db, "SELECT rules, graph IS NOT NULL FROM enrich_queue ORDER BY seq") == [(1, 0), (0, 1)]
        mem.add("Alice works at Acme.", workspace="w")  # nothing new for the graph: not queued
        assert mem.enrichment_backlog()["pending"] == 2
        assert mem.wait_for_extraction(30)
        facts = {(h.fact.predicate, h.fact.object) for h in mem.search_facts("Alice", workspace="w")}
        assert {("works_at", "Acme"), ("lives_in", "Oslo")} <= facts


def test_caller_graph_input_survives_the_queue() -> None:
    from knotwork.knowledge import validate
    from knotwork.services.knowledge import GraphInput

    gi = GraphInput(validate.entities([{"name": "Acme", "summary": "a shop"}], "entities"),
                    validate.facts([{"subject": "Alice", "predicate": "works_at", "object": "Acme",
                                     "valid_at": "2024-03-01T10:00:00Z", "invalid_at": "2024-06-01T00:00:00Z"}], "facts"))
    back = decode(encode(gi))
    assert back.entities == gi.entities and back.facts == gi.facts
    assert back.facts[0].valid_at == gi.facts[0].valid_at and back.facts[0].valid_at is not None
    assert encode(decode(None)) is None


def test_a_deleted_memory_leaves_the_queue_with_it(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        m = mem.add("Bob works at Initech.", workspace="w")
        mem.delete(m.id)
        assert mem.enrichment_backlog()["pending"] == 0
        assert mem.wait_for_extraction(5) and mem.search_facts("Bob", workspace="w") == []


# -- claims -----------------------------------------------------------------------------------------
def test_claims_give_each_item_to_one_worker_and_a_taken_over_claim_writes_nothing(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "w"} for i in range(4)])
        store, at, mine = mem.store, now(), mem.enrichment.owner
        a = store.enrich_claim(mine, 2, at, at - timedelta(seconds=300), MAX_ATTEMPTS)
        b = store.enrich_claim("elsewhere:2:b", 10, at, at - timedelta(seconds=300), MAX_ATTEMPTS)
        assert len(a) == 2 and len(b) == 2 and not {i.seq for i in a} & {i.seq for i in b}
        assert [i.attempts for i in a + b] == [1, 1, 1, 1]
        assert mem.enrichment_backlog() == {"pending": 0, "running": 4, "failed": 0}
        # every claim grows stale and another worker takes the first over: tried before, it is claimed alone
        later = at + timedelta(seconds=600)
        c = store.enrich_claim("elsewhere:3:c", 10, later, later - timedelta(seconds=300), MAX_ATTEMPTS)
        assert [(i.seq, i.attempts) for i in c] == [(a[0].seq, 2)]
        assert store.enrich_held(mine, [i.seq for i in a]) == {a[1].seq}
        mem.enrichment._read_in(a[:1])  # this object then finishes what it no longer holds: nothing is written
        assert query(target, "SELECT count(*) FROM facts") == [(0,)]
        assert mem.enrichment_backlog()["running"] == 4


def test_the_claims_of_a_dead_process_of_this_host_are_freed(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with knotwork.open(db, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "w"} for i in range(3)])
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        dead = f"{mem.enrichment._host}:{gone.stdout.strip()}:x"
        at = now()
        mem.store.enrich_claim(dead, 10, at, at - timedelta(seconds=300), MAX_ATTEMPTS)
        assert mem.enrichment_backlog()["running"] == 3
        assert mem.wait_for_extraction(60)
        assert len(graph(str(db))[1]) >= 3


def test_an_item_that_keeps_failing_is_kept_with_its_error_and_others_go_on(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with knotwork.open(db, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "w"} for i in range(3)])
        execute(str(db), "UPDATE enrich_queue SET graph = '{not json' WHERE seq = (SELECT min(seq) FROM enrich_queue)")
        for _ in range(MAX_ATTEMPTS):
            mem.enrichment.drain()
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 1}
        [(attempts, error)] = query(str(db), "SELECT attempts, last_error FROM enrich_queue")
        assert attempts == MAX_ATTEMPTS and error.startswith("JSONDecodeError")
        assert mem.search_facts("Chandra Rao", workspace="w") and not mem.search_facts("Alice Moreau", workspace="w")
        assert mem.wait_for_extraction(1)  # a failed item is not waited for
        execute(str(db), "UPDATE enrich_queue SET graph = NULL")
        assert mem.retry_enrichment() == 1
        assert mem.wait_for_extraction(30) and mem.search_facts("Alice Moreau", workspace="w")


def test_close_waits_for_what_it_queued(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with knotwork.open(db, settings=settings(tmp_path, enrich_interval=60)) as mem:
        mem.add("Carol works at Globex.", workspace="w")
    assert query(str(db), "SELECT count(*) FROM enrich_queue") == [(0,)]
    assert query(str(db), "SELECT count(*) FROM facts") == [(1,)]


def test_wait_for_extraction_refuses_a_negative_timeout(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path)) as mem, pytest.raises(knotwork.InvalidInput, match="timeout"):
        mem.wait_for_extraction(-1)


# -- what status, stats and their text say ------------------------------------------------------------
def test_status_and_stats_show_the_backlog_and_a_scoped_status_counts_its_workspaces_only(target: str, tmp_path: Path) -> None:
    from knotwork.render import render

    with knotwork.open(target, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "a" if i < 2 else "b"} for i in range(5)])
        assert mem.status().graph_backlog == {"pending": 5, "running": 0, "failed": 0}
        assert mem.status(within={"a"}).graph_backlog == {"pending": 2, "running": 0, "failed": 0}
        assert mem.status(within={""}).graph_backlog["pending"] == 0
        assert mem.stats().health["graph_backlog"]["pending"] == 5
        assert "graph: 5 memories waiting to be read in" in render("status", mem.status(), "compact")
        assert mem.wait_for_extraction(60)
        assert "graph: up to date" in render("stats", mem.stats(), "compact")


def test_a_graph_answer_says_when_memories_are_not_read_in_yet(tmp_path: Path) -> None:
    from knotwork.render.respond import Responder
    from knotwork.views.access import Scope, scoped

    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "a" if i < 2 else "b"} for i in range(3)])
        respond = Responder(mem)
        assert respond("search_facts", mem.search_facts("Alice", workspace="a")).endswith(
            "(graph: 3 memories not read in yet; this answer is without them)")
        only_a = scoped(mem, Scope(frozenset({"a"}), write=False))
        assert "graph: 2 memories not read in yet" in respond.as_caller(only_a)("search_nodes", only_a.search_nodes("Alice", workspace="a"))
        assert "not read in yet" not in respond("search_facts", mem.search_facts("Alice", workspace="a"), "json")
        assert mem.wait_for_extraction(60)
        answer = respond("search_facts", mem.search_facts("Alice Moreau", workspace="a"))
        assert "Alice Moreau" in answer and "not read in yet" not in answer


def test_the_worker_steps_aside_while_adds_stream(tmp_path: Path) -> None:
    db = str(tmp_path / "quiet.db")
    # A quiet time no pause between two adds reaches, however busy the machine: the worker never slips in.
    with knotwork.open(db, settings=settings(tmp_path, enrich_interval=0.05, enrich_quiet=3600, enrich_close_wait=0)) as mem:
        for i in range(12):  # the first add starts the worker, as in a library process
            mem.add(line(i), workspace="w")  # each add wakes the worker, which defers to the adds
            assert mem.enrichment.memories == 0, f"the worker read memories in between adds (after add {i})"
        assert mem.enrichment_backlog()["pending"] == 12


def test_the_worker_drains_by_itself_once_the_adds_pause(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "pause.db", settings=settings(tmp_path, enrich_interval=0.05, enrich_quiet=0.2)) as mem:
        for i in range(12):
            mem.add(line(i), workspace="w")
        _drained(mem)  # the adds stopped: the worker drains by itself (this thread only looks)
        assert mem.enrichment.memories == 12
        assert mem.search_facts("Alice Moreau", workspace="w")


def test_under_a_steady_stream_the_worker_reads_in_past_its_bound_and_not_below(tmp_path: Path) -> None:
    db = str(tmp_path / "lag.db")
    bound = 5
    with knotwork.open(db, settings=settings(tmp_path, enrich_interval=0.05, enrich_quiet=3600, enrich_max_backlog=bound,
                                             enrich_close_wait=0)) as mem:
        for i in range(600):  # the first add starts the worker  # adds go on, each within the quiet time of the one before, until the worker reads in
            mem.add(f"{line(i % len(NAMES))} Note {i}.", workspace="w")
            if i < bound - 1:  # under the bound: the worker steps aside
                assert mem.enrichment.memories == 0, f"the worker read memories in below the backlog bound (add {i})"
            if mem.enrichment.memories:
                break
        assert mem.enrichment.memories > 0, "the worker waited for the adds to pause past its backlog bound"
        assert i >= bound - 1


def test_past_the_bound_the_worker_takes_a_share_of_the_time_that_grows_with_the_backlog(tmp_path: Path) -> None:
    """While adds stream past ``enrich_max_backlog``, a batch is followed by a rest that leaves the adds most of
    the time near the bound, and none at twice the bound, where the worker reads in as fast as it can."""
    from knotwork.app import open_store
    from knotwork.service import Knotwork
    from knotwork.services.enrichment import HARD_BACKLOG
    from tests._fakes import RandomEmbedder

    class SlowEmbedder(RandomEmbedder):
        def embed(self, texts: list[str]):  # noqa: ANN201
            time.sleep(0.2)  # every model run, the batch's entity names too: a read-in takes at least this long
            return super().embed(texts)

    bound = 10
    s = settings(tmp_path, enrich_quiet=30, enrich_max_backlog=bound, enrich_batch=1, enrich_close_wait=0)
    with Knotwork(open_store(str(tmp_path / "share.db"), s), settings=s, embedder=SlowEmbedder()) as mem:
        mem.enrichment.stop()  # the deferral is asked by hand, as the worker asks it between two batches
        for i in range(bound + 4):
            mem.add(f"{NAMES[i]} met {NAMES[(i + 7) % len(NAMES)]} in {CITIES[i % 5]}.", workspace="w", force=True)
        assert mem.enrichment.share() == pytest.approx(5 / 11)  # 14 pending: past the bound by 4 of 10
        assert mem.enrichment.deferral() == 0.0  # no batch yet to rest after: one goes at once
        assert mem.enrichment.drain_once() == 1
        took = mem.enrichment.seconds
        assert took >= 0.2, "the batch embedded no entity name: the rest below would be too short to see"
        share = mem.enrichment.share()
        assert share == pytest.approx(4 / 11)  # 13 pending
        rest = took * (1 - share) / share  # the rest that makes the batches fill ``share`` of the time
        before = time.monotonic()
        wait = mem.enrichment.deferral()
        after = time.monotonic()
        ended = mem.enrichment._batch_ended
        # The rest left is ``rest`` less the time since the batch ended, read between ``before`` and ``after``.
        assert wait <= rest - (before - ended) + 1e-9, "a rest longer than the share allows"
        assert wait >= rest - (after - ended) - 1e-9, "no rest after a batch past the bound"
        for i in range(bound * HARD_BACKLOG - 12):  # the stream goes on: twice the bound pending after the next batch
            mem.add(f"{line(i)} Later {i}.", workspace="w", force=True)
        assert mem.enrichment.drain_once() == 1
        assert mem.enrichment_backlog()["pending"] == bound * HARD_BACKLOG
        assert mem.enrichment.share() == 1.0
        assert mem.enrichment.deferral() == 0.0  # at twice the bound, batch after batch: the graph falls no further behind


COUNT_QUEUE = "coalesce(sum(claimed_by IS NULL AND attempts < ?), 0)"  # the store's count of the queue (enrich_counts)


def test_the_deferral_counts_the_queue_itself_and_reads_the_store_at_the_bound(tmp_path: Path) -> None:
    """The worker's deferral keeps its own count of the pending memories (enqueues less claims): it reads the
    store once at first, then only when that count reaches ``enrich_max_backlog``, where another process may
    have drained the queue (or queued more) meanwhile."""
    db = str(tmp_path / "count.db")
    s = settings(tmp_path, enrich_quiet=30, enrich_max_backlog=5, enrich_close_wait=0)
    with knotwork.open(db, settings=s) as mem, knotwork.open(db, settings=s) as other:
        mem.enrichment.stop()  # the deferral is asked by hand here; no worker claims anything
        other.enrichment.stop()
        reads: list[str] = []
        mem.store.tracer = lambda sql, params: reads.append(sql) if COUNT_QUEUE in sql else None
        for i in range(6):
            mem.add(line(i), workspace="w", force=True)
        assert mem.enrichment.deferral() == 0.0 and len(reads) == 1  # the first look reads the store: 6 pending
        assert mem.enrichment.deferral() == 0.0 and len(reads) == 2  # at the bound: the store says still 6
        assert other.enrichment.drain() == 6  # another process reads them all in
        assert mem.enrichment.deferral() > 0 and len(reads) == 3  # the store says 0: the adds have the cores again
        for i in range(4):
            mem.add(line(10 + i), workspace="w", force=True)
            assert mem.enrichment.deferral() > 0
        assert len(reads) == 3  # below the bound, four adds and four looks: no read of the queue
        mem.add(line(14), workspace="w", force=True)
        assert mem.enrichment.deferral() == 0.0 and len(reads) == 4  # five counted: the store confirms the bound
        assert mem.enrichment_backlog()["pending"] == 5


def test_a_backlog_left_by_another_process_is_read_in_between_streaming_adds(tmp_path: Path) -> None:
    """The count starts from the store: a backlog past the bound that an earlier process left makes the worker
    read batches in while this process's adds stream, as its own adds past the bound would."""
    db = str(tmp_path / "left.db")
    with knotwork.open(db, settings=settings(tmp_path, enrich_close_wait=0)) as earlier:
        earlier.enrichment.stop()
        for i in range(8):
            earlier.add(f"{line(i)} Earlier {i}.", workspace="w")
    with knotwork.open(db, settings=settings(tmp_path, enrich_interval=0.05, enrich_quiet=30, enrich_max_backlog=5)) as mem:
        for i in range(600):  # adds go on, each within the quiet time of the one before, until the worker reads in
            mem.add(f"{line(i % len(NAMES))} Note {i}.", workspace="w")
            if mem.enrichment.memories:
                break
            time.sleep(0.1)
        assert mem.enrichment.memories > 0, "the worker deferred to the adds with a backlog past its bound"


def test_an_add_slower_than_the_quiet_time_still_keeps_the_worker_aside(tmp_path: Path) -> None:
    """On a busy machine one add may take longer than ``enrich_quiet``: the worker defers to an add in flight,
    not only to the time since the last one ended, so it does not slip in between two slow adds."""
    from knotwork.app import open_store
    from knotwork.service import Knotwork
    from tests._fakes import RandomEmbedder

    class SlowEmbedder(RandomEmbedder):
        def embed(self, texts: list[str]):  # noqa: ANN201
            time.sleep(0.6)  # each add's model run: twice the quiet time
            return super().embed(texts)

    s = settings(tmp_path, enrich_interval=0.05, enrich_quiet=0.3, enrich_gather=0)
    with Knotwork(open_store(str(tmp_path / "slow.db"), s), settings=s, embedder=SlowEmbedder()) as mem:
        for i in range(6):
            mem.add(line(i), workspace="w")
            assert mem.enrichment.memories == 0, f"the worker read memories in between slow adds (after add {i})"
        assert mem.wait_for_extraction(60) and mem.enrichment.memories == 6


def test_enrich_quiet_zero_reads_in_between_adds(tmp_path: Path) -> None:
    db = str(tmp_path / "eager.db")
    with knotwork.open(db, settings=settings(tmp_path, enrich_interval=0.05, enrich_quiet=0)) as mem:
        # Adds go on (one every 0.1 s) until the worker has read some in, for as long as a loaded machine takes
        # to let it run: it must do so while they stream, not only once they stop.
        for i in range(600):
            mem.add(f"{line(i % len(NAMES))} Note {i}.", workspace="w")
            if mem.enrichment.memories:
                break
            time.sleep(0.1)
        assert mem.enrichment.memories > 0


@pytest.mark.skipif(sys.platform != "linux", reason="thread priorities are Linux's")
def test_the_worker_thread_runs_at_a_lower_priority(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path)) as mem:
        worker = mem.enrichment.start()
        deadline = time.monotonic() + 10
        while worker._thread.native_id is None and time.monotonic() < deadline:
            time.sleep(0.01)
        lower = min(os.getpriority(os.PRIO_PROCESS, 0) + 10, 19)
        while os.getpriority(os.PRIO_PROCESS, worker._thread.native_id) != lower and time.monotonic() < deadline:
            time.sleep(0.01)  # the thread lowers its own priority once it runs
        assert os.getpriority(os.PRIO_PROCESS, worker._thread.native_id) == lower
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0)


def test_migrate_carries_the_backlog_over_once(tmp_path: Path, postgres_database) -> None:
    from knotwork.app import open_store
    from knotwork.services import transfer

    source = tmp_path / "a.db"
    with knotwork.open(source, settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        mem.add_many([{"content": line(i), "workspace": "w"} for i in range(3)])
    url = postgres_database.fresh()
    for _ in range(2):  # a move run again queues nothing twice
        src, dst = open_store(str(source), settings(tmp_path)), open_store(url, settings(tmp_path))
        try:
            transfer.move(src, dst)
        finally:
            src.close()
            dst.close()
    assert query(url, "SELECT count(*) FROM enrich_queue") == [(3,)]
    with knotwork.open(url, settings=settings(tmp_path)) as mem:
        assert mem.graph_backlog() == 3 and mem.wait_for_extraction(60)
        assert mem.search_facts("Chandra Rao", workspace="w")


DRAINER = """
import sys, knotwork
from pathlib import Path
s = knotwork.Settings(home=Path(sys.argv[2]), enrich="background", embedder="none", enrich_batch=3, enrich_close_wait=0)
with knotwork.open(sys.argv[1], settings=s) as mem:
    mem.enrichment.stop()
    print("ready", flush=True)
    sys.stdin.readline()
    assert mem.wait_for_extraction(120)
    print(mem.enrichment.memories, flush=True)
"""


def test_two_processes_draining_one_file_read_each_memory_in_once(tmp_path: Path) -> None:
    items = [{"content": line(i % 20) + f" Note {i}.", "workspace": "w", "valid_at": f"2024-03-{1 + i % 28:02d}T{i // 28:02d}:00:00Z"}
             for i in range(40)]
    reference = tmp_path / "reference.db"
    with knotwork.open(reference, settings=settings(tmp_path, enrich="inline")) as mem:
        mem.add_many(items)
    db = tmp_path / "k.db"
    with knotwork.open(db, settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        mem.add_many(items)
    env = {**os.environ, "KNOTWORK_ENRICH": "background"}
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(DRAINER), str(db), str(tmp_path / "home")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:  # both start at once
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    claimed = [int(p.communicate(timeout=180)[0].strip()) for p in procs]
    assert sum(claimed) == 40  # each memory claimed once (one batch at a time, whichever process holds the drain lock)
    assert query(str(db), "SELECT count(*) FROM enrich_queue") == [(0,)]
    assert graph(str(db)) == graph(str(reference))


# -- the worker lets a partial batch gather ------------------------------------------------------------
def _drained(mem: knotwork.Knotwork, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(mem.enrichment_backlog().values()) and time.monotonic() < deadline:
        time.sleep(0.05)  # the worker drains; this thread only looks
    assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}


def _worker_looked(mem: knotwork.Knotwork) -> None:
    """Start the worker, as a server does at start, and wait (by event) until it found the queue empty."""
    looked = threading.Event()
    mem.store.tracer = lambda sql, params: looked.set() if "attempts = attempts + 1" in sql else None
    mem.start_enrichment_worker()
    assert looked.wait(60)
    mem.store.tracer = None


def test_adds_one_by_one_are_read_in_together_once_a_batch_gathered(tmp_path: Path) -> None:
    s = settings(tmp_path, enrich_gather=60, enrich_batch=5, enrich_quiet=0, enrich_interval=0.05, enrich_close_wait=0)
    with knotwork.open(tmp_path / "k.db", settings=s) as mem:
        _worker_looked(mem)
        for i in range(4):
            mem.add(line(i), workspace="w")  # each add wakes the worker: it waits for a batch to gather
            assert mem.enrichment.memories == 0 and mem.enrichment_backlog()["pending"] == i + 1
        mem.add(line(4), workspace="w")  # a full batch: the gather wait ends at once
        _drained(mem)
        assert mem.enrichment.stats()["batches"] == 1
        assert mem.enrichment.stats()["memories"] == 5
        assert mem.search_facts("Dmitri Volkov", workspace="w")


def test_a_partial_batch_is_read_in_after_the_gather_time(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path, enrich_gather=0.3, enrich_quiet=0)) as mem:
        _worker_looked(mem)
        for i in range(3):
            mem.add(line(i), workspace="w")
        _drained(mem)  # fewer than a batch: read in once the gather time passed
        assert mem.enrichment.stats()["memories"] == 3


def test_without_a_gather_time_the_first_add_is_read_in_at_once(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path, enrich_gather=0)) as mem:
        mem.add(line(0), workspace="w")
        _drained(mem, timeout=10)
        assert mem.enrichment.stats()["batches"] == 1


def test_a_stop_ends_the_gather_wait(tmp_path: Path) -> None:
    from knotwork.services.enrichment import EnrichmentWorker

    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        gathering = threading.Event()
        # A gather of an hour, longer than a stop's join waits (120 s): only the stop itself can end it.
        worker = EnrichmentWorker(mem.enrichment.drain_once, 0.05, batch=32, gather=3600,
                                  full=lambda: gathering.set() or False).start()
        for _ in range(1200):  # as an add does, until the worker gathers (a wake before its wait is not seen)
            worker.wake()
            if gathering.wait(0.05):
                break
        assert gathering.is_set()
        worker.stop()
        assert not worker._thread.is_alive()
