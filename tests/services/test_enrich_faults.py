"""Faults of the graph's worker, on both backends: a worker killed with SIGKILL at a named point of a batch (the
graph written but not its queue rows deleted, the reverse, the commit done) leaves each memory either read in
or still queued, never both and never neither, and the next worker ends with the graph, its fact history
included, that an uninterrupted run makes; the queue is read in the order its memories hold in time.

Each kill lands where it claims: the child stops at the named statement, says so on its stdout and waits on
its stdin, and the parent kills it there, then reads the store to see the batch half done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import knotwork
from knotwork import Settings
from knotwork.domain.temporal import now, to_text
from knotwork.services.enrichment import MAX_ATTEMPTS

from tests._sql import query

# A value that changes A -> B -> A (Alice's employer, Bruno's, Chandra's city): each return starts a new interval.
TEXTS = (
    "Alice Moreau works at Acme.", "Bruno Keller works at Globex.", "Chandra Rao lives in Berlin.", "Dmitri Volkov works at Initech.",
    "Alice Moreau lives in Oslo.", "Bruno Keller works at Hooli.", "Chandra Rao lives in Lisbon.", "Dmitri Volkov lives in Kyoto.",
    "Alice Moreau works at Globex.", "Bruno Keller works at Globex.", "Chandra Rao lives in Berlin.", "Elena Ruiz works at Wonka.",
    "Alice Moreau works at Acme.", "Bruno Keller works at Hooli.", "Chandra Rao lives in Lisbon.", "Dmitri Volkov works at Umbrella.",
    "Alice Moreau works at Globex.", "Elena Ruiz works at Vandelay.", "Dmitri Volkov works at Initech.", "Bruno Keller works at Globex.",
)
ITEMS = [{"content": f"{c} Note {i}.", "workspace": "w", "valid_at": f"2024-02-{1 + i:02d}T00:00:00Z"} for i, c in enumerate(TEXTS)]
BATCH = 4
KILLED_BATCH = 3  # items 8-11 in time order: Alice's Globex between two Acme


def settings(tmp_path: Path, **extra) -> Settings:
    return Settings(**{"home": tmp_path / "home", "enrich": "background", "embedder": "none", **extra})


def graph(target: str) -> tuple[list, list]:
    """The graph of a store, ids left out: entity names, and each fact (its interval, current or not) with the
    contents of the memories it stands on; times as text, so that both backends compare alike."""
    entities = sorted(r[0] for r in query(target, "SELECT name FROM entities"))
    facts = sorted(tuple(to_text(v) if isinstance(v, datetime) else v for v in row) for row in query(
        target,
        "SELECT f.fact, f.predicate, f.valid_at, f.invalid_at, f.origin, m.content FROM facts f"
        " JOIN fact_sources s ON s.fact_id = f.id JOIN memories m ON m.id = s.memory_id",
    ))
    return entities, facts


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list]:
    """The graph of an uninterrupted run: every memory read in as it is added."""
    tmp = tmp_path_factory.mktemp("reference")
    with knotwork.open(tmp / "inline.db", settings=settings(tmp, enrich="inline")) as mem:
        mem.add_many(ITEMS)
    expected = graph(str(tmp / "inline.db"))
    assert len(expected[1]) == len(ITEMS)  # each memory stands under one fact: "read in" is visible per memory
    return expected


def _workers_of(target: str) -> list[int]:
    """Pids of the worker processes (``python -m knotwork.adapters.worker TARGET``) still running for ``target``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"knotwork.adapters.worker" in args and target.encode() in args:
            found.append(int(pid))
    return found


@pytest.fixture(autouse=True)
def _no_worker_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """A worker process handed a store's backlog outlives the process that started it, by design: the test waits
    for it to end, so that it never reads in the next test's memories (a PostgreSQL database is reused)."""
    target = request.getfixturevalue("target") if "target" in request.fixturenames else None  # set up before, torn down after
    yield
    if target is not None:
        _until(lambda: not _workers_of(target), f"the worker processes of {target} exited")


