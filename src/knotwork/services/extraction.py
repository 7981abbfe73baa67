"""The LLM extraction queue: every stored memory waits here until an LLM has read it.

When ``KNOTWORK_KG_LLM_URL`` is set, ``add`` queues each new memory in the
same transaction that stores it, so a memory is never stored without its
queue row. :meth:`ExtractionService.drain` (the ``knotwork extract`` command,
or the worker thread of ``knotwork serve``) takes due items one at a time:

- the LLM's entities and facts go into the graph with origin ``llm``, and
  the item is ``done``;
- an error that may pass (server down, timeout, 5xx, 429, an answer without
  usable JSON) puts the item back to ``pending`` with the error and a
  backoff (``kg_llm_backoff`` seconds, doubling per attempt), until
  ``kg_llm_max_attempts`` attempts have been made;
- after that, or at once for an error that will not pass (a 4xx such as an
  unknown model), the item is ``failed``, and stays visible with its
  attempts and last error until ``retry_failed`` gives it a fresh start.

An item left ``running`` by a worker that died is taken again once it is
older than ``STALE_AFTER``. Nothing here ever drops a memory.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from knotwork.domain.models import Memory
from knotwork.domain.temporal import now
from knotwork.errors import InvalidInput
from knotwork.knowledge.llm import ExtractionError, LLMExtractor
from knotwork.knowledge.models import ExtractionReport, ExtractionStatus

STALE_AFTER = timedelta(minutes=10)
ERROR_CHARS = 500
STATUSES = ("pending", "running", "done", "failed")


class ExtractionService:
    def __init__(self, store: Any, settings: Any, ingest: Callable[[Memory, Any, str], None]) -> None:
        self.store = store
        self.settings = settings
        self.ingest = ingest  # (memory, extraction, origin) -> None: writes it into the graph
        self.llm = (
            LLMExtractor(settings.kg_llm_url, settings.kg_llm_model, settings.kg_llm_api_key,
                         settings.kg_llm_timeout, instructions=settings.kg_llm_instructions)
            if settings.kg_llm_url
            else None
        )

    @property
    def enabled(self) -> bool:
        return self.llm is not None

    def enqueue(self, memories: Sequence[Memory]) -> None:
        """Queue fresh memories (call inside their transaction; duplicates were read already)."""
        if self.llm is not None:
            fresh = [m.id for m in memories if not m.duplicate]
            if fresh:
                self.store.kg_enqueue(fresh, now())

    def status(self, status: str | None = None, limit: int = 50) -> ExtractionStatus:
        if status is not None and status not in STATUSES:
            raise InvalidInput("status", f"{status!r} is not one of {', '.join(STATUSES)}")
        counts = {s: 0 for s in STATUSES} | self.store.kg_queue_counts()
        # Done items are the quiet majority: listed only when asked for by name.
        items = self.store.kg_queue(status=status, limit=limit, exclude=None if status else "done")
        return ExtractionStatus(self.enabled, counts, tuple(items))

    def retry_failed(self) -> int:
        return self.store.kg_queue_retry_failed(now())

    def drain(self, limit: int | None = None) -> ExtractionReport:
        """Work through due items until none is left (or ``limit`` attempts were made)."""
        done = retrying = failed = tried = 0
        while self.llm is not None and (limit is None or tried < limit):
            at = now()
            claimed = self.store.kg_claim(1, at, at - STALE_AFTER)
            if not claimed:
                break
            item = claimed[0]
            tried += 1
            memory = self.store.get_memory(item.memory_id)
            if memory is None:  # deleted meanwhile: its queue row went with it
                continue
            try:
                extraction = self.llm.extract(memory.content, memory.valid_at)
                self.ingest(memory, extraction, "llm")
            except Exception as exc:  # noqa: BLE001 - whatever went wrong is recorded on the item, never lost
                retry = exc.retry if isinstance(exc, ExtractionError) else True
                message = (str(exc) if isinstance(exc, ExtractionError) else f"{type(exc).__name__}: {exc}")[:ERROR_CHARS]
                at = now()
                if retry and item.attempts < self.settings.kg_llm_max_attempts:
                    wait = self.settings.kg_llm_backoff * 2 ** (item.attempts - 1)
                    self.store.kg_queue_set(item.memory_id, "pending", at, message, at + timedelta(seconds=wait))
                    retrying += 1
                else:
                    self.store.kg_queue_set(item.memory_id, "failed", at, message)
                    failed += 1
                continue
            self.store.kg_queue_set(item.memory_id, "done", now())
            done += 1
        counts = self.store.kg_queue_counts()
        return ExtractionReport(done, retrying, failed, {s: counts.get(s, 0) for s in ("pending", "running", "failed")})


class ExtractionWorker:
    """Drains the queue every ``interval`` seconds on a daemon thread until :meth:`stop`."""

    def __init__(self, service: ExtractionService, interval: float) -> None:
        self.service = service
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="knotwork-extract", daemon=True)

    def start(self) -> ExtractionWorker:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.service.drain(limit=100)
            except Exception:  # noqa: BLE001 - a busy database now is no reason to stop for good
                pass
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval + 60)
