"""KnotworkSession and the function tools driven through the OpenAI Agents SDK's own interfaces (SessionABC,
FunctionTool.on_invoke_tool with a ToolContext), on both backends; no model is called."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("agents")

from agents import FunctionTool, set_tracing_disabled  # noqa: E402
from agents.memory.session import Session, SessionABC  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

import knotwork  # noqa: E402
from knotwork.integrations.openai_agents import KnotworkSession, memory_tools  # noqa: E402

set_tracing_disabled(True)

TURNS = [
    {"role": "user", "content": "Hi, I'm Ada and I'm flying to Lisbon on Friday"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "Noted: Lisbon on Friday."}]},
    {"type": "function_call", "call_id": "c1", "name": "book_hotel", "arguments": "{\"city\": \"Lisbon\"}"},
    {"type": "function_call_output", "call_id": "c1", "output": "Hotel Avenida, 2 nights"},
    {"role": "user", "content": "Hi, I'm Ada and I'm flying to Lisbon on Friday"},  # said twice: two items
]


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


def test_items_come_back_in_order_exactly_and_by_limit(mem: knotwork.Knotwork) -> None:
    session = KnotworkSession("trip-1", mem)
    assert isinstance(session, SessionABC) and isinstance(session, Session)  # the SDK's runtime protocol check
    run(session.add_items(TURNS[:2]))
    run(session.add_items(TURNS[2:]))
    assert run(session.get_items()) == TURNS
    assert run(session.get_items(limit=2)) == TURNS[-2:]
    assert run(session.get_items(limit=0)) == []
    assert KnotworkSession("trip-1", mem, session_settings={"limit": 3}) and run(
        KnotworkSession("trip-1", mem, session_settings={"limit": 3}).get_items()) == TURNS[-3:]


def test_items_are_memories_of_the_sessions_thread(mem: knotwork.Knotwork) -> None:
    run(KnotworkSession("trip-1", mem).add_items(TURNS[:1]))
    (m,) = mem.list(workspace="agents", thread="trip-1")
    assert m.content.startswith(TURNS[0]["content"]) and m.metadata["agents"]["item"] == TURNS[0]
    assert mem.search("flying to Lisbon", workspace="agents")[0].memory.id == m.id


def test_pop_and_clear_touch_one_session_only(mem: knotwork.Knotwork) -> None:
    a, b = KnotworkSession("a", mem), KnotworkSession("b", mem)
    run(a.add_items(TURNS[:3]))
    run(b.add_items([{"role": "user", "content": "b's only turn"}]))
    assert run(a.pop_item()) == TURNS[2] and run(a.get_items()) == TURNS[:2]
    run(a.add_items(TURNS[2:3]))
    assert run(a.get_items()) == TURNS[:3]  # appended after the items that stayed
    run(a.clear_session())
    assert run(a.get_items()) == [] and run(a.pop_item()) is None
    assert run(b.get_items()) == [{"role": "user", "content": "b's only turn"}]


def test_a_session_persists_across_opens(tmp_path) -> None:
    path = str(tmp_path / "sessions.db")
    first = KnotworkSession("s", path)
    run(first.add_items(TURNS[:2]))
    first.close()
    again = KnotworkSession("s", path)
    try:
        assert run(again.get_items()) == TURNS[:2]
    finally:
        again.close()


def test_a_bad_batch_of_items_writes_nothing(mem: knotwork.Knotwork) -> None:
    session = KnotworkSession("s", mem)
    with pytest.raises(ValueError, match=r"content: is \d+ bytes in UTF-8; the limit is 65536 bytes"):
        run(session.add_items([TURNS[0], {"role": "user", "content": "x" * 70_000}]))
    with pytest.raises(ValueError, match=r"items\[1\]: is not JSON"):
        run(session.add_items([TURNS[0], {"role": "user", "content": object()}]))
    assert run(session.get_items()) == [] and len(mem.list(workspace="*", agent_id="*")) == 0
    with pytest.raises(ValueError, match="session_id"):
        KnotworkSession("line\nbreak", mem)


def invoke(tool: FunctionTool, **args: object) -> str:
    text = json.dumps(args)
    return run(tool.on_invoke_tool(ToolContext(context=None, tool_name=tool.name, tool_call_id="c1", tool_arguments=text), text))


def test_the_function_tools_remember_recall_and_forget_across_sessions(mem: knotwork.Knotwork) -> None:
    tools = {t.name: t for t in memory_tools(mem)}
    assert set(tools) == {"remember", "recall", "forget"} and all(isinstance(t, FunctionTool) for t in tools.values())
    assert tools["remember"].params_json_schema["required"] == ["content", "tags", "category"]
    run(KnotworkSession("trip-1", mem).add_items(TURNS[:1]))
    said = invoke(tools["remember"], content="Ada is vegetarian", tags=["topic=food"], category="preference")
    (m,) = mem.list(workspace="agents", category="preference")
    assert m.id in said and m.tags == {"topic": "food"}
    found = invoke(tools["recall"], query="Ada flying to Lisbon", limit=None)
    assert "Lisbon" in found.splitlines()[0]  # a turn of an earlier session
    assert "vegetarian" in invoke(tools["recall"], query="what does Ada eat?", limit=1)
    assert m.id in invoke(tools["forget"], id=m.id) and mem.list(workspace="agents", category="preference") == []


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("remember", {"content": "x" * 70_000, "tags": None, "category": None}, "content: is 70000 bytes"),
        ("remember", {"content": "fine", "tags": ["bad key!=v"], "category": None}, "tags: key 'bad key!' is not valid"),
        ("recall", {"query": "", "limit": None}, "query"),
        ("forget", {"id": "0123456789ABCDEFGHJKMNPQRS"}, "no memory matches id"),
    ],
)
def test_bad_input_is_the_tools_error_answer_with_knotworks_message(mem: knotwork.Knotwork, name: str, args: dict, message: str) -> None:
    tools = {t.name: t for t in memory_tools(mem)}
    out = invoke(tools[name], **args)
    assert out.startswith("Error: ") and message in out
    assert len(mem.list(workspace="*", agent_id="*")) == 0