# -- the queue's order ------------------------------------------------------------------------------
def test_the_queue_is_claimed_in_the_order_its_memories_hold_in_time(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path)) as mem:
        mem.enrichment.stop()
        later = [dict(item) for item in reversed(ITEMS[:6])]  # arrive newest first
        same_time = [{"content": f"Farah Haddad note {i}.", "workspace": "w", "valid_at": "2024-01-01T00:00:00Z"} for i in range(3)]
        mem.add_many(later)
        mem.add_many(same_time)
        at = now()
        claimed = mem.store.enrich_claim("elsewhere:1:a", 100, at, at - timedelta(seconds=300), MAX_ATTEMPTS)
        contents = [mem.get(i.memory_id).content for i in claimed]
        assert contents == [x["content"] for x in same_time] + [x["content"] for x in ITEMS[:6]]  # time, then arrival


def test_a_claim_left_by_a_dead_worker_is_read_in_first_and_alone(target: str, tmp_path: Path) -> None:
    with knotwork.open(target, settings=settings(tmp_path, enrich_batch=BATCH)) as mem:
        mem.enrichment.stop()
        mem.add_many(ITEMS)
        at = now()
        dead = mem.store.enrich_claim("elsewhere:1:dead", BATCH, at, at - timedelta(seconds=300), MAX_ATTEMPTS)
        assert len(dead) == BATCH
        assert mem.enrichment.drain_once() == 1  # under the drain lock the dead claim is freed; tried, it goes alone
        assert query(target, "SELECT count(*) FROM enrich_queue WHERE claimed_by IS NOT NULL") == [(0,)]
        assert mem.enrichment.counts()["pending"] == len(ITEMS) - 1
        [(content,)] = query(target, "SELECT m.content FROM fact_sources s JOIN memories m ON m.id = s.memory_id")
        assert content == ITEMS[0]["content"]


# -- a worker killed at a named point of a batch --------------------------------------------------------
CHILD = """
import sys, knotwork
from pathlib import Path
point = sys.argv[3]
seen = {"claims": 0, "deleted": False}

def stop(name):
    print("inside " + name, flush=True)
    sys.stdin.readline()  # the parent kills this process here
    sys.exit(3)

def tracer(sql, params):
    if "attempts = attempts + 1" in sql and params:
        seen["claims"] += 1
    if seen["claims"] != int(sys.argv[4]):
        return
    if point == "graph" and sql.startswith("INSERT INTO fact"):
        stop(point)  # the batch's graph is being written; its queue rows are not deleted yet
    if sql.startswith("DELETE FROM enrich_queue"):
        if point == "queue":
            stop(point)  # the batch's graph is written; its queue rows are about to be deleted
        seen["deleted"] = True
    elif point == "commit" and seen["deleted"] and sql.startswith("BEGIN"):
        stop(point)  # the next transaction begins: the batch is committed

s = knotwork.Settings(home=Path(sys.argv[2]), enrich="background", embedder="none", enrich_batch=int(sys.argv[5]))
mem = knotwork.open(sys.argv[1], settings=s, tracer=tracer)
mem.enrichment.stop()
print("draining", flush=True)
mem.enrichment.wait(300)  # not drain(): that stops at once when another opener holds the drain lock for a moment
print("finished", flush=True)
"""


@pytest.mark.parametrize("point", ["graph", "queue", "commit"])
def test_a_worker_killed_inside_a_batch_leaves_it_whole_or_absent_and_the_next_ends_as_an_uninterrupted_run(
    target: str, tmp_path: Path, reference: tuple[list, list], point: str
) -> None:
    with knotwork.open(target, settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        mem.add_many(ITEMS)
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CHILD), target, str(tmp_path / "home"), point, str(KILLED_BATCH), str(BATCH)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "KNOTWORK_ENRICH": "background"},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "draining"
    assert proc.stdout.readline().strip() == f"inside {point}"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL

    # The kill landed where it claims: batches before the killed one are read in; the killed one is held (its
    # claim committed) and none of it written, or, at "commit", read in whole; the rest wait.
    queued = {r[0] for r in query(target, "SELECT memory_id FROM enrich_queue")}
    held = query(target, "SELECT count(*) FROM enrich_queue WHERE claimed_by IS NOT NULL")
    read_in = {r[0] for r in query(target, "SELECT DISTINCT memory_id FROM fact_sources")}
    done = BATCH * (KILLED_BATCH if point == "commit" else KILLED_BATCH - 1)
    assert held == [(0 if point == "commit" else BATCH,)]
    assert len(read_in) == done and len(queued) == len(ITEMS) - done
    # Each memory is read in or queued, never both (a graph committed before its queue rows were deleted) and
    # never neither (queue rows deleted before the graph was committed).
    every = {r[0] for r in query(target, "SELECT id FROM memories")}
    assert read_in | queued == every and not read_in & queued

    with knotwork.open(target, settings=settings(tmp_path, enrich_batch=BATCH)) as mem:
        assert mem.wait_for_extraction(120)
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}
    assert graph(target) == reference


