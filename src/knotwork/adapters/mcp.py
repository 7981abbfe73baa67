"""The MCP server: each tool is a thin adapter over one service method.

Tools answer through one ``Responder`` (``knotwork.render``): compact text by
default, JSON with ``format="json"``. A ``KnotworkError`` becomes a tool error
whose text is the error's message; for a write it reads
``✗ Delete failed: <message>``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError

from knotwork.adapters import mcp_knowledge, mcp_stdio
from knotwork.errors import KnotworkError, quote
from knotwork.limits import ERRORS_SHOWN, QUOTE_CHARS, URI_CHARS

MESSAGE_CHARS = 4 * QUOTE_CHARS
from knotwork.render import render
from knotwork.render.respond import Responder
from knotwork.service import Knotwork
from knotwork.service_api import ServiceApi
from knotwork.views import access, elsewhere

# The catalog is in the agent's context on every turn: each description says only what the name and
# type do not (bench/tokens.py counts it; the targets are in bench/RESULTS.md).
Format = Literal["compact", "json"]
Workspace = str | None  # omitted: the server's default workspace
MemoryId = Annotated[str, Field(description="memory id or 8+ char prefix/suffix")]
Partition = Annotated[str | None, Field(description="omit: shared pool; a partition name; * all")]
Tags = dict[str, Any] | None  # {key: value}; values text or numbers (domain.rules.tags checks them)
LinkType = Literal[
    "relates_to", "parent_of", "child_of", "references", "supersedes", "implements", "example_of", "contradicts", "fixes"
]
StrList = list[str] | None
When = Annotated[str | None, Field(description="ISO-8601")]
RelationDetail = Literal["none", "minimal", "standard", "full"]  # relations shown per hit

# The everyday tools: what `knotwork mcp --tools core` and `serve --tools core` expose.
CORE_TOOLS = frozenset(
    {"add_memory", "search_memory", "get_memory", "update_memory", "delete_memory", "list_memories", "ambient_recall"}
)
TOOLSETS = ("all", "core")
# What a tool's signature cannot say in its schema: update_memory needs a field to change besides its id.
SCHEMA_RULES: dict[str, dict[str, Any]] = {"update_memory": {"minProperties": 2}}
# Tools that write: a failure reads "✗ Delete failed: <reason>".
WRITE_OPERATIONS = {"add_memory": "add", "update_memory": "update", "delete_memory": "delete",
                    "link_memories": "link", "unlink_memories": "unlink", "merge_memories": "merge"}

INSTRUCTIONS = (
    "knotwork is long-term memory. Search it before answering questions about past work, decisions or "
    "preferences; store durable facts, decisions and lessons with add_memory. Tools answer in compact text "
    "unless format is json."
)

# Hints left unset take the spec's defaults (read_only false, destructive true, idempotent false,
# open_world true): the catalog is in the agent's context on every turn, so it says only what tells a
# client which calls are safe. The other hints apply only to tools that write (the spec), and
# open_world, true or false, changes no call.
READ = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(destructive_hint=False)
DESTROY = ToolAnnotations(idempotent_hint=True)


def _errors_as_tool_errors(fn: Callable[..., str], respond: Responder) -> Callable[..., str]:
    operation = WRITE_OPERATIONS.get(fn.__name__)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except KnotworkError as exc:
            raise ToolError(respond.failure(operation, exc) if operation else str(exc)) from None

    return wrapper


def strict_arguments(tool: Tool) -> Tool:
    """``tool`` with an argument model that refuses unknown arguments and loose types.

    The SDK builds each tool's argument model from its signature with pydantic's defaults: an unknown
    argument is dropped (``delete_memory`` with a misspelled extra argument still deletes) and ``true``
    passes as the number 1. Its ``FuncMetadata`` reads ``arg_model`` at each call, so a subclass with
    ``extra="forbid", strict=True`` takes its place, and the published schema says
    ``additionalProperties: false``. (Strict still takes a whole number where a float is asked for, and
    the SDK still unpacks an object or list sent as a JSON string, as some clients do.)
    """
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(**{**loose.model_config, "extra": "forbid", "strict": True})
    tool.fn_metadata.arg_model = type(loose.__name__, (loose,), {"model_config": config, "__module__": __name__})
    tool.parameters = tool.fn_metadata.arg_model.model_json_schema(by_alias=True)
    return tool


def argument_errors(tool: str, exc: ValidationError, known: list[str]) -> str:
    """A tool's rejected arguments in one line, each named: the first few problems and a count of the rest."""
    problems = []
    for e in exc.errors()[:ERRORS_SHOWN]:
        name = ".".join(str(p) for p in e.get("loc", ())) or "arguments"
        name = name if len(name) <= 64 else quote(name, 64)
        if e["type"] == "extra_forbidden":
            problems.append(f"{name}: unknown argument (known: {', '.join(known)})")
        elif e["type"] == "missing":
            problems.append(f"{name}: is required")
        else:
            given = e.get("input")
            shown = json.dumps(given) if given is None or isinstance(given, bool) else quote(given, 40)
            problems.append(f"{name}: {e['msg'][0].lower()}{e['msg'][1:]}, got {shown}")
    more = f"; and {exc.error_count() - ERRORS_SHOWN:,} more" if exc.error_count() > ERRORS_SHOWN else ""
    return f"Invalid arguments to {tool}: " + "; ".join(problems) + more


