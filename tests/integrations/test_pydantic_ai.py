"""The memory toolset driven by a real Pydantic AI Agent run, on both backends. The model is Pydantic AI's own
FunctionModel (a local function that plays the model's turns): no LLM, no network."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, FunctionToolset  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

import knotwork  # noqa: E402
from knotwork.integrations.pydantic_ai import memory_toolset  # noqa: E402


def scripted(*calls: tuple[str, dict[str, Any]]) -> FunctionModel:
    """A model that makes ``calls`` one per turn, then answers "done"."""

    def turn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        n = sum(isinstance(m, ModelResponse) for m in messages)
        if n < len(calls):
            return ModelResponse(parts=[ToolCallPart(calls[n][0], calls[n][1])])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(turn)


def returns(result: Any) -> list[ToolReturnPart]:
    return [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]


def test_an_agent_remembers_recalls_and_forgets(mem: knotwork.Knotwork) -> None:
    toolset = memory_toolset(mem, workspace="travel")
    assert isinstance(toolset, FunctionToolset) and set(toolset.tools) == {"remember", "recall", "forget"}
    agent = Agent(scripted(("remember", {"content": "Ada prefers window seats", "tags": {"topic": "flights"}}),
                           ("recall", {"query": "which seat does Ada like?"})), toolsets=[toolset])
    result = agent.run_sync("plan my flight")
    (m,) = mem.list(workspace="travel")
    said, found = returns(result)
    assert result.output == "done" and m.id in said.content and m.tags == {"topic": "flights"}
    assert found.content.splitlines()[0].split()[0] == mem.short_ids([m.id])[m.id]
    again = asyncio.run(Agent(scripted(("forget", {"id": m.id})), toolsets=[toolset]).run("forget it"))
    assert m.id in returns(again)[0].content and mem.list(workspace="travel") == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (("remember", {"content": "   "}), "content: is empty; a memory needs some text"),
        (("remember", {"content": "x" * 70_000}), "content: is 70000 bytes in UTF-8; the limit is 65536 bytes"),
        (("remember", {"content": "fine", "tags": {"bad key!": "v"}}), "tags: key 'bad key!' is not valid"),
        (("forget", {"id": "0123456789ABCDEFGHJKMNPQRS"}), "no memory matches id"),
    ],
)
def test_bad_input_is_a_model_retry_with_knotworks_message(mem: knotwork.Knotwork, call: tuple, message: str) -> None:
    result = Agent(scripted(call), toolsets=[memory_toolset(mem, workspace="travel")]).run_sync("go")
    (refused,) = returns(result)
    assert refused.outcome == "retried" and message in refused.content
    assert len(mem.list(workspace="*", agent_id="*")) == 0


def test_the_tools_stay_in_their_workspace_and_partition(mem: knotwork.Knotwork) -> None:
    other = mem.add("The blog's database is MySQL", workspace="blog")
    mine = mem.add("The shop's database is PostgreSQL", workspace="shop", agent_id="planner")
    toolset = memory_toolset(mem, workspace="shop", agent_id="planner")
    result = Agent(scripted(("recall", {"query": "database"}), ("forget", {"id": other.id})), toolsets=[toolset]).run_sync("go")
    found, refused = returns(result)
    assert "PostgreSQL" in found.content and "MySQL" not in found.content
    assert refused.outcome == "retried" and mem.get(other.id).id == other.id and mem.get(mine.id).id == mine.id
