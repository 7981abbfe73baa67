"""knotwork for the OpenAI Agents SDK: :class:`KnotworkSession`, a ``SessionABC`` that keeps a conversation's
items as knotwork memories, and :func:`memory_tools`, the ``remember``/``recall``/``forget`` function tools.

A session is a knotwork thread: each item is one memory of the session's workspace (``workspace=``, default
``agents``) and partition, with ``thread`` = the session id, the item itself as JSON in ``metadata.agents.item``
(it comes back exactly as added) and its place in the session in ``metadata.agents.seq``. The content is the
item's text (a message's text, a tool call's name and arguments, a tool's output), followed by a line naming
the session and the place, ``[session <id> #<seq>]``: knotwork stores one memory per content in a workspace and
partition, and two turns that say the same thing are two items. So past turns are ordinary memories: listed by
``knotwork list --thread <id>``, found by search and by the ``recall`` tool, exported.

Items are added in one transaction (all of a call's items, or none), never consolidated and never dropped by
the store/ignore rules: a conversation is kept as it was. One writer per session at a time is assumed (as
the SDK's own sessions assume); this object serialises its own calls.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from agents import FunctionTool, RunContextWrapper, function_tool
from agents.memory.session import SessionABC
from agents.memory.session_settings import SessionSettings, coerce_session_settings, resolve_session_limit

import knotwork
from knotwork.domain import rules
from knotwork.domain.models import Memory
from knotwork.errors import Conflict, InvalidInput, KnotworkError
from knotwork.integrations._tools import FORGET, RECALL, REMEMBER, MemoryTools
from knotwork.service import Knotwork

META = "agents"  # metadata.agents = {item, seq}
PAGE = 1000


def item_text(item: Any) -> str:
    """The words of a session item: a message's text, a tool call's name and arguments, a tool's output, else
    the item as JSON."""
    if isinstance(item, dict):
        content = item.get("content")
        if isinstance(content, str) and content.strip():
            return content
        if isinstance(content, list):
            parts = [p.get("text") or p.get("refusal") for p in content if isinstance(p, dict)]
            if text := "\n".join(p for p in parts if isinstance(p, str) and p.strip()):
                return text
        if item.get("type") == "function_call" and item.get("name"):
            return f"{item['name']}({item.get('arguments', '')})"
        output = item.get("output")
        if isinstance(output, str) and output.strip():
            return output
    return json.dumps(item, ensure_ascii=False, sort_keys=True)


class KnotworkSession(SessionABC):
    """A conversation's history in knotwork (see the module's docstring for the mapping).

    ``mem``: an open :class:`knotwork.Knotwork`, or a path or URL the session opens (:meth:`close` closes it).
    ``session_settings``: the SDK's ``SessionSettings`` (its ``limit`` is the default of :meth:`get_items`).
    """

    def __init__(
        self,
        session_id: str,
        mem: Knotwork | str | Path,
        *,
        workspace: str = "agents",
        agent_id: str | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        self.session_id = rules.thread(session_id, "session_id")
        name = rules.workspace(workspace)
        if name is None:
            raise InvalidInput("workspace", "give the session a workspace name: the global scope is read by every workspace")
        self.workspace, self.agent_id = name, rules.agent_id(agent_id)
        self.session_settings = coerce_session_settings(session_settings) if session_settings is not None else SessionSettings()
        self._owned = not isinstance(mem, Knotwork)
        self.mem = knotwork.open(mem) if self._owned else mem
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the knotwork store if this session opened it (from a path)."""
        if self._owned:
            self.mem.close()

    # -- reads ----------------------------------------------------------------------------------------------
    def _newest(self, limit: int | None) -> list[Memory]:
        """The session's memories, newest first: ``limit`` of them, or all."""
        out: list[Memory] = []
        cursor = None
        while limit is None or len(out) < limit:
            size = PAGE if limit is None else min(PAGE, limit - len(out))
            page = self.mem.list(workspace=self.workspace, agent_id=self.agent_id, thread=self.session_id, limit=size,
                                 cursor=cursor)
            out += [m for m in page if m.workspace == self.workspace and META in m.metadata]
            cursor = page.next_cursor
            if cursor is None:
                break
        return out

    @staticmethod
    def _seq(m: Memory) -> int:
        return int(m.metadata[META].get("seq", 0))

    def _items(self, limit: int | None) -> list[Any]:
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidInput("limit", f"must be a whole number >= 0, got {limit!r}")
        if limit == 0:
            return []
        newest = self._newest(limit)
        return [m.metadata[META]["item"] for m in sorted(newest, key=self._seq)]

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items in the order they were added; with ``limit``, the latest ``limit`` of them."""
        return await asyncio.to_thread(self._items, resolve_session_limit(limit, self.session_settings))

    # -- writes ---------------------------------------------------------------------------------------------
    def _add(self, items: list[Any]) -> None:
        if not isinstance(items, list):
            raise InvalidInput("items", f"expected a list of items, got {type(items).__name__}")
        if not items:
            return
        with self._lock:
            last = self._newest(1)
            start = self._seq(last[0]) + 1 if last else 1
            batch = []
            for i, item in enumerate(items):
                try:
                    stored = json.loads(json.dumps(item, ensure_ascii=False, allow_nan=False))
                except (TypeError, ValueError) as exc:
                    raise InvalidInput(f"items[{i}]", f"is not JSON: {exc}") from None
                text = item_text(stored)
                batch.append({
                    "content": f"{text}\n[session {self.session_id} #{start + i}]", "workspace": self.workspace,
                    "agent_id": self.agent_id, "thread": self.session_id,
                    "metadata": {META: {"item": stored, "seq": start + i}},
                })
            added = self.mem.add_many(batch, consolidate=False, force=True)  # all checked first: all land, or none
            if any(m.duplicate for m in added):
                raise Conflict(f"session {self.session_id!r} was written by another writer at the same time; read it again")

    async def add_items(self, items: list[Any]) -> None:
        """Append ``items`` to the session, all in one transaction."""
        await asyncio.to_thread(self._add, items)

    def _pop(self) -> Any | None:
        with self._lock:
            last = self._newest(1)
            if not last:
                return None
            self.mem.delete(last[0].id)
            return last[0].metadata[META]["item"]

    async def pop_item(self) -> Any | None:
        """Remove and return the session's latest item (None when it has none)."""
        return await asyncio.to_thread(self._pop)

    def _clear(self) -> None:
        with self._lock:
            for m in self._newest(None):
                self.mem.delete(m.id)

    async def clear_session(self) -> None:
        """Forget every item of the session (other sessions keep theirs)."""
        await asyncio.to_thread(self._clear)