# -- the worker in a process of its own ----------------------------------------------------------------
def _until(check, what: str, tries: int = 1200) -> None:
    """Look every 0.1 s until ``check()`` holds (a guard against hanging, not a time the test measures)."""
    import time

    for _ in range(tries):
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def test_servers_on_one_store_share_one_worker_process_and_never_parse(target: str, tmp_path: Path, reference) -> None:
    """Three server-like openers of one store (``KNOTWORK_ENRICH=process``): one worker process reads the graph
    in, and no opener loads the parser (checked in child processes that start clean)."""
    opener = textwrap.dedent("""
        import sys, knotwork, json
        from pathlib import Path
        s = knotwork.Settings(home=Path(sys.argv[2]), enrich="process", embedder="none", enrich_interval=0.1)
        mem = knotwork.open(sys.argv[1], settings=s)
        mem.start_enrichment_worker(server=True)
        items = json.loads(sys.argv[3])
        if items:
            mem.add_many(items)
        print("added", flush=True)
        sys.stdin.readline()  # until the test has seen the graph read in
        host = mem.enrichment._host_of
        print(json.dumps({"child": host.state()["child"], "spacy": any(m.startswith("spacy") for m in sys.modules),
                          "found": len(mem.search_facts("Alice Moreau", workspace="w", include_invalid=True))}), flush=True)
        sys.stdin.readline()  # until every opener has said its state
        mem.close()
    """)
    import json

    parts = [ITEMS[:8], ITEMS[8:14], ITEMS[14:]]  # time order kept across the three openers: one after the other
    procs = []
    for part in parts:
        p = subprocess.Popen([sys.executable, "-c", opener, target, str(tmp_path / "home"), json.dumps(part)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert p.stdout is not None and p.stdout.readline().strip() == "added"
        procs.append(p)
    _until(lambda: query(target, "SELECT count(*) FROM enrich_queue") == [(0,)], "the queue drained")
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [json.loads(p.stdout.readline()) for p in procs]
    for p in procs:
        p.communicate("done\n", timeout=120)
    assert [o["spacy"] for o in outs] == [False, False, False]  # the openers never parsed
    assert sum(o["child"] is not None for o in outs) == 1  # one worker process for the three
    assert all(o["found"] for o in outs)
    assert graph(target) == reference


HOLD = "KNOTWORK_TEST_WORKER_HOLD"


def test_a_worker_process_killed_mid_batch_is_replaced_and_the_server_answers_meanwhile(
    target: str, tmp_path: Path, reference, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = tmp_path / "held"
    monkeypatch.setenv(HOLD, f"{KILLED_BATCH}:{held}")  # the worker process stops inside its third batch
    s = settings(tmp_path, enrich="process", enrich_batch=BATCH, enrich_interval=0.1, enrich_close_wait=0)
    with knotwork.open(target, settings=s) as mem:
        mem.enrichment.stop()
        mem.add_many(ITEMS)
        mem.start_enrichment_worker(server=True)
        _until(held.exists, "the worker process reached its third batch")
        pid = int(held.read_text())
        assert pid != os.getpid() and pid == mem.enrichment._host_of.state()["child"]
        # The kill lands inside the batch: two read in, the third held (its graph written, not committed).
        assert query(target, "SELECT count(*) FROM enrich_queue WHERE claimed_by IS NOT NULL") == [(BATCH,)]
        if sys.platform == "linux":  # the worker process runs at a lower CPU priority than its host
            assert os.getpriority(os.PRIO_PROCESS, pid) == min(os.getpriority(os.PRIO_PROCESS, 0) + 10, 19)
        os.kill(pid, signal.SIGKILL)
        _until(lambda: mem.enrichment._host_of.state()["child"] != pid, "the host saw its worker die")
        assert [h.memory.content for h in mem.search("Elena Ruiz Vandelay", workspace="w", limit=1)] == [ITEMS[17]["content"]]
        _until(lambda: query(target, "SELECT count(*) FROM enrich_queue") == [(0,)], "another worker read the rest in")
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}
        assert mem.status().graph_worker["process"] is True
    assert graph(target) == reference


# -- a process that exits without close() ----------------------------------------------------------------
def test_a_process_that_exits_without_close_hands_its_graph_to_a_worker_that_outlives_it(target: str, tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys, knotwork
        from pathlib import Path
        s = knotwork.Settings(home=Path(sys.argv[2]), enrich="background", embedder="none", enrich_quiet=60)
        m = knotwork.open(sys.argv[1], settings=s)
        for i in range(int(sys.argv[3])):
            m.add(f"{sys.argv[4]} Meyer{i} works at Acme Corp in Berlin.", workspace="w")
        print(m.enrichment_backlog()["pending"], flush=True)
    """)  # no close(): the quiet time keeps the worker thread aside until the exit
    procs = [subprocess.Popen([sys.executable, "-c", code, target, str(tmp_path / "home"), "30", name], stdout=subprocess.PIPE,
                              text=True) for name in ("Alice", "Bruno", "Chandra")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]  # exit never aborts
    assert all(int(out[0]) > 0 for out in outs)  # each left memories queued when it exited
    _until(lambda: query(target, "SELECT count(*) FROM enrich_queue") == [(0,)], "a worker read the exited processes' graph in")
    assert query(target, "SELECT count(DISTINCT memory_id) FROM fact_sources") == [(90,)]


# -- a memory whose read-in fails ---------------------------------------------------------------------------
def test_a_memory_whose_read_in_raises_is_marked_failed_with_its_reason_and_never_blocks_the_queue(
    target: str, tmp_path: Path
) -> None:
    from knotwork.render import render

    from tests._sql import execute

    with knotwork.open(target, settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        mem.add_many(ITEMS[:6])
        # The first memory in time: its queued input cannot be read (as a parser that raises on its text would).
        first = mem.store.enrich_items()[0]
        execute(target, "UPDATE enrich_queue SET graph = '{not json' WHERE seq = ?", (first.seq,))
        assert mem.wait_for_extraction(120)  # the failing memory does not keep the others waiting
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 1}
        assert query(target, "SELECT count(DISTINCT memory_id) FROM fact_sources") == [(5,)]
        [failure] = mem.status().graph_failures
        assert failure["memory_id"] == first.memory_id and failure["attempts"] == MAX_ATTEMPTS and failure["given_up"]
        assert failure["error"].startswith("JSONDecodeError")
        text = render("status", mem.status(), "compact")
        assert f"graph failed: {first.memory_id} after {MAX_ATTEMPTS} tries (given up): JSONDecodeError" in text
        assert mem.status().to_dict()["graph_failures"] == [failure]  # the JSON form (REST /status, --format json)
        assert mem.status(within={"w"}).graph_failures == []  # a caller limited to workspaces sees counts only


STALL = "Zed Hangman"  # an entity name the embedding server never answers for


def test_a_memory_whose_read_in_hangs_ends_its_worker_process_and_is_marked_failed(target: str, tmp_path: Path) -> None:
    import threading

    from tests.embed._server import EmbeddingServer

    class Stalling(EmbeddingServer):
        def answer(self, path: str, body: dict) -> bytes:
            if STALL in body["input"]:
                threading.Event().wait(300)  # the read-in of this memory hangs
            return super().answer(path, body)

    server = Stalling().start()
    try:
        s = settings(tmp_path, enrich="process", embedder=f"openai:toy@{server.base_url}", enrich_interval=0.1,
                     enrich_timeout=2, enrich_close_wait=0, enrich_gather=0)
        items = [dict(x) for x in ITEMS[:4]]
        items[1] = {"content": f"{STALL} works at Initech.", "workspace": "w", "valid_at": "2024-02-02T00:00:00Z"}
        with knotwork.open(target, settings=s) as mem:
            mem.enrichment.stop()
            mem.add_many(items, consolidate=False)  # four memories, however alike the toy vectors find them
            mem.start_enrichment_worker(server=True)
            _until(lambda: mem.enrichment_backlog()["failed"] == 1 and not mem.enrichment_backlog()["pending"]
                   and not mem.enrichment_backlog()["running"], "the hanging memory was given up", tries=3000)
            [failure] = mem.status().graph_failures
            assert failure["given_up"] and "timed out" in failure["error"]
            assert mem.get(failure["memory_id"]).content == items[1]["content"]
            # The others were read in (the toy vectors may merge a name with another: their facts are not compared).
            assert query(target, "SELECT memory_id FROM enrich_queue") == [(failure["memory_id"],)]
            assert query(target, "SELECT count(*) FROM memories") == [(4,)]
    finally:
        server.stop()


# -- a worker thread waits for its process's searches and adds ---------------------------------------------
def test_a_search_holds_the_foreground_and_a_worker_thread_waits_for_it(tmp_path: Path) -> None:
    import threading

    from knotwork.services.enrichment import EnrichmentWorker

    with knotwork.open(tmp_path / "k.db", settings=settings(tmp_path, enrich_close_wait=0)) as mem:
        mem.enrichment.stop()
        mem.add_many(ITEMS[:4])
        inside, go_on = threading.Event(), threading.Event()

        def tracer(sql: str, params: object) -> None:
            if threading.current_thread().name == "searcher" and not inside.is_set():
                inside.set()  # the search is under way: it waits here until the test lets it go
                go_on.wait(60)

        mem.store.tracer = tracer
        searcher = threading.Thread(target=lambda: mem.search("Alice Moreau", workspace="w"), name="searcher")
        searcher.start()
        assert inside.wait(60) and mem.foreground.busy  # a search in flight holds the foreground
        calls: list[bool] = []
        worker = EnrichmentWorker(lambda: calls.append(mem.foreground.busy) or 0, 0.05, foreground=mem.foreground).start()
        _until(lambda: mem.foreground.waiting == 1, "the worker waits for the search")
        assert calls == []  # nothing was read in while the search ran
        go_on.set()
        searcher.join(60)
        _until(lambda: bool(calls), "the worker went on once the search ended")
        assert calls[0] is False
        worker.stop()
        mem.store.tracer = None


EXITER = """
import sys, time
from knotwork import Settings
from knotwork.app import open_store
from knotwork.service import Knotwork
from tests._fakes import RandomEmbedder
settings = Settings(vector_ann_min_rows=1)
mem = Knotwork(open_store(sys.argv[1], settings), settings, embedder=RandomEmbedder())
mem.index.search(RandomEmbedder().embed_query("start the graph"), 5, None)  # starts the graph's build
time.sleep(0.2)
print("building:", mem.index._builder is not None and mem.index._builder.is_alive(), flush=True)
"""  # and exits without close(), the build's thread inside hnswlib


def test_a_process_that_exits_without_close_while_a_thread_is_in_native_code_does_not_abort(tmp_path: Path) -> None:
    """The interpreter's exit closes the stores left open first (services/exiting.py): a thread still
    inside hnswlib (or the parser, or the model) while the interpreter ends aborts the process (exit 134)."""
    from tests._fakes import fill_without_graph

    db = tmp_path / "k.db"
    fill_without_graph(db)  # the child starts the graph's build
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", EXITER, str(db)], cwd=root, capture_output=True, text=True, timeout=300)
    assert "building: True" in done.stdout, done.stdout + done.stderr  # the exit came while the build ran
    assert done.returncode == 0, done.stderr[-2000:]
