"""knotwork for LangChain: :class:`KnotworkRetriever`, a ``BaseRetriever``, and :func:`memory_tools`, the memory
tools (remember, recall, forget) as LangChain ``StructuredTool``\\ s.

A retrieved ``Document`` holds a memory's content; its metadata the memory's ``id``, the search ``score`` (a
relevance in [0, 1]), ``workspace``, ``agent_id``, ``category``, ``tags``, ``thread`` and its dates
(``created_at``, ``updated_at``, ``valid_at``, ``invalid_at`` as ISO-8601 text). A bad query raises knotwork's
``InvalidInput`` (a ``ValueError``), as a retriever raises. A tool refuses bad input with LangChain's
``ToolException`` carrying knotwork's message; the tools handle it (``handle_tool_error``), so an agent reads the
message as the tool's answer (a ``ToolMessage`` with ``status="error"``) and nothing was written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from knotwork.domain.models import Hit
from knotwork.domain.temporal import to_text
from knotwork.errors import KnotworkError
from knotwork.integrations._tools import FORGET, RECALL, REMEMBER, MemoryTools
from knotwork.service import Knotwork


def document(hit: Hit) -> Document:
    """A search hit as a LangChain ``Document``."""
    m = hit.memory
    return Document(
        page_content=m.content,
        id=m.id,
        metadata={
            "id": m.id, "score": hit.score, "workspace": m.workspace, "agent_id": m.agent_id, "category": m.category,
            "tags": dict(m.tags), "thread": m.thread, "created_at": to_text(m.created_at),
            "updated_at": to_text(m.updated_at), "valid_at": to_text(m.valid_at),
            "invalid_at": to_text(m.invalid_at) if m.invalid_at else None,
        },
    )


class KnotworkRetriever(BaseRetriever):
    """The ``k`` memories that best answer a query, from knotwork's hybrid search (BM25 and vectors).

    ``workspace`` W reads W and the global scope (None: the global scope alone; ``"*"``: every workspace);
    ``agent_id`` the partition (None: the shared one); ``tags`` keeps memories with all of those tags;
    ``search_kwargs`` passes anything else :meth:`knotwork.Knotwork.search` takes (``category``, ``thread``, …).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    mem: Knotwork
    workspace: str | None = None
    k: int = 4
    agent_id: str | None = None
    tags: dict[str, Any] | None = None
    search_kwargs: dict[str, Any] = Field(default_factory=dict)

    def _search(self, query: str, k: int | None = None) -> list[Document]:
        hits = self.mem.search(query, workspace=self.workspace, limit=self.k if k is None else k, agent_id=self.agent_id,
                               tags=self.tags, **self.search_kwargs)
        return [document(h) for h in hits]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        """``k``: this call's number of documents (``retriever.invoke(query, k=3)``), instead of the retriever's."""
        return self._search(query, k)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        return await asyncio.to_thread(self._search, query, k)  # knotwork's calls block: off the event loop


class _Remember(BaseModel):
    content: str = Field(description="What to remember, in one or two plain sentences.")
    tags: dict[str, str] | None = Field(default=None, description="Optional labels, key -> value.")
    category: str | None = Field(default=None, description="Optional kind: decision, preference, fact, …")


class _Recall(BaseModel):
    query: str = Field(description="The question or topic to look up.")
    limit: int | None = Field(default=None, description="How many memories at most (default 5).")


class _Forget(BaseModel):
    id: str = Field(description="The memory's id, full or short, as remember or recall gave it.")


def _guarded(call: Callable[..., str]) -> Callable[..., str]:
    def run(**kwargs: Any) -> str:
        try:
            return call(**kwargs)
        except KnotworkError as exc:
            raise ToolException(str(exc)) from exc

    return run


def memory_tools(
    mem: Knotwork, *, workspace: str | None = None, agent_id: str | None = None, limit: int = 5
) -> list[StructuredTool]:
    """``remember_memory``, ``recall_memory`` and ``forget_memory`` as LangChain tools over ``mem``, in one
    workspace and partition (bind them to a chat model, or hand them to an agent)."""
    tools = MemoryTools(mem, workspace=workspace, agent_id=agent_id, limit=limit)
    out = []
    for name, call, schema, text in (
        ("remember_memory", tools.remember, _Remember, REMEMBER),
        ("recall_memory", tools.recall, _Recall, RECALL),
        ("forget_memory", tools.forget, _Forget, FORGET),
    ):
        run = _guarded(call)

        async def arun(_run: Callable[..., str] = run, **kwargs: Any) -> str:
            return await asyncio.to_thread(lambda: _run(**kwargs))

        out.append(StructuredTool.from_function(func=run, coroutine=arun, name=name, description=text, args_schema=schema,
                                                handle_tool_error=True))
    return out
