"""knotwork for Pydantic AI: :func:`memory_toolset`, the memory tools (``remember``, ``recall``, ``forget``) as a
``FunctionToolset`` to give an ``Agent(toolsets=[...])``.

The tools answer in knotwork's compact text (the lines the MCP tools answer with) and act in one workspace and
partition. Bad input (an empty or oversized memory, a bad tag, an id that names nothing) is Pydantic AI's
``ModelRetry`` carrying knotwork's message: the model reads what was wrong and may call again, and nothing was
written. Pydantic AI has no session interface of its own (a run takes its ``message_history``); past runs are
recalled through ``recall``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic_ai import FunctionToolset, ModelRetry

from knotwork.errors import KnotworkError
from knotwork.integrations._tools import FORGET, RECALL, REMEMBER, MemoryTools
from knotwork.service import Knotwork


async def _call(run: Callable[..., str], *args: Any) -> str:
    try:
        return await asyncio.to_thread(run, *args)  # knotwork's calls block: off the event loop
    except KnotworkError as exc:
        raise ModelRetry(str(exc)) from exc


def memory_toolset(
    mem: Knotwork, *, workspace: str | None = None, agent_id: str | None = None, limit: int = 5, max_retries: int = 1
) -> FunctionToolset[Any]:
    """``remember``, ``recall`` and ``forget`` over ``mem`` in one workspace and partition; ``max_retries``: how
    many times the model may call a tool again after a refusal."""
    tools = MemoryTools(mem, workspace=workspace, agent_id=agent_id, limit=limit)

    async def remember(content: str, tags: dict[str, str] | None = None, category: str | None = None) -> str:
        return await _call(tools.remember, content, tags, category)

    async def recall(query: str, limit: int | None = None) -> str:
        return await _call(tools.recall, query, limit)

    async def forget(id: str) -> str:
        return await _call(tools.forget, id)

    remember.__doc__, recall.__doc__, forget.__doc__ = REMEMBER, RECALL, FORGET
    return FunctionToolset([remember, recall, forget], max_retries=max_retries)
