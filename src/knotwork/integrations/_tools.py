"""The memory tools every framework adapter offers an agent (remember, recall, forget), written once.

Each adapter wraps these three calls in its framework's tool type; they answer in knotwork's compact text
(:mod:`knotwork.render.compact`, the same lines the MCP tools answer with) and raise knotwork's errors, which
the adapter turns into its framework's tool error with knotwork's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from knotwork.domain import rules
from knotwork.errors import NotFound
from knotwork.render import compact
from knotwork.render.core import View
from knotwork.service import Knotwork

REMEMBER = ("Store a memory that should outlast this conversation: a decision, a preference, a fact about the user "
            "or the project, in one or two plain sentences. Optional tags (key -> value) and a category.")
RECALL = "Search long-term memory for what answers a question; returns the best memories, one per line, with ids."
FORGET = "Forget (delete) a memory by the id that remember or recall gave."


class MemoryTools:
    """The three calls over one store, in one workspace and partition (``agent_id``)."""

    def __init__(self, mem: Knotwork, *, workspace: str | None = None, agent_id: str | None = None, limit: int = 5) -> None:
        self.mem = mem
        self.workspace = rules.workspace(workspace)
        self.agent_id = rules.agent_id(agent_id)
        self.limit = rules.limit(limit)

    def remember(self, content: str, tags: Mapping[str, Any] | None = None, category: str | None = None) -> str:
        m = self.mem.add(content, workspace=self.workspace, agent_id=self.agent_id, tags=tags, category=category)
        return compact.added(m, View())

    def recall(self, query: str, limit: int | None = None) -> str:
        hits = self.mem.search(query, workspace=self.workspace, agent_id=self.agent_id,
                               limit=self.limit if limit is None else limit)
        return compact.hits(hits, View(short=self.mem.short_ids([h.memory.id for h in hits])))

    def forget(self, id: str) -> str:
        # The tools act in the scope recall reads (the workspace and the global scope, the partition): a memory
        # outside it does not exist for them, by full or short id.
        memory = self.mem.get(self.mem.resolve(id, [self.workspace, ""] if self.workspace else [""]))
        if memory.agent_id != self.agent_id:
            raise NotFound("memory", id)
        return compact.deleted(self.mem.delete(memory.id), View())
