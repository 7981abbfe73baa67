"""Graph enrichment off the write path: the queue of stored memories and the worker that reads them in.

An add answers once its memory, vectors and full-text row are committed; in
the same transaction it queues the memory (with the caller's ``entities`` and
``facts``, JSON) in the store's enrichment queue. A worker (a daemon thread of
whichever process holds the store: ``serve``, ``mcp``, a library user's) then
reads queued memories into the knowledge graph in batches: the offline rules,
entity resolution and vectors, facts in time, summaries, the mark on the
communities to recompute.

Many processes may share one store, and any of them may die at any moment:

- the queue is read in the order its memories hold in time (valid_at, then
  arrival), one batch at a time: a worker holds the store's ``drain`` lock
  (store/locks.py) from its claim to its commit, so a value that goes
  A -> B -> A is read in in that order whoever reads it;
- a worker *claims* items (owner = host:pid:token) before reading them, and
  the graph of a batch and the deletion of its items commit in one
  transaction; only items the worker still holds are written, so an item is
  read in once, or not at all;
- under the drain lock any other claim is a dead worker's (the lock of a
  process that dies, kill -9 included, is dropped by the kernel or the
  server): it goes back to the queue, where time order puts it first, and is
  read in alone.

A batch that fails is tried again item by item; an item tried before is
claimed alone, and one that keeps failing (or whose worker keeps dying on it)
is left in the queue after ``MAX_ATTEMPTS`` claims, with its last error, and
never holds the others back; :meth:`Enrichment.retry_failed` gives it a fresh
start.

``Settings.enrich = "inline"`` keeps the old behaviour: the add itself reads
its memories into the graph before it commits.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields, is_dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from knotwork.domain.models import Memory
from knotwork.domain.temporal import from_text, now, to_text
from knotwork.knowledge.models import EntityDraft, FactDraft
from knotwork.services import backlog, drainer
from knotwork.services.drainer import WorkerHost
from knotwork.services.foreground import Foreground
from knotwork.services.backlog import MAX_ATTEMPTS
from knotwork.services.knowledge import GraphInput

if TYPE_CHECKING:
    from knotwork.config import Settings
    from knotwork.services.knowledge import KnowledgeService
    from knotwork.store.protocol import EnrichItem, Store

ERROR_CHARS = 500
PARSE_STEP = 8  # memories parsed at a time within a batch, the worker thread looking at the foreground in between
FOREGROUND_WAIT = 5.0  # seconds a worker thread waits at most for the foreground between two parts of a batch
ABANDONED = "its worker stopped before it finished (killed, or timed out)"  # last_error of a dead worker's claim
WORKER_NICE = 10  # the worker thread's scheduling niceness (Linux): requests first, the graph after
# While adds stream, the backlog at which the worker reads in as fast as it can, as a multiple of enrich_max_backlog
# (between the bound and this, it takes a share of the time that grows with the backlog: Enrichment.deferral)
HARD_BACKLOG = 2
log = logging.getLogger("knotwork.enrichment")


# -- the caller's graph input, as the queue keeps it ---------------------------------------------
def _plain(draft: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(draft):
        value = getattr(draft, f.name)
        if value is None or value is False or (f.name == "rule" and not value):
            continue  # unset; "rule" is the offline extraction's accounting tag, never a caller's
        out[f.name] = {"t": to_text(value)} if isinstance(value, datetime) else value
    return out


def _draft(kind: type, data: dict[str, Any]) -> Any:
    known = {f.name for f in fields(kind)}
    return kind(**{k: from_text(v["t"]) if isinstance(v, dict) and "t" in v else v for k, v in data.items() if k in known})


def encode(gi: GraphInput) -> str | None:
    """The caller's entities and facts of one memory as JSON, and whether its facts' value changes may
    supersede older memories (None: the caller gave nothing and the default holds)."""
    if not gi.entities and not gi.facts and gi.supersede:
        return None
    assert all(is_dataclass(x) for x in [*gi.entities, *gi.facts])
    data: dict[str, Any] = {"entities": [_plain(e) for e in gi.entities], "facts": [_plain(f) for f in gi.facts]}
    if not gi.supersede:  # a raw load: the worker must not retire memories through its facts either
        data["supersede"] = False
    return json.dumps(data)


def decode(text: str | None) -> GraphInput:
    """What :func:`encode` wrote, as the caller's part of a ``GraphInput`` (the rules' part comes later)."""
    if not text:
        return GraphInput()
    data = json.loads(text)
    return GraphInput([_draft(EntityDraft, e) for e in data.get("entities", [])],
                      [_draft(FactDraft, f) for f in data.get("facts", [])], supersede=data.get("supersede", True))


class Enrichment:
    """The enrichment queue of one ``Knotwork``: what the add path queues, and the worker that drains it."""

    def __init__(
        self, store: Store, knowledge: KnowledgeService, settings: Settings, foreground: Foreground | None = None
    ) -> None:
        self.store = store
        self.knowledge = knowledge
        self.settings = settings
        self.foreground = foreground or Foreground()  # this process's searches and adds: a worker thread waits for them
        self._host_of: WorkerHost | None = None  # KNOTWORK_ENRICH=process: what keeps the store's worker process up
        self._host = socket.gethostname()
        self._token = secrets.token_hex(4)
        self._lock = threading.Lock()  # one batch at a time in this object
        self._start_lock = threading.Lock()
        self._worker: EnrichmentWorker | None = None
        self._paused = False
        self._queued = False  # this object queued work (close waits for it)
        self._last_add = 0.0  # time.monotonic() of this object's newest notify, or of an add's start or end
        self._writing = 0  # adds of this object in flight
        # Memories pending in the queue as this object counts them (its enqueues less its claims); None until the
        # store's count is read (the worker's first deferral). See ``deferral``.
        self._pending: int | None = None
        self._count_lock = threading.Lock()
        self.seconds = 0.0  # time this object spent reading memories into the graph
        self.memories = 0
        self.batches = 0  # claims this object read in (a batch tried again item by item counts once)
        self._batch_took = 0.0  # wall seconds of this object's last read-in, and time.monotonic() at its end
        self._batch_ended = 0.0

    @property
    def background(self) -> bool:
        """Whether a worker reads the queue in (else the add itself does: ``inline``)."""
        return self.settings.enrich != "inline"

    def in_process(self, server: bool) -> bool:
        """Whether the worker runs in a process of its own: ``process``, or ``background`` in a server (``serve``,
        ``mcp``); a store no other process can open (``:memory:``) keeps its worker on a thread."""
        chosen = self.settings.enrich == "process" or (self.settings.enrich == "background" and server)
        return chosen and drainer.target_of(self.store) is not None

    @property
    def owner(self) -> str:
        return f"{self._host}:{os.getpid()}:{self._token}"  # the pid read now: a forked server worker is another owner

    # -- the add path --------------------------------------------------------------------------
    def enqueue(self, memories: Sequence[Memory], graphs: Sequence[GraphInput]) -> None:
        """Queue stored memories for the graph; call inside the transaction that stored them. A duplicate
        (the content was stored already, its text read) is queued only for what its caller passed."""
        self.knowledge.extraction.enqueue(memories)  # the LLM's queue, when one is configured
        rows = []
        for memory, gi in zip(memories, graphs or [GraphInput() for _ in memories]):
            if not memory.duplicate:
                rows.append((memory.id, True, encode(gi)))
            elif gi.entities or gi.facts:
                rows.append((memory.id, False, encode(gi)))
        if rows:
            self.store.enrich_enqueue(rows, now())
            self._queued = True
            self._counted(len(rows))

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around an add: while one is in flight, the worker defers as it does between streaming adds."""
        with self._start_lock:
            self._writing += 1
        try:
            with self.foreground.held():
                yield
        finally:
            with self._start_lock:
                self._writing -= 1
            self._last_add = time.monotonic()

    def notify(self) -> None:
        """Work was queued: wake the worker (started on first use unless paused)."""
        self._last_add = time.monotonic()
        if self._paused:
            return
        if self._host_of is not None:
            self._host_of.wake()
            return
        worker = self._worker or self.start()
        worker.wake()

    # -- draining -------------------------------------------------------------------------------
    def drain_once(self, limit: int | None = None) -> int:
        """Claim up to ``limit`` queued memories and read them into the graph; how many were claimed (0 also when
        another process reads a batch in now: the queue is read one batch at a time, in time order)."""
        with self._lock:
            # Trigger: every batch. Why: facts are read in the order their memories hold in time (a value that
            # goes A -> B -> A starts a new interval at the second A), so two workers must not read batches in side
            # by side, and the batch a dead worker held must be read in before anything newer. Outcome: the store's
            # drain lock is held from the claim to the commit; under it, any other claim is a dead worker's (or one
            # that lost its lock) and goes back to the queue, where time order puts it first.
            drain = self.store.enrich_lock("drain")
            if drain is None:
                return 0
            with drain:
                self.store.enrich_release_others(self.owner, ABANDONED)
                at = now()
                items = self.store.enrich_claim(
                    self.owner, limit or self.settings.enrich_batch, at,
                    at - timedelta(seconds=self.settings.enrich_claim_timeout), MAX_ATTEMPTS,
                )
                if not items:
                    return 0
                self._counted(-len(items))
                started = time.perf_counter()
                try:
                    self._read_in(items)
                except Exception as exc:  # noqa: BLE001 - one bad item must not hold the others back: try each alone
                    if len(items) == 1:
                        self._failed(items, exc)
                    else:
                        for item in items:
                            try:
                                self._read_in([item])
                            except Exception as one:  # noqa: BLE001 - recorded on the item, tried again later
                                self._failed([item], one)
                self._batch_took = time.perf_counter() - started
                self._batch_ended = time.monotonic()
                self.seconds += self._batch_took
                self.memories += len(items)
                self.batches += 1
                return len(items)

    def _read_in(self, items: Sequence[EnrichItem]) -> None:
        stored = self.store.get_memories([i.memory_id for i in items])
        work = [(i, replace(stored[i.memory_id], duplicate=not i.rules)) for i in items if i.memory_id in stored]
        # Trigger: a search or add of this process arrives while a batch is parsed. Why: the parse holds the GIL
        # and a core for as long as the batch takes. Outcome: the batch is parsed a few memories at a time, and
        # before each part the worker waits for this process's searches and adds in flight to end.
        inputs: list[GraphInput] = []
        for at in range(0, len(work), PARSE_STEP):
            self._yield_to_foreground()
            part = work[at : at + PARSE_STEP]
            inputs += self.knowledge.prepare([m for _, m in part], [decode(i.graph) for i, _ in part])
        self._yield_to_foreground()
        with self.store.transaction():
            # Trigger: a claim can be taken over (its owner looked dead, or too slow). Why: an item read in twice
            # would state its facts twice. Outcome: only what this worker still holds is written and deleted.
            held = self.store.enrich_held(self.owner, [i.seq for i in items])
            keep = [(m, gi) for (i, m), gi in zip(work, inputs) if i.seq in held]
            self.knowledge.ingest([m for m, _ in keep], [gi for _, gi in keep])
            self.store.enrich_done(held)
            if held:  # what status shows of the worker: who read the last batch in, when, how many
                self.store.set_meta(backlog.LAST_BATCH, json.dumps({"by": self.owner, "at": to_text(now()), "memories": len(keep)}))

    def _yield_to_foreground(self) -> None:
        """On the worker thread: wait while a search or add of this process runs (a caller's own drain, e.g.
        ``wait_for_extraction``, is the foreground itself and never waits)."""
        worker = self._worker
        if worker is not None and worker.on_thread():
            self.foreground.wait_idle(FOREGROUND_WAIT)

    def _failed(self, items: Sequence[EnrichItem], exc: Exception) -> None:
        log.warning("reading %d memories into the graph failed; they stay queued", len(items), exc_info=exc)
        self.store.enrich_release([i.seq for i in items], f"{type(exc).__name__}: {exc}"[:ERROR_CHARS])
        self._counted(len(items))  # pending again, unless tried too often: a count too high only reads the store

    def deferral(self) -> float:
        """Seconds the worker should still wait before its next batch (0: go now).

        Trigger: an add of this process is in flight, or ended less than ``enrich_quiet`` seconds ago (an add
        slower than that, on a busy machine, must not let the worker in between it and the next). Why: a parse and the
        entity vectors of a batch take the cores (and the embedder) an add streaming in next needs, so each
        add waits for them. Outcome: the worker waits until the adds pause, then drains at full speed. Under a
        stream that does not pause, once ``enrich_max_backlog`` memories are queued the worker takes a share of
        the time that grows with the backlog (:meth:`share`): after each batch it rests so that its batches fill
        that share, from almost none at the bound to all of it at ``HARD_BACKLOG`` times the bound, where it reads
        batches in between the adds as fast as it can. So the adds keep most of the cores for as long as the
        backlog allows, and the graph is never more than ``HARD_BACKLOG`` times the bound behind (a bound in
        memories, not in time: a stream of any length keeps its adds fast until then, and the catch-up after it
        is bounded too).
        """
        quiet = self.settings.enrich_quiet
        if quiet <= 0:
            return 0.0
        left = quiet if self._writing else self._last_add + quiet - time.monotonic()
        if left <= 0:
            return 0.0
        share = self.share()
        if share <= 0.0:
            return left
        if share >= 1.0:
            return 0.0
        # A batch that took b seconds is followed by b * (1 - share) / share seconds of rest: batches fill ``share``.
        rest = self._batch_took * (1.0 - share) / share - (time.monotonic() - self._batch_ended)
        return min(left, rest) if rest > 0 else 0.0

    def share(self) -> float:
        """The worker's share of the time while adds stream: 0 under ``enrich_max_backlog`` pending memories, then
        rising with the backlog, linearly, from almost none at the bound to 1 at ``HARD_BACKLOG`` times it."""
        if not self._backlog_reached():
            return 0.0
        bound = self.settings.enrich_max_backlog
        with self._count_lock:
            pending = self._pending or 0
        span = bound * (HARD_BACKLOG - 1)
        return 1.0 if span <= 0 else min(1.0, (pending - bound + 1) / (span + 1))

    def _counted(self, change: int) -> None:
        """This object queued (``change`` > 0) or claimed memories: its count of the pending ones follows."""
        with self._count_lock:
            if self._pending is not None:
                self._pending = max(0, self._pending + change)

    def _backlog_reached(self) -> bool:
        """Whether ``enrich_max_backlog`` memories are pending.

        Trigger: the worker asks each time an add wakes it while adds stream. Why: counting the queue in SQL
        each time costs a read per add. Outcome: this object's own count (its enqueues less its claims) answers;
        the store is read at the first call and whenever that count reaches the bound (other processes on the
        same file may have drained the queue meanwhile, or queued more), and its figure replaces the count.
        """
        with self._count_lock:
            known = self._pending
        if known is not None and known < self.settings.enrich_max_backlog:
            return False
        pending = self.counts()["pending"]
        with self._count_lock:
            self._pending = pending
        return pending >= self.settings.enrich_max_backlog

    def batch_waiting(self) -> bool:
        """Whether a full batch (``enrich_batch`` memories) is pending: the worker then ends its gather wait. Read
        from the store (once per add that wakes a gathering worker): other processes may queue on the same file."""
        return self.counts()["pending"] >= self.settings.enrich_batch

    def drain(self, limit: int | None = None) -> int:
        """Read queued memories in until none is left (or ``limit`` were claimed); how many were claimed."""
        done = 0
        while limit is None or done < limit:
            n = self.drain_once(min(self.settings.enrich_batch, limit - done) if limit is not None else None)
            if not n:
                break
            done += n
        return done

    def counts(self, within: Collection[str] | None = None) -> dict[str, int]:
        """{pending, running, failed} of the store's queue (``within``: of the memories of those workspaces)."""
        return backlog.counts(self.store, within)

    def wait(self, timeout: float | None) -> bool:
        """Help drain the queue until nothing is pending or running (True), or ``timeout`` seconds passed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self.drain_once():
                counts = self.counts()
                if not counts["pending"] and not counts["running"]:
                    return True
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                time.sleep(0.05)  # another worker holds what is left
            elif deadline is not None and time.monotonic() >= deadline:
                return not any(self.counts()[s] for s in ("pending", "running"))

    def retry_failed(self) -> int:
        return self.store.enrich_retry()

    # -- the worker --------------------------------------------------------------------------------
    def start(self, server: bool = False) -> EnrichmentWorker | WorkerHost:
        """Start this object's worker (once): a thread that drains the queue now and whenever work comes, or, in a
        process of its own (:meth:`in_process`), the host that keeps the store's worker process up."""
        with self._start_lock:
            self._paused = False
            if self._host_of is not None:
                return self._host_of
            if self._worker is None and self.in_process(server):
                target = drainer.target_of(self.store)
                assert target is not None
                self._host_of = drainer.WorkerHost(self.store, self.settings, target).start()
                return self._host_of
            if self._worker is None:
                self._worker = EnrichmentWorker(
                    self.drain_once, self.settings.enrich_interval, self.settings.enrich_batch, self.settings.enrich_gather,
                    self.deferral, self.batch_waiting, self.foreground,
                ).start()
            return self._worker

    def stop(self) -> None:
        """Stop the worker (the queue stays: another process, or a later :meth:`start`, drains it; a worker process
        reads in what is queued, then exits)."""
        with self._start_lock:
            self._paused = True
            worker, self._worker = self._worker, None
            host, self._host_of = self._host_of, None
        if worker is not None:
            worker.stop()
        if host is not None:
            host.stop()

    def close(self, wait: bool = True) -> None:
        """Wait (``enrich_close_wait`` seconds at most; not at all with ``wait=False`` or a worker process) for the
        memories this object queued, then stop; what is left goes to a worker process that outlives this one
        (``drainer.hand_over``), unless the worker was stopped on purpose (:meth:`stop`)."""
        handing = self._queued and self.background and not self._paused
        try:
            if handing and wait and self._host_of is None and self.settings.enrich_close_wait > 0:
                self.wait(self.settings.enrich_close_wait)
        finally:
            self.stop()
        if handing:
            try:
                if self.counts()["pending"]:
                    drainer.hand_over(self.store, self.settings)
            except Exception:  # noqa: BLE001 - the queue stays: the next process that opens the store reads it in
                log.warning("could not hand the graph's backlog to a worker process", exc_info=True)

    def stats(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "memories": self.memories, "batches": self.batches}


