"""LLM extraction through the durable queue, against a real chat-completions server on loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput, Knotwork, Settings
from knotwork.knowledge.llm import ExtractionError, parse

from ._llm_server import ChatServer, Reply, said, toy_answer

GOOD = toy_answer("BillingService uses Stripe")


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer().start()
    yield s
    s.stop()


def open_kg(path: Path, url: str, **kw: object) -> Knotwork:
    settings = Settings(embedder="none", kg_extract="none", kg_llm_url=url, kg_llm_model="toy", kg_llm_backoff=0, **kw)
    return knotwork.open(path, settings=settings)


def status_of(mem: Knotwork, memory_id: str) -> tuple[str, int, str | None]:
    # Two reads: a worker may finish the item between them, so it can be in both; the later read wins.
    items = {q.memory_id: q for q in mem.extraction_status(limit=500).items}
    items.update({q.memory_id: q for q in mem.extraction_status(status="done").items})
    item = items[memory_id]
    return item.status, item.attempts, item.last_error


# -- repairing answers ------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [GOOD, f"```json\n{GOOD}\n```", f"Here is the graph:\n{GOOD}\nHope this helps!", f"```\n{GOOD}```"],
)
def test_answers_are_repaired_into_an_extraction(content: str) -> None:
    got = parse(content)
    assert [(f.subject, f.predicate, f.object) for f in got.facts] == [("BillingService", "uses", "Stripe")]
    assert {e.name for e in got.entities} == {"BillingService", "Stripe"}


def test_bad_items_are_dropped_and_the_good_kept() -> None:
    got = parse(json.dumps({
        "entities": ["Redis", {"name": ""}, 7, {"name": "Kafka", "type": "a type with spaces!", "extra": 1}],
        "facts": [
            {"subject": "A1", "predicate": "Depends On", "object": "B1", "valid_at": None, "invalid_at": None},
            {"subject": "same", "predicate": "is", "object": "same"},
            {"subject": "A2", "predicate": "uses"},
            {"subject": "A3", "predicate": "uses", "object": "B3", "valid_at": "not a date"},
        ],
    }))
    assert [e.name for e in got.entities] == ["Redis"]
    assert [(f.subject, f.predicate, f.object) for f in got.facts] == [("A1", "depends_on", "B1")]


@pytest.mark.parametrize("content", ["I cannot help with that.", "[1, 2]", '{"entities": "none"}', "{broken"])
def test_answers_without_a_usable_object_are_errors_worth_retrying(content: str) -> None:
    with pytest.raises(ExtractionError) as info:
        parse(content)
    assert info.value.retry


# -- the queue ----------------------------------------------------------------------


def test_good_output_goes_into_the_graph(tmp_path: Path, server: ChatServer) -> None:
    with open_kg(tmp_path / "kg.db", server.base_url, kg_llm_instructions="Name services in CamelCase.") as mem:
        m = mem.add("BillingService uses Stripe for payments.", valid_at="2026-01-05")
        dup = mem.add("BillingService uses Stripe for payments.", valid_at="2026-01-05")
        assert dup.duplicate
        assert mem.extraction_status().counts == {"pending": 1, "running": 0, "done": 0, "failed": 0}
        assert mem.episodes()[0].extraction == "pending"
        report = mem.extract_pending()
        assert (report.done, report.retrying, report.failed) == (1, 0, 0)
        assert status_of(mem, m.id) == ("done", 1, None)
        (f,) = mem.entity_facts("BillingService")
        assert (f.fact, f.extractor, f.sources) == ("BillingService uses Stripe", "llm", (m.id,))
        assert f.valid_at is not None and f.valid_at.date().isoformat() == "2026-01-05"
        assert mem.entity("Stripe").type == "software"
    (request,) = server.chat_requests
    assert request["model"] == "toy"
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"]["required"] == ["entities", "facts"]
    assert "\n\nAlso: Store: decisions" in request["messages"][0]["content"]  # the store/ignore instructions come first
    assert request["messages"][0]["content"].endswith(" Name services in CamelCase.")
    assert "BillingService uses Stripe for payments." in request["messages"][1]["content"]


def test_malformed_then_good_is_retried_within_one_drain(tmp_path: Path, server: ChatServer) -> None:
    server.replies = [said("Sure! The entities are BillingService and Stripe."), said(f"```json\n{GOOD}\n```")]
    with open_kg(tmp_path / "kg.db", server.base_url) as mem:
        m = mem.add("BillingService uses Stripe.")
        report = mem.extract_pending()
        assert (report.done, report.retrying, report.failed) == (1, 1, 0)
        assert status_of(mem, m.id) == ("done", 2, None)
        assert [f.fact for f in mem.entity_facts("Stripe")] == ["BillingService uses Stripe"]


def test_server_down_then_up(tmp_path: Path) -> None:
    server = ChatServer().start()
    port = server.port
    server.stop()  # nothing listens there now
    with open_kg(tmp_path / "kg.db", f"http://127.0.0.1:{port}/v1", kg_llm_timeout=5) as mem:
        m = mem.add("BillingService uses Stripe.")
        report = mem.extract_pending(limit=1)
        assert (report.done, report.retrying, report.remaining["pending"]) == (0, 1, 1)
        state, attempts, error = status_of(mem, m.id)
        assert (state, attempts) == ("pending", 1) and "cannot be reached" in (error or "")
        back = ChatServer(port=port).start()
        try:
            assert mem.extract_pending().done == 1
        finally:
            back.stop()
        assert status_of(mem, m.id) == ("done", 2, None)
        assert mem.entity_facts("BillingService")[0].extractor == "llm"


def test_backoff_holds_a_retry_until_it_is_due(tmp_path: Path, server: ChatServer) -> None:
    server.replies = [Reply(status=503)]
    with open_kg(tmp_path / "kg.db", server.base_url) as mem:
        mem.knowledge.extraction.settings = mem.settings.model_copy(update={"kg_llm_backoff": 3600})
        m = mem.add("BillingService uses Stripe.")
        assert mem.extract_pending().retrying == 1
        assert mem.extract_pending().done == 0  # not due for an hour
        (item,) = mem.extraction_status().items
        assert item.status == "pending" and item.available_at > item.updated_at
        assert "HTTP 503" in (status_of(mem, m.id)[2] or "")
        assert len(server.chat_requests) == 1


def test_permanent_failure_is_visible_and_can_be_retried(tmp_path: Path, server: ChatServer) -> None:
    server.replies = [said("I cannot help with that.")] * 3
    with open_kg(tmp_path / "kg.db", server.base_url, kg_llm_max_attempts=3) as mem:
        m = mem.add("BillingService uses Stripe.")
        report = mem.extract_pending()
        assert (report.done, report.retrying, report.failed) == (0, 2, 1)
        state, attempts, error = status_of(mem, m.id)
        assert (state, attempts) == ("failed", 3) and "no JSON object" in (error or "")
        assert mem.extraction_status(status="failed").items[0].memory_id == m.id
        assert mem.episodes()[0].extraction == "failed"
        assert mem.get(m.id).content == "BillingService uses Stripe."  # the memory itself is untouched
        assert mem.extract_pending().done == 0  # failed items stay failed...
        assert mem.extract_pending(retry_failed=True).done == 1  # ...until asked again
        assert status_of(mem, m.id) == ("done", 1, None)


def test_a_client_error_fails_at_once(tmp_path: Path, server: ChatServer) -> None:
    server.replies = [Reply(status=404)]
    with open_kg(tmp_path / "kg.db", server.base_url) as mem:
        m = mem.add("BillingService uses Stripe.")
        assert mem.extract_pending().failed == 1
        state, attempts, error = status_of(mem, m.id)
        assert (state, attempts) == ("failed", 1) and "HTTP 404" in (error or "")


def test_deleting_a_memory_removes_its_queue_row_and_off_means_no_queue(tmp_path: Path, server: ChatServer) -> None:
    with open_kg(tmp_path / "kg.db", server.base_url) as mem:
        m = mem.add("BillingService uses Stripe.")
        mem.delete(m.id)
        assert mem.extraction_status().counts["pending"] == 0 and mem.extract_pending().done == 0
        with pytest.raises(InvalidInput, match="status"):
            mem.extraction_status(status="stuck")
    with knotwork.open(tmp_path / "off.db", settings=Settings(embedder="none")) as off:
        off.add("BillingService uses Stripe.")
        st = off.extraction_status()
        assert not st.enabled and sum(st.counts.values()) == 0
        assert off.start_extraction_worker() is None


def test_the_serve_worker_drains_the_queue(tmp_path: Path, server: ChatServer) -> None:
    with open_kg(tmp_path / "kg.db", server.base_url, kg_llm_worker_interval=0.05) as mem:
        m = mem.add("BillingService uses Stripe.")
        worker = mem.start_extraction_worker()
        assert worker is not None
        try:
            for _ in range(200):
                if status_of(mem, m.id)[0] == "done":
                    break
                time.sleep(0.05)
        finally:
            worker.stop()
        assert status_of(mem, m.id)[0] == "done"


def test_the_extractor_is_told_the_store_and_ignore_instructions(tmp_path: Path, server: ChatServer) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "instructions.txt").write_text("store: release notes\nignore: weather small talk\n")
    with open_kg(tmp_path / "kg.db", server.base_url, home=home, kg_llm_instructions="Name services in CamelCase.") as mem:
        mem.add("BillingService uses Stripe for payments.")
        mem.extract_pending()
    (request,) = server.chat_requests
    system = request["messages"][0]["content"]
    assert "Store: release notes. Ignore: weather small talk." in system and system.endswith("Name services in CamelCase.")
