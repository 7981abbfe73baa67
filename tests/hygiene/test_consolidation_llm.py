"""An LLM deciding the consolidation cases the offline rules leave unclear, against a real chat-completions
server on loopback (the bundled embedder gives the cosines)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, Settings

from tests.knowledge._llm_server import ChatServer, Reply, said

STORED = "The billing service stores invoices in Postgres"
RESTATED = "Invoices of the billing service are kept in Postgres"  # cosine ~0.88; the rules say ADD


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer().start()
    yield s
    s.stop()


def open_with(target: str | Path, home: Path, server: ChatServer, **kw: object) -> Knotwork:
    settings = Settings(home=home / "home", kg_extract="none", kg_llm_url=server.base_url,
                        kg_llm_model="toy", **kw)
    return knotwork.open(target, settings=settings)


def answer(decision: str, target: int | None, reason: str = "same fact") -> Reply:
    return said(json.dumps({"decision": decision, "target": target, "reason": reason}))


def test_an_unclear_add_is_decided_by_the_llm(tmp_path: Path, target: str, server: ChatServer) -> None:
    with open_with(target, tmp_path, server) as mem:
        old = mem.add(STORED, workspace="w")
        assert server.requests == []  # nothing near: the rules' ADD is clear
        server.replies.append(answer("NOOP", 1, "says the same"))
        got = mem.add(RESTATED, workspace="w")
        assert (got.decision, got.touched, got.reason) == ("NOOP", old.id, "LLM: says the same")
        assert mem.store.count_memories() == 1
        (request,) = server.chat_requests
        shown = request["messages"][-1]["content"]
        assert RESTATED in shown and f"1. {STORED}" in shown
        assert "Ignore:" in request["messages"][0]["content"]  # the store/ignore instructions go along
        assert request["response_format"]["json_schema"]["name"] == "consolidation"
        assert mem.stats().health["consolidation_llm_asked"] == 1


def test_the_llm_can_supersede_and_update(tmp_path: Path, target: str, server: ChatServer) -> None:
    with open_with(target, tmp_path, server) as mem:
        old = mem.add(STORED, workspace="w")
        server.replies.append(answer("SUPERSEDE", 1, "moved"))
        new = mem.add(RESTATED, workspace="w", valid_at="2030-01-01T00:00:00Z")
        assert new.decision == "SUPERSEDE" and new.touched == old.id and mem.get(old.id).invalid_at is not None
        server.replies.append(answer("UPDATE", 1, "says more"))
        more = mem.add("Invoices of the billing service are kept in Postgres, table invoices_v2", workspace="w")
        assert more.decision == "UPDATE" and more.id == new.id and more.version == 2


@pytest.mark.parametrize(
    "reply",
    [Reply(status=500), said("I think these are the same."), answer("NOOP", 7), answer("NOOP", None),
     answer("MERGE", 1), answer("NOOP", True)],  # type: ignore[arg-type]
)
def test_an_unusable_answer_leaves_the_rules_add(tmp_path: Path, target: str, server: ChatServer, reply: Reply) -> None:
    with open_with(target, tmp_path, server) as mem:
        mem.add(STORED, workspace="w")
        server.replies.append(reply)
        got = mem.add(RESTATED, workspace="w")
        assert got.decision == "ADD" and mem.store.count_memories() == 2
        assert len(server.requests) == 1 and mem.stats().health["consolidation_llm_failed"] == 1


def test_an_endpoint_that_is_down_does_not_fail_the_add(tmp_path: Path, target: str, server: ChatServer) -> None:
    with open_with(target, tmp_path, server) as mem:
        mem.add(STORED, workspace="w")
        server.stop()
        assert mem.add(RESTATED, workspace="w").decision == "ADD"
    server.start()  # the fixture stops it again


def test_clear_cases_and_turned_off_never_ask(tmp_path: Path, target: str, server: ChatServer) -> None:
    with open_with(target, tmp_path, server, consolidation_llm=False) as mem:
        mem.add(STORED, workspace="w")
        assert mem.add(RESTATED, workspace="w").decision == "ADD"
    with open_with(tmp_path / "n.db", tmp_path, server) as mem:
        mem.add(STORED, workspace="w")
        assert mem.add(STORED.lower() + ".", workspace="w").decision == "NOOP"  # the rules are sure
        assert mem.add("The release train leaves every Tuesday", workspace="w").decision == "ADD"  # far below
        assert mem.add(RESTATED, workspace="v").decision == "ADD"  # another workspace: nothing near
    assert server.requests == []


def test_add_many_asks_about_items_near_earlier_ones(tmp_path: Path, target: str, server: ChatServer) -> None:
    with open_with(target, tmp_path, server) as mem:
        server.replies.append(answer("NOOP", 1))
        out = mem.add_many([{"content": STORED, "workspace": "w"}, {"content": RESTATED, "workspace": "w"}])
        assert [m.decision for m in out] == ["ADD", "NOOP"] and out[1].touched == out[0].id
        assert mem.store.count_memories() == 1