class EnrichmentWorker:
    """Drains the queue on a daemon thread: ``gather`` seconds after it is woken, else every ``interval`` seconds;
    a full batch (``batch`` memories) is followed by the next at once, a partial one after ``gather`` seconds; while
    adds of its process stream in, it waits as long as ``deferral()`` says (``Enrichment.deferral``)."""

    def __init__(
        self, drain_once: Any, interval: float, batch: int = 1, gather: float = 0.0, deferral: Any = None, full: Any = None,
        foreground: Foreground | None = None,
    ) -> None:
        self.drain_once = drain_once
        self.interval = interval
        self.batch = batch
        self.gather = gather
        self.deferral = deferral or (lambda: 0.0)
        self.full = full or (lambda: False)
        self.foreground = foreground
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="knotwork-enrich", daemon=True)

    def start(self) -> EnrichmentWorker:
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def on_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def _run(self) -> None:
        # Trigger: a server's request threads and the worker share the cores. Why: an add or a search
        # waiting for a parse of someone else's memory is the latency this worker exists to take away.
        # Outcome: on Linux (where a thread is a task of its own) the worker runs at a lower priority.
        if sys.platform == "linux":
            try:
                me = threading.get_native_id()  # relative to the process's own: a process started niced stays so
                os.setpriority(os.PRIO_PROCESS, me, min(os.getpriority(os.PRIO_PROCESS, me) + WORKER_NICE, 19))
            except OSError:
                pass
        failures = 0
        waited = False
        while not self._stop.is_set():
            try:
                self._wake.clear()  # an add from here on wakes the wait below: the backlog is looked at again
                wait = self.deferral()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                if self.foreground is not None and self.foreground.busy and not waited:
                    # A search or add of this process runs: wait for it (bounded: a stream of searches never starves
                    # the graph), then look at the deferral again (an add that ran meanwhile defers the batch).
                    self.foreground.wait_idle(FOREGROUND_WAIT)
                    waited = True
                    continue
                waited = False
                done = self.drain_once()
                if done:
                    failures = 0
                    if done < self.batch:
                        self._gather()
                    continue  # a full batch: the next follows (after the adds, if they stream in meanwhile)
            except Exception:  # noqa: BLE001 - a busy or closed database now is no reason to stop for good
                failures += 1
                log.warning("the enrichment worker could not read the queue; trying again", exc_info=True)
            if self._wake.wait(min(self.interval * (1 + failures), 60.0)):
                self._gather()
            self._wake.clear()

    def _gather(self) -> None:
        # Trigger: fewer memories queued than a batch (a server's adds arrive one by one). Why: per memory, a
        # batch of a few dozen costs about half the CPU of batches of one or two (one parse pipeline, one run of
        # the model for the entity names, one transaction), CPU the requests need. Outcome: the worker waits
        # ``gather`` seconds for more to be queued; a full batch queued meanwhile, or a stop, ends the wait.
        if self.gather <= 0:
            return
        deadline = time.monotonic() + self.gather
        while not self._stop.is_set() and not self._full():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # Each add wakes it (an add may wake it before its outer transaction commits: it looks again after
            # ``interval`` seconds too): is the batch full now?
            self._wake.wait(min(left, self.interval))
            self._wake.clear()

    def _full(self) -> bool:
        try:
            return bool(self.full())
        except Exception:  # noqa: BLE001 - a busy or closed database: the gather time alone decides
            return False

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()  # ends an idle, deferral or gather wait
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=120)
