"""The MCP server: each tool is a thin adapter over one service method.

Tools answer in compact text by default and in JSON with ``format="json"``.
A ``KnotworkError`` becomes a tool error whose text is the error's message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from knotwork.errors import KnotworkError
from knotwork.render import render
from knotwork.service import Knotwork

Format = Annotated[Literal["compact", "json"], Field(description="compact text (default) or json")]
Workspace = Annotated[str | None, Field(description="workspace name; omit for the server default (global if none)")]
MemoryId = Annotated[str, Field(description="memory id (full, or a unique 8+ char prefix/suffix)")]
Tags = Annotated[dict[str, str] | None, Field(description="tags as {key: value}")]
LinkType = Literal[
    "relates_to", "parent_of", "child_of", "references", "supersedes", "implements", "example_of", "contradicts", "fixes"
]
StrList = Annotated[list[str] | None, Field(description="list of strings")]

INSTRUCTIONS = (
    "knotwork is long-term memory. Search it before answering questions about past work, decisions or "
    "preferences; store durable facts, decisions and lessons with add_memory."
)

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


def _errors_as_tool_errors(fn: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except KnotworkError as exc:
            raise ToolError(str(exc)) from None

    return wrapper


def build_server(mem: Knotwork, *, default_workspace: str | None = None) -> MCPServer:
    """An MCP server exposing ``mem``; ``default_workspace`` applies when a call names none."""
    server = MCPServer(name="knotwork", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def ws(value: str | None) -> str | None:
        return value if value is not None else default_workspace

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., str]], Callable[..., str]]:
        def register(fn: Callable[..., str]) -> Callable[..., str]:
            server.add_tool(_errors_as_tool_errors(fn), annotations=annotations, structured_output=False)
            return fn

        return register

    @tool(WRITE)
    def add_memory(
        content: Annotated[str, Field(description="the text to remember")],
        workspace: Workspace = None,
        agent_id: Annotated[str | None, Field(description="partition, e.g. your agent name")] = None,
        category: Annotated[str | None, Field(description="e.g. decision, preference, fact, lesson")] = None,
        tags: Tags = None,
        artifacts: Annotated[list[str] | None, Field(description="related file paths or URLs")] = None,
        evidence: Annotated[list[str] | None, Field(description="references such as ADR-014, PR-123")] = None,
        importance: Annotated[float | None, Field(ge=0, le=1, description="0-1, default 0.5")] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="any JSON object")] = None,
        valid_at: Annotated[str | None, Field(description="ISO-8601 time the content became true")] = None,
        format: Format = "compact",
    ) -> str:
        """Store a memory. Identical content in the same workspace is kept once."""
        m = mem.add(
            content,
            workspace=ws(workspace),
            agent_id=agent_id,
            category=category,
            tags=tags,
            artifacts=artifacts,
            evidence=evidence,
            importance=importance,
            metadata=metadata,
            valid_at=valid_at,
        )
        return render("add", m, format)

    @tool(READ)
    def search_memory(
        query: Annotated[str, Field(description="what to look for, in plain words")],
        workspace: Workspace = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        agent_id: Annotated[str | None, Field(description="only this partition")] = None,
        category: Annotated[str | None, Field(description="only this category")] = None,
        tags: Tags = None,
        format: Format = "compact",
    ) -> str:
        """Find memories relevant to a query (this workspace and global)."""
        hits = mem.search(query, workspace=ws(workspace), limit=limit, agent_id=agent_id, category=category, tags=tags)
        return render("search", hits, format)

    @tool(READ)
    def get_memory(id: MemoryId, format: Format = "compact") -> str:
        """Read one memory in full."""
        return render("get", mem.get(id), format)

    @tool(WRITE)
    def update_memory(
        id: MemoryId,
        content: Annotated[str | None, Field(description="new text")] = None,
        category: Annotated[str | None, Field(description="new category")] = None,
        tags: Annotated[dict[str, str] | None, Field(description="replaces all tags")] = None,
        artifacts: StrList = None,
        evidence: StrList = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="replaces metadata")] = None,
        valid_at: Annotated[str | None, Field(description="ISO-8601")] = None,
        invalid_at: Annotated[str | None, Field(description="ISO-8601 time it stopped being true")] = None,
        format: Format = "compact",
    ) -> str:
        """Change a memory; only the fields given change. Earlier versions are kept."""
        given = {
            "content": content,
            "category": category,
            "tags": tags,
            "artifacts": artifacts,
            "evidence": evidence,
            "importance": importance,
            "metadata": metadata,
            "valid_at": valid_at,
            "invalid_at": invalid_at,
        }
        changes = {k: v for k, v in given.items() if v is not None}
        return render("update", mem.update(id, **changes), format)

    @tool(DESTROY)
    def delete_memory(id: MemoryId, format: Format = "compact") -> str:
        """Forget a memory and its history."""
        return render("delete", mem.delete(id), format)

    @tool(READ)
    def list_memories(
        workspace: Workspace = None,
        agent_id: Annotated[str | None, Field(description="only this partition")] = None,
        category: Annotated[str | None, Field(description="only this category")] = None,
        tags: Tags = None,
        since: Annotated[str | None, Field(description="created at or after (ISO-8601)")] = None,
        until: Annotated[str | None, Field(description="created before (ISO-8601)")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        cursor: Annotated[str | None, Field(description="next cursor from the previous page")] = None,
        format: Format = "compact",
    ) -> str:
        """List memories, newest first."""
        page = mem.list(
            workspace=ws(workspace),
            agent_id=agent_id,
            category=category,
            tags=tags,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        return render("list", page, format)

    @tool(WRITE)
    def link_memories(
        from_id: MemoryId,
        to_id: MemoryId,
        type: Annotated[LinkType, Field(description="from --type--> to; supersedes retires the target")],
        metadata: Annotated[dict[str, Any] | None, Field(description="any JSON object")] = None,
        format: Format = "compact",
    ) -> str:
        """Link two memories with a typed, directed relationship (idempotent)."""
        return render("link", mem.link(from_id, to_id, type, metadata), format)

    @tool(DESTROY)
    def unlink_memories(
        relationship_id: Annotated[str, Field(description="relationship id (full or unique 8+ char prefix/suffix)")],
        format: Format = "compact",
    ) -> str:
        """Remove a relationship."""
        return render("unlink", mem.unlink(relationship_id), format)

    @tool(READ)
    def get_related_memories(
        id: MemoryId,
        types: Annotated[list[LinkType] | None, Field(description="only these relationship types")] = None,
        depth: Annotated[int, Field(ge=1, le=5)] = 1,
        direction: Annotated[Literal["outgoing", "incoming", "both"], Field()] = "both",
        format: Format = "compact",
    ) -> str:
        """Memories linked to one memory, up to depth hops, nearest first."""
        return render("related", mem.related(id, types=types, depth=depth, direction=direction), format)

    @tool(READ)
    def get_memory_graph(
        id: MemoryId,
        max_depth: Annotated[int, Field(ge=1, le=3)] = 2,
        max_nodes: Annotated[int, Field(ge=1, le=100)] = 50,
        format: Annotated[Literal["compact", "json", "dot", "mermaid"], Field(description="compact, json, dot or mermaid")] = "compact",
    ) -> str:
        """Nodes and edges around a memory, ready to draw."""
        return render("graph", mem.graph(id, max_depth=max_depth, max_nodes=max_nodes), format)

    # -- ambient recall and status ---------------------------------------------
    @tool(READ)
    def ambient_recall(
        context: Annotated[str, Field(description="why you ask: startup (session start), prompt (a new turn), resume")] = "startup",
        workspace: Workspace = None,
        query: Annotated[str | None, Field(description="what the turn is about; omit to use the workspace's focus")] = None,
        budget_tokens: Annotated[int, Field(ge=1, le=32000, description="most o200k tokens to return")] = 1500,
        sections: Annotated[
            list[Literal["clock", "directives", "facts", "episodes", "entities", "health"]] | None,
            Field(description="sections to include; default all but entities"),
        ] = None,
        format: Format = "compact",
    ) -> str:
        """Context to start from: directives, what is relevant now, recent episodes, within a token budget."""
        return render(
            "recall",
            mem.recall(context, workspace=ws(workspace), query=query, budget_tokens=budget_tokens, sections=sections),
            format,
        )

    @tool(READ)
    def get_status(format: Format = "compact") -> str:
        """Version, store, schema version, counts, embedder and recall latency (p50/p95)."""
        return render("status", mem.status(), format)

    @tool(READ)
    def get_memory_stats(format: Format = "compact") -> str:
        """Memory counts by workspace, category and agent; links; vectors; database size."""
        return render("stats", mem.stats(), format)

    @server.resource("memory://relationships", mime_type="application/json", description="All relationships in scope")
    def all_relationships() -> str:
        return render("relationships", mem.store.list_links(default_workspace), "json")

    @server.resource("memory://memory/{id}/related", mime_type="application/json", description="Memories linked to one")
    def related_resource(id: str) -> str:
        return _resource(lambda: render("related", mem.related(id), "json"))

    @server.resource("memory://graph/{id}", mime_type="application/json", description="Graph around a memory")
    def graph_resource(id: str) -> str:
        return _resource(lambda: render("graph", mem.graph(id), "json"))

    return server


def _resource(read: Callable[[], str]) -> str:
    try:
        return read()
    except KnotworkError as exc:
        raise ResourceError(str(exc)) from None


def _version() -> str:
    from knotwork import __version__

    return __version__