def _tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a tool fails: knotwork's message for a refusal (it names the problem and holds no
    secret), the SDK's generic text for anything else."""
    cause = error
    while cause is not None and not isinstance(cause, KnotworkError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, KnotworkError):
        return f"Error: {cause}"
    return "An error occurred while running the tool. Please try again."


def memory_tools(
    mem: Knotwork, *, workspace: str | None = "agents", agent_id: str | None = None, limit: int = 5
) -> list[FunctionTool]:
    """``remember``, ``recall`` and ``forget`` as Agents SDK function tools over ``mem`` (give them to an
    ``Agent(tools=...)``); by default in the workspace sessions write to, so ``recall`` finds past turns of every
    session as well as what was remembered."""
    tools = MemoryTools(mem, workspace=workspace, agent_id=agent_id, limit=limit)

    async def remember(content: str, tags: list[str] | None = None, category: str | None = None) -> str:
        return await asyncio.to_thread(tools.remember, content, tags, category)

    async def recall(query: str, limit: int | None = None) -> str:
        return await asyncio.to_thread(tools.recall, query, limit)

    async def forget(id: str) -> str:
        return await asyncio.to_thread(tools.forget, id)

    remember.__doc__ = REMEMBER + " Tags are 'key=value' texts."
    recall.__doc__, forget.__doc__ = RECALL, FORGET
    return [function_tool(f, failure_error_function=_tool_error) for f in (remember, recall, forget)]