class KnotworkServer(MCPServer):
    """The SDK's server, with strict tool arguments, one-line argument errors, and a tool catalog trimmed
    of what costs tokens and tells a model nothing."""

    #: Set when the server answers over HTTP (``create_app``): each message must then carry the scope the
    #: ``Access`` middleware found for its request; one without it is refused, never answered as the owner's.
    callers_required = False

    def _scope_of(self, context: Any) -> access.Scope | None:
        found = _caller(context)
        if found is None and self.callers_required:
            raise ToolError("token: this message came without the caller its HTTP request was checked for; refused")
        return found

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        caller = access.CALLER.set(self._scope_of(context))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # The SDK's message for rejected arguments is pydantic's multi-line report; say it in one line.
            if type(exc) is not ToolError or not isinstance(exc.__cause__, ValidationError):
                if len(str(exc)) > MESSAGE_CHARS:  # "Unknown tool: <name>" echoes a name of any length
                    raise type(exc)(f"{str(exc)[:MESSAGE_CHARS]}… ({len(str(exc)):,} characters)") from exc.__cause__
                raise
            known = [list(t.input_schema.get("properties", {})) for t in await self.list_tools() if t.name == name]
            raise ToolError(argument_errors(name, exc.__cause__, known[0] if known else [])) from exc.__cause__
        finally:
            access.CALLER.reset(caller)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        # The SDK answers a failed read with the URI quoted whole in the error's data; a long one is refused
        # here instead, as a protocol error the SDK passes on as it is.
        if len(str(uri)) > URI_CHARS:
            raise MCPError(INVALID_PARAMS, f"uri: is {len(str(uri)):,} characters; the limit is {URI_CHARS:,} characters")
        try:
            found = self._scope_of(context)
        except ToolError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        caller = access.CALLER.set(found)
        try:
            return await super().read_resource(uri, context)
        finally:
            access.CALLER.reset(caller)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio serving, with every malformed message answered (:mod:`.mcp_stdio`); the low-level
        server is the SDK's own, which its ``run_stdio_async`` runs the same way."""
        await mcp_stdio.serve(self._lowlevel_server)

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        for t in tools:
            t.input_schema = {**slim_schema(t.input_schema), **SCHEMA_RULES.get(t.name, {})}
            t.description = " ".join((t.description or "").split())  # a docstring's line breaks and indentation
        return tools


def _caller(context: Any) -> access.Scope | None:
    """The scope of the HTTP request a message came in (``Access`` put it there); None over stdio (the owner)."""
    request = getattr(getattr(context, "_request_context", None), "request", None)
    state = getattr(request, "state", None)
    return getattr(state, "knotwork_caller", None) if state is not None else None


