"""knotwork where agents already live: adapters to the memory interfaces of agent frameworks.

One module per framework, each importing its framework itself, so that ``import knotwork`` never needs one:

- :mod:`knotwork.integrations.langgraph`: ``KnotworkStore``, a LangGraph ``BaseStore`` (``knotwork[langgraph]``);
- :mod:`knotwork.integrations.langchain`: ``KnotworkRetriever`` and the memory tools (``knotwork[langchain]``);
- :mod:`knotwork.integrations.openai_agents`: ``KnotworkSession`` and ``memory_tools`` for the OpenAI Agents SDK
  (``knotwork[agents]``);
- :mod:`knotwork.integrations.pydantic_ai`: ``memory_toolset``, the memory tools as a Pydantic AI ``FunctionToolset``
  (``knotwork[pydantic-ai]``).

Every adapter is a thin layer over the :class:`knotwork.Knotwork` facade: what it writes are ordinary memories
(listed by the CLI and the web UI, searchable, exported), and what it refuses is refused by knotwork's own checks,
with knotwork's message, before anything is written. docs/integrations.md says what maps to what.
"""

from __future__ import annotations