def slim_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema without pydantic's generated titles, optional fields written as their plain type.

    ``{"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Workspace"}``
    becomes ``{"type": "string"}``: a field not in ``required`` is already optional. Arguments are
    still validated against the full model, so an explicit null stays accepted. What JSON Schema
    implies anyway goes too: ``additionalProperties: true`` (the default) and the ``type`` of a
    string ``enum`` (its values say it); and ``format``'s default, compact (every tool's answer
    unless json is asked for, as the server instructions say). The top level's ``additionalProperties:
    false`` (:func:`strict_arguments`) goes as well: the server refuses an unknown argument whatever the
    schema says, and on 22 tools the keyword cost 110 tokens of every turn's context (bench/tokens.py),
    to tell a model what it does anyway, send only the listed arguments.
    """
    out = {k: v for k, v in schema.items() if k not in ("title", "additionalProperties")}
    props = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k != "title"}
        options = prop.get("anyOf")
        if options and len(options) == 2 and {"type": "null"} in options and prop.get("default", 0) is None:
            (kept,) = [o for o in options if o != {"type": "null"}]
            prop = {**{k: v for k, v in prop.items() if k not in ("anyOf", "default")}, **kept}
        props[name] = _implied_dropped({k: v for k, v in prop.items() if not (name == "format" and k == "default")})
    if props:
        out["properties"] = props
    return out


def _implied_dropped(prop: dict[str, Any]) -> dict[str, Any]:
    prop = {k: v for k, v in prop.items() if not (k == "additionalProperties" and v is True)}
    if "enum" in prop and prop.get("type") == "string":
        prop.pop("type")
    items = prop.get("items")
    if isinstance(items, dict):
        prop["items"] = _implied_dropped(items)
    return prop


def build_server(
    mem: Knotwork, *, default_workspace: str | None = None, tools: str = "all", scope: access.Scope | None = None
) -> MCPServer:
    """An MCP server exposing ``mem``; ``default_workspace`` applies when a call names none.

    ``tools="core"`` exposes only the everyday tools (:data:`CORE_TOOLS`): a
    smaller catalog costs the agent fewer tokens on every turn. Each call runs
    in its caller's scope (over HTTP, the request's token's); ``scope`` is that
    of a call that names none (over stdio: ``knotwork mcp -w``), None the owner's.
    """
    if tools not in TOOLSETS:
        raise ValueError(f"tools must be one of {', '.join(TOOLSETS)}, got {tools!r}")
    mem.start_enrichment_worker(server=True)  # the store's one worker process reads queued memories in (idempotent)
    service: ServiceApi = access.PerCall(mem, scope)  # each call: the service as its caller may use it
    respond = Responder(service)  # short ids and relations are looked up in the caller's scope too
    registered: list[Tool] = []

    def ws(value: str | None) -> str | None:
        return value if value is not None else default_workspace

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., str]], Callable[..., str]]:
        def register(fn: Callable[..., str]) -> Callable[..., str]:
            if tools == "all" or fn.__name__ in CORE_TOOLS:
                wrapped = _errors_as_tool_errors(fn, respond)
                registered.append(strict_arguments(Tool.from_function(wrapped, annotations=annotations, structured_output=False)))
            return fn

        return register

    @tool(WRITE)
    def add_memory(
        content: str,
        workspace: Workspace = None,
        agent_id: Annotated[str | None, Field(description="partition for operational data")] = None,
        category: Annotated[str | None, Field(description="e.g. decision, preference, lesson, snapshot (tag key; one a day)")] = None,
        tags: Tags = None,
        artifacts: Annotated[list[str] | None, Field(description="file paths, URLs")] = None,
        evidence: Annotated[list[str] | None, Field(description="e.g. PR-123")] = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        metadata: dict[str, Any] | None = None,
        valid_at: Annotated[str | None, Field(description="ISO-8601 time it became true")] = None,
        thread: Annotated[str | None, Field(description="conversation/session id: its memories are searched together")] = None,
        expires_at: When = None,
        ttl: Annotated[str | None, Field(description="e.g. 3600, 12h, 7d")] = None,
        entities: Annotated[list[dict[str, Any]] | None, Field(description=mcp_knowledge.ENTITIES_DESCRIPTION)] = None,
        facts: Annotated[list[dict[str, Any]] | None, Field(description=mcp_knowledge.FACTS_DESCRIPTION)] = None,
        consolidate: bool = True,
        force: Annotated[bool, Field(description="store even if IGNOREd")] = False,
        format: Format = "compact",
    ) -> str:
        """Store a memory. Answers ADD, UPDATE (extends one stored), SUPERSEDE (changes its value), NOOP (known)
        or IGNORE (speculation, chatter, queries)."""
        m = service.add(
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
            thread=thread,
            entities=entities,
            facts=facts,
            expires_at=expires_at,
            ttl=int(ttl) if ttl and ttl.isdigit() else ttl,
            consolidate=consolidate,
            force=force,
        )
        return respond("add", m, format)

    @tool(READ)
    def search_memory(
        query: str,
        workspace: Workspace = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        agent_id: Partition = None,
        category: str | None = None,
        tags: Tags = None,
        thread: Annotated[str | None, Field(description="only this conversation")] = None,
        relation_detail: RelationDetail = "standard",
        format: Format = "compact",
    ) -> str:
        """Find memories relevant to a query (this workspace and global)."""
        hits = elsewhere.search(
            service, query, workspace=ws(workspace), limit=limit, agent_id=agent_id, category=category, tags=tags, thread=thread
        )
        return respond("search", hits, format, relation_detail=relation_detail)

    @tool(READ)
    def get_memory(id: MemoryId, format: Format = "compact") -> str:
        """Read one memory in full."""
        return respond("get", service.get(id), format)

    @tool(WRITE)
    def update_memory(
        id: MemoryId,
        content: str | None = None,
        category: str | None = None,
        tags: Annotated[dict[str, Any] | None, Field(description="replaces all")] = None,
        artifacts: StrList = None,
        evidence: StrList = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="replaces all")] = None,
        valid_at: When = None,
        invalid_at: Annotated[str | None, Field(description="ISO-8601; retires it")] = None,
        thread: Annotated[str | None, Field(description="moves it to this conversation")] = None,
        format: Format = "compact",
    ) -> str:
        """Change the given fields of a memory; earlier versions are kept."""
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
            "thread": thread,
        }
        changes = {k: v for k, v in given.items() if v is not None}
        return respond("update", service.update(id, **changes), format)

    @tool(DESTROY)
    def delete_memory(id: MemoryId, format: Format = "compact") -> str:
        """Forget a memory and its history."""
        return respond("delete", service.delete(id), format)

    @tool(READ)
    def list_memories(
        workspace: Workspace = None,
        agent_id: Partition = None,
        category: str | None = None,
        tags: Tags = None,
        since: Annotated[str | None, Field(description="created from, ISO-8601")] = None,
        until: Annotated[str | None, Field(description="created before")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        cursor: Annotated[str | None, Field(description="from the previous page")] = None,
        thread: Annotated[str | None, Field(description="only this conversation")] = None,
        format: Format = "compact",
    ) -> str:
        """List memories, newest first."""
        page = elsewhere.listed(
            service,
            workspace=ws(workspace),
            agent_id=agent_id,
            category=category,
            tags=tags,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
            thread=thread,
        )
        return respond("list", page, format)

    @tool(WRITE)
    def link_memories(
        from_id: MemoryId,
        to_id: MemoryId,
        type: Annotated[LinkType, Field(description="from --type--> to; supersedes retires to")],
        metadata: dict[str, Any] | None = None,
        format: Format = "compact",
    ) -> str:
        """Link two memories with a typed, directed relationship (idempotent)."""
        return respond("link", service.link(from_id, to_id, type, metadata), format)

    @tool(DESTROY)
    def unlink_memories(
        relationship_id: Annotated[str, Field(description="relationship id or 8+ char prefix/suffix")],
        format: Format = "compact",
    ) -> str:
        """Remove a relationship."""
        return respond("unlink", service.unlink(relationship_id), format)

    @tool(READ)
    def get_related_memories(
        id: MemoryId,
        types: list[LinkType] | None = None,
        depth: Annotated[int, Field(ge=1, le=5)] = 1,
        direction: Literal["outgoing", "incoming", "both"] = "both",
        format: Format = "compact",
    ) -> str:
        """Memories linked to one memory, up to depth hops, nearest first."""
        return respond("related", service.related(id, types=types, depth=depth, direction=direction), format)

    @tool(READ)
    def get_memory_graph(
        id: MemoryId,
        max_depth: Annotated[int, Field(ge=1, le=3)] = 2,
        max_nodes: Annotated[int, Field(ge=1, le=100)] = 50,
        format: Literal["compact", "json", "dot", "mermaid"] = "compact",
    ) -> str:
        """Nodes and edges around a memory, ready to draw."""
        return respond("graph", service.graph(id, max_depth=max_depth, max_nodes=max_nodes), format)

    mcp_knowledge.register(service, ws, tool, respond, READ, DESTROY)

    # -- ambient recall and status ---------------------------------------------
    @tool(READ)
    def ambient_recall(
        context: Annotated[str, Field(description="startup, prompt or resume")] = "startup",
        workspace: Workspace = None,
        query: Annotated[str | None, Field(description="the turn's topic")] = None,
        budget_tokens: Annotated[int, Field(ge=1, le=32000)] = 1500,
        sections: Annotated[
            list[Literal["clock", "directives", "facts", "graph", "episodes", "entities", "health"]] | None,
            Field(description="default: all but entities"),
        ] = None,
        format: Format = "compact",
    ) -> str:
        """Context to start from: directives, what is relevant now, recent episodes, within a token budget."""
        return respond(
            "recall",
            service.recall(context, workspace=ws(workspace), query=query, budget_tokens=budget_tokens, sections=sections),
            format,
        )

    @tool(READ)
    def get_status(format: Format = "compact") -> str:
        """Version, store, schema version, counts, embedder and recall latency (p50/p95)."""
        return respond("status", service.status(), format)

    @tool(READ)
    def get_memory_stats(format: Format = "compact") -> str:
        """Counts by workspace, partition, tag, category; health: duplicates, superseded, expired, snapshots, orphans."""
        return respond("stats", service.stats(), format)

    @tool(READ)
    def find_duplicates(
        threshold: Annotated[float, Field(ge=0.5, le=1, description="least cosine")] = 0.95,
        workspace: Annotated[str | None, Field(description="omit: all")] = None,
        agent_id: Annotated[str, Field(description="partition; * all")] = "*",
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        format: Format = "compact",
    ) -> str:
        """Groups of near-duplicate memories, for merge_memories."""
        every = access.every_workspace(service)  # "*" for the owner, the caller's workspaces for a scoped one
        groups = service.find_duplicates(threshold, workspace=workspace or default_workspace or every, agent_id=agent_id, limit=limit)
        return respond("duplicates", groups, format)

    @tool(WRITE)
    def merge_memories(ids: Annotated[list[MemoryId], Field(min_length=2, description="the first is kept")], format: Format = "compact") -> str:
        """Merge duplicates: the others are retired (history and links kept)."""
        return respond("merge", service.merge(ids), format)

    server = KnotworkServer(
        name="knotwork", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING", tools=registered
    )

    @server.resource("memory://relationships", mime_type="application/json", description="All relationships in scope")
    def all_relationships() -> str:
        return render("relationships", service.list_links(default_workspace), "json")

    @server.resource("memory://memory/{id}/related", mime_type="application/json", description="Memories linked to one")
    def related_resource(id: str) -> str:
        return _resource(lambda: render("related", service.related(id), "json"))

    @server.resource("memory://graph/{id}", mime_type="application/json", description="Graph around a memory")
    def graph_resource(id: str) -> str:
        return _resource(lambda: render("graph", service.graph(id), "json"))

    return server


def _resource(read: Callable[[], str]) -> str:
    try:
        return read()
    except KnotworkError as exc:
        raise ResourceError(str(exc)) from None


def _version() -> str:
    from knotwork.version import __version__

    return __version__
