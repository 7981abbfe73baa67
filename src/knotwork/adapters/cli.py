"""The ``knotwork`` command: a thin adapter over the service.

Bad input exits with code 2 and one line on stderr (``error: ...``);
nothing is written when a command fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from knotwork.adapters import cli_hooks, cli_hygiene, cli_knowledge, cli_recall, newstore
from knotwork.adapters.cli_common import (
    _answer,
    _apply,
    _content,
    creates,
    filter_options,
    waits_for_graph,
    _json_option,
    _settings,
    _stdin_bytes,
    _text,
    through_server,
    tools_option,
    with_store,
    _workspace,
    workspace_option,
)
from knotwork.adapters.cli_help import SectionedGroup
from knotwork.app import open as open_store
from knotwork.config import Settings
from knotwork.domain import rules
from knotwork.domain.models import LINK_TYPES
from knotwork.graph.traverse import DIRECTIONS
from knotwork.errors import InvalidInput
from knotwork.limits import MAX_IMPORT_RECORDS
from knotwork import metrics as call_metrics
from knotwork.render import DETAILS
from knotwork.service import Knotwork
from knotwork.service_api import ServiceApi
from knotwork.views import elsewhere

if TYPE_CHECKING:
    from tqdm import tqdm

STDIO_CLOSE_WAIT = 1.0  # seconds `knotwork mcp` waits for the graph once its client has gone (see ``mcp``)


@click.group(cls=SectionedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="knotwork")
def cli() -> None:
    """knotwork: long-term memory for AI agents.

    Every command takes --help (knotwork add --help). `knotwork status` names the store in use
    (default $KNOTWORK_HOME/knotwork.db, or --db PATH); with `knotwork serve` running, the memory
    commands go through it.
    """


@cli.command()
@click.argument("content")
@workspace_option
@click.option("--agent", "agent_id", help="Agent partition.")
@click.option("-c", "--category", help="Category, e.g. decision, preference, fact.")
@click.option("--tag", "tags", multiple=True, metavar="KEY[=VALUE]", help="Tag (repeat).")
@click.option("--artifact", "artifacts", multiple=True, help="Related file path or URL (repeat).")
@click.option("--evidence", multiple=True, help="Reference such as ADR-014 (repeat).")
@click.option("--importance", type=float, help="0 to 1 (default 0.5).")
@click.option("--metadata", help="JSON object.")
@click.option("--valid-at", help="When it became true (ISO-8601).")
@click.option("--thread", help="The conversation, session or thread it belongs to: search scores a thread's memories together.")
@click.option("--entity", "entities", multiple=True, metavar="NAME[:TYPE]", help="An entity it is about (repeat).")
@click.option("--fact", "facts", multiple=True, metavar="S|P|O[|VALID_AT[|CONFIDENCE]]", help="A fact it states (repeat).")
@click.option("--expires-at", help="When it expires (ISO-8601): then it leaves every read.")
@click.option("--ttl", help="Time to live instead of --expires-at: seconds, or 30m, 12h, 7d, 2w.")
@click.option("--no-consolidate", is_flag=True, help="Store as given: no NOOP/UPDATE/SUPERSEDE decision.")
@click.option("--force", is_flag=True, help="Store even what the store/ignore instructions would ignore.")
@with_store
@through_server
@creates
def add(mem: ServiceApi, settings: Settings, fmt: str, content: str, workspace: str | None, **opts: Any) -> str:
    """Store a memory (CONTENT, or - to read it from stdin)."""
    m = mem.add(
        _content(content),
        workspace=_workspace(settings, workspace),
        agent_id=opts["agent_id"],
        category=opts["category"],
        tags=list(opts["tags"]),
        artifacts=list(opts["artifacts"]),
        evidence=list(opts["evidence"]),
        importance=opts["importance"],
        metadata=_json_option(opts["metadata"], "metadata"),
        valid_at=opts["valid_at"],
        thread=opts["thread"],
        entities=[cli_knowledge.parse_entity(e) for e in opts["entities"]] or None,
        facts=[cli_knowledge.parse_fact(f) for f in opts["facts"]] or None,
        expires_at=opts["expires_at"],
        ttl=int(opts["ttl"]) if opts["ttl"] and opts["ttl"].isdigit() else opts["ttl"],
        consolidate=not opts["no_consolidate"],
        force=opts["force"],
    )
    return _answer(mem, "add", m, fmt)


@cli.command()
@click.argument("id")
@with_store
@through_server
def get(mem: ServiceApi, settings: Settings, fmt: str, id: str) -> str:
    """Show one memory (full id or a unique 8+ character prefix/suffix)."""
    return _answer(mem, "get", mem.get(id), fmt)


@cli.command()
@click.argument("id")
@click.option("--content", help="New text (- reads stdin).")
@click.option("-c", "--category", help="New category ('' clears it).")
@click.option("--tag", "tags", multiple=True, metavar="KEY[=VALUE]", help="Replace the tags (repeat).")
@click.option("--clear-tags", is_flag=True, help="Remove every tag.")
@click.option("--artifact", "artifacts", multiple=True, help="Replace the artifacts (repeat).")
@click.option("--evidence", multiple=True, help="Replace the evidence (repeat).")
@click.option("--importance", type=float, help="0 to 1.")
@click.option("--metadata", help="Replace the metadata (JSON object).")
@click.option("--valid-at", help="ISO-8601.")
@click.option("--invalid-at", help="When it stopped being true (ISO-8601; '' clears it).")
@click.option("--thread", help="Move it to this thread ('' takes it out of its thread).")
@with_store
@through_server
def update(mem: ServiceApi, settings: Settings, fmt: str, id: str, **opts: Any) -> str:
    """Change a memory; earlier versions are kept."""
    changes: dict[str, Any] = {}
    if opts["content"] is not None:
        changes["content"] = _content(opts["content"])
    if opts["category"] is not None:
        changes["category"] = opts["category"]
    if opts["clear_tags"]:
        changes["tags"] = {}
    elif opts["tags"]:
        changes["tags"] = list(opts["tags"])
    for name in ("artifacts", "evidence"):
        if opts[name]:
            changes[name] = list(opts[name])
    if opts["importance"] is not None:
        changes["importance"] = opts["importance"]
    if opts["metadata"] is not None:
        changes["metadata"] = _json_option(opts["metadata"], "metadata")
    if opts["valid_at"] is not None:
        changes["valid_at"] = opts["valid_at"]
    if opts["invalid_at"] is not None:
        changes["invalid_at"] = opts["invalid_at"] or None
    if opts["thread"] is not None:
        changes["thread"] = opts["thread"] or None
    return _answer(mem, "update", mem.update(id, **changes), fmt)


@cli.command()
@click.argument("id")
@with_store
@through_server
def delete(mem: ServiceApi, settings: Settings, fmt: str, id: str) -> str:
    """Forget a memory and its history."""
    return _answer(mem, "delete", mem.delete(id), fmt)


@cli.command("list")
@workspace_option
@click.option("--all-workspaces", is_flag=True, help="List every workspace.")
@_apply(filter_options)
@click.option("--since", help="Created at or after (ISO-8601).")
@click.option("--until", help="Created before (ISO-8601).")
@click.option("-n", "--limit", type=int, default=50, show_default=True, help="Memories per page.")
@click.option("--cursor", help="next cursor printed by the previous page.")
@with_store
@through_server
def list_(mem: ServiceApi, settings: Settings, fmt: str, workspace: str | None, all_workspaces: bool, **opts: Any) -> str:
    """List memories, newest first."""
    page = elsewhere.listed(
        mem,
        workspace=_workspace(settings, workspace, all_workspaces),
        agent_id=opts["agent_id"],
        category=opts["category"],
        tags=list(opts["tags"]),
        since=opts["since"],
        until=opts["until"],
        limit=opts["limit"],
        cursor=opts["cursor"],
        thread=opts["thread"],
    )
    return _answer(mem, "list", page, fmt)


@cli.command()
@click.argument("query")
@workspace_option
@_apply(filter_options)
@click.option("-n", "--limit", type=int, default=10, show_default=True, help="Most hits to show.")
@click.option("--recipe", help="Search recipe (memory_hybrid, memory_bm25, memory_vector, memory_mmr, memory_threads, memory_chat_turns, memory_current, memory_node_distance, ambient).")
@click.option("--center", help="Memory id that graph-aware recipes measure distance from.")
@click.option("--explain", is_flag=True, help="Include every stage's score (JSON output).")
@click.option(
    "--relation-detail", type=click.Choice(DETAILS), default="standard", show_default=True,
    help="Relations per hit: none, minimal (artifacts, similar ids), standard, full (every meta-relation).",
)
@with_store
@through_server
def search(mem: ServiceApi, settings: Settings, fmt: str, query: str, workspace: str | None, **opts: Any) -> str:
    """Find memories relevant to QUERY (the workspace and global; - reads QUERY from stdin)."""
    hits = elsewhere.search(
        mem,
        _content(query),  # `-` reads stdin, as `add -` does: piped before, it searched for "-" itself
        workspace=_workspace(settings, workspace),
        limit=opts["limit"],
        agent_id=opts["agent_id"],
        category=opts["category"],
        tags=list(opts["tags"]),
        recipe=opts["recipe"],
        center=opts["center"],
        explain=opts["explain"],
        thread=opts["thread"],
    )
    return _answer(mem, "search", hits, fmt, relation_detail=opts["relation_detail"])


@cli.command()
@click.argument("id")
@with_store
@through_server
def history(mem: ServiceApi, settings: Settings, fmt: str, id: str) -> str:
    """Every version of a memory, oldest first."""
    return _answer(mem, "history", mem.history(id), fmt)


@cli.command()
@click.argument("from_id")
@click.argument("to_id")
@click.argument("type", type=click.Choice(LINK_TYPES), metavar="TYPE")
@click.option("--metadata", help="JSON object.")
@with_store
@through_server
def link(mem: ServiceApi, settings: Settings, fmt: str, from_id: str, to_id: str, type: str, metadata: str | None) -> str:
    """Link FROM_ID --TYPE--> TO_ID (idempotent; supersedes retires TO_ID)."""
    return _answer(mem, "link", mem.link(from_id, to_id, type, _json_option(metadata, "metadata")), fmt)


@cli.command()
@click.argument("relationship_id")
@with_store
@through_server
def unlink(mem: ServiceApi, settings: Settings, fmt: str, relationship_id: str) -> str:
    """Remove a relationship."""
    return _answer(mem, "unlink", mem.unlink(relationship_id), fmt)


@cli.command()
@click.argument("id")
@click.option("--type", "types", multiple=True, type=click.Choice(LINK_TYPES), help="Only this type (repeat).")
@click.option("--depth", type=int, default=1, show_default=True, help="Hops to follow (1-5).")
@click.option("--direction", type=click.Choice(DIRECTIONS), default="both", show_default=True, help="Link direction.")
@with_store
@through_server
def related(mem: ServiceApi, settings: Settings, fmt: str, id: str, types: tuple[str, ...], depth: int, direction: str) -> str:
    """Memories linked to ID, nearest first."""
    return _answer(mem, "related", mem.related(id, types=list(types) or None, depth=depth, direction=direction), fmt)


@cli.command()
@click.argument("id")
@click.option("--depth", type=int, default=2, show_default=True, help="Hops from ID (1-3).")
@click.option("--max-nodes", type=int, default=50, show_default=True, help="Most nodes to draw (1-100).")
@click.option("--format", "drawing", type=click.Choice(["compact", "dot", "mermaid"]), default="compact", show_default=True, help="Output shape.")
@with_store
@through_server
def graph(mem: ServiceApi, settings: Settings, fmt: str, id: str, depth: int, max_nodes: int, drawing: str) -> str:
    """The graph around ID, as text, DOT or Mermaid."""
    return _answer(mem, "graph", mem.graph(id, max_depth=depth, max_nodes=max_nodes), "json" if fmt == "json" else drawing)


def _progress(total: int | None, desc: str, show: bool | None) -> tqdm:
    from tqdm import tqdm

    # show=None: a bar only when stderr is a terminal, so pipes and logs stay clean.
    return tqdm(total=total, desc=desc, unit=" memories", file=sys.stderr, disable=None if show is None else not show)


progress_option = click.option(
    "--progress/--no-progress", default=None, help="Show a progress bar (default: when stderr is a terminal)."
)


def _read_jsonl(path: str) -> Iterator[tuple[int, str]]:
    stream = _stdin_bytes() if path == "-" else Path(path).open("rb")
    where = "stdin" if path == "-" else path
    offset = 0
    with stream:
        for number, raw in enumerate(stream, 1):
            line = _text(raw, f"{where} (line {number})", offset)
            offset += len(raw)
            if line.strip():
                yield number, line


@cli.command("import")
@click.argument("file", type=click.Path(allow_dash=True, dir_okay=False))
@progress_option
@with_store
@through_server
@creates
@waits_for_graph
def import_(mem: ServiceApi, settings: Settings, fmt: str, file: str, progress: bool | None) -> str:
    """Load memories from a JSONL export (FILE, or - for stdin). All or nothing."""
    from knotwork.adapters.cli_progress import Stages, interrupted

    if file != "-" and not Path(file).is_file():
        raise InvalidInput("file", f"{file} does not exist")
    records = []
    local = isinstance(mem, Knotwork)  # in this process: the facade itself, which reports its stages
    report = None
    left = 0  # memories still to be read into the graph once the import is stored
    with Stages(progress) as steps:
        try:
            steps.stage("read", None, counts=True)
            for number, line in _read_jsonl(file):
                records.append(rules.export_json(line, f"line {number}"))
                steps.update(1)
            if len(records) > MAX_IMPORT_RECORDS and not local:  # a server's (adapters/client.py)
                raise InvalidInput("file", f"{len(records):,} records; a server takes at most {MAX_IMPORT_RECORDS:,} in one "
                                           "import (all or nothing): pass --db PATH to import them all in this process")
            if isinstance(mem, Knotwork):
                report = mem.import_records(records, on_progress=steps.update, on_stage=steps.stage)
                if report.added:
                    left = mem.graph_backlog()
                    for left in _read_into_graph(mem, settings.enrich_close_wait, left, steps):
                        pass
            else:
                steps.stage("sent to the server", len(records))
                report = mem.import_records(records, on_progress=steps.update)
        except KeyboardInterrupt:
            steps.close()
            if GRAPH_STAGE in steps.names and report is not None:  # stored; the graph was being read in
                raise interrupted(f"the import is stored ({report.added:,} added); {left:,} memories wait to be read into "
                                  "the knowledge graph, and a worker process goes on with them (`knotwork status` shows "
                                  "how many are left)", kept=True) from None
            if "committed" in steps.names:  # all was written just before the signal
                raise interrupted("after the import was stored (all of it); `knotwork stats` shows it", kept=True) from None
            if local or "sent to the server" not in steps.names:  # one transaction: rolled back
                raise interrupted("nothing imported; the store is unchanged") from None
            raise interrupted("the server may still finish the import (all or nothing); `knotwork stats` shows "
                              "whether it did") from None
    if left:
        click.echo(f"knotwork: {left:,} memories still wait to be read into the knowledge graph; a worker process goes "
                   "on with them (`knotwork status` shows how many are left)", err=True)
    return _answer(mem, "import", report, fmt)


GRAPH_STAGE = "read into the graph"
GRAPH_SLICE_S = 0.5  # how long one wait for the graph runs before the count is read again


def _read_into_graph(mem: Knotwork, wait_s: float, left: int, steps: Any) -> Iterator[int]:
    """Wait ``wait_s`` seconds at most for the ``left`` memories queued to be read into the knowledge graph,
    helping the worker, with a progress step that counts them as they are read in; yields how many are left.

    Trigger: an import of 3,000 records (an export without a graph) sat silent for 20 s after ``stored: 100%``
    while closing the store waited for the graph, and Ctrl-C there said ``error: aborted`` of an import that
    was stored. Outcome: the wait is this step, drawn as it moves; the store is opened so that closing it
    waits no more (``waits_for_graph``), and Ctrl-C says the import is kept and what is still to be read in.
    """
    if not left or wait_s <= 0:
        yield left
        return
    steps.stage(GRAPH_STAGE, left)
    deadline = time.monotonic() + wait_s
    while left and (remaining := deadline - time.monotonic()) > 0:
        mem.wait_for_extraction(min(GRAPH_SLICE_S, remaining))
        now = mem.graph_backlog()
        if now < left:
            steps.update(left - now)
        left = now
        yield left
    steps.close()


@cli.command()
@click.argument("file", type=click.Path(allow_dash=True, dir_okay=False), default="-")
@progress_option
@with_store
@through_server
def export(mem: ServiceApi, settings: Settings, fmt: str, file: str, progress: bool | None) -> None:
    """Write every memory, with its history, then the knowledge graph, as JSONL (to FILE or stdout)."""
    out = sys.stdout if file == "-" else Path(file).open("w", encoding="utf-8")
    try:
        total = mem.store.count_memories() if isinstance(mem, Knotwork) else None  # through a server: unknown
        with _progress(total, "export", progress) as bar:
            for record in mem.export():
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
                if "record" not in record:  # a memory (the graph's records follow them)
                    bar.update(1)
    finally:
        if out is not sys.stdout:
            out.close()


@cli.command()
@click.option("--db", "db", metavar="PATH", help="Database file (default $KNOTWORK_HOME/knotwork.db).")
@progress_option
@click.pass_context
def reembed(ctx: click.Context, db: str | None, progress: bool | None) -> None:
    """Rebuild every vector with the configured embedder (KNOTWORK_EMBEDDER)."""
    settings = _settings(ctx)
    fresh = newstore.missing(db, settings)
    if fresh is not None:
        raise newstore.refuse(fresh)
    from knotwork.adapters.cli_progress import Stages, interrupted

    with open_store(db, settings=settings, reembed=True) as mem:
        total = mem.store.count_memories()
        with Stages(progress, unit=" memories") as steps:
            steps.stage("re-embedded", total)
            try:
                done = mem.reembed(on_progress=steps.update)
            except KeyboardInterrupt:
                steps.close()
                kept = mem.store.count_vectors()[0]  # from the store: a batch is committed before it is counted
                raise interrupted(kept=True, what=f"{kept} of {total} memories re-embedded (each batch is kept as it is written); "
                                  "the rest are found by their words only until `knotwork reembed` runs again") from None
    click.echo(f"✓ Re-embedded {done} memories with {settings.embedder}")


@cli.command()
@click.option("--from", "source", metavar="URL", required=True, help="Store to copy from: a path, sqlite:///path or postgresql://...")
@click.option("--to", "target", metavar="URL", required=True, help="Store to copy into (created if needed).")
@progress_option
@click.pass_context
def migrate(ctx: click.Context, source: str, target: str, progress: bool | None) -> None:
    """Copy a whole store into another (SQLite <-> PostgreSQL); run again to finish an interrupted copy."""
    from knotwork import app
    from knotwork.services import transfer

    settings = _settings(ctx)
    if source == target:
        raise InvalidInput("--to", "is the same store as --from")
    if newstore.missing(source, settings) is not None:
        raise InvalidInput("--from", f"no store at {newstore.missing(source, settings)}; check the path")
    with contextlib.ExitStack() as stack:
        src = app.open_store(source, settings)
        stack.callback(src.close)
        dst = app.open_store(target, settings)
        stack.callback(dst.close)
        from tqdm import tqdm

        bars: dict[str, tqdm] = {}

        def step(what: str, done: int) -> None:
            if what not in bars:
                bars[what] = stack.enter_context(
                    tqdm(desc=what, unit=f" {what}", file=sys.stderr, disable=None if progress is None else not progress)
                )
            bars[what].update(done)

        report = transfer.move(src, dst, step)
    for count in report:
        click.echo(f"{'✓' if count.same else '✗'} {count.name}: {count.source} -> {count.target}")
    if not all(count.same for count in report):
        raise click.ClickException("the stores' counts differ after the copy (see above); run the command again")


@cli.command()
@click.option("--db", "db", metavar="PATH", help="Database file (default $KNOTWORK_HOME/knotwork.db).")
@workspace_option
@tools_option
@click.pass_context
def mcp(ctx: click.Context, db: str | None, workspace: str | None, tools: str) -> None:
    """Serve MCP over stdio (what an agent launches); with a workspace, every call is limited to it (and the
    global scope, to read), as with `knotwork serve -w`."""
    from knotwork.adapters.mcp import build_server
    from knotwork.views.access import of_workspace

    settings = _settings(ctx)
    default = _workspace(settings, workspace)
    # Trigger: the client closed stdin. Why: an MCP client gives a stdio server about 2 s to exit before it
    # kills it (the SDK's client: 2 s). Outcome: closing waits for the graph STDIO_CLOSE_WAIT s at most; what
    # is left stays queued, and the next process that holds the store reads it in.
    close_wait = min(settings.enrich_close_wait, STDIO_CLOSE_WAIT)
    fresh = newstore.missing(db, settings)
    if fresh is not None:
        click.echo(f"knotwork: creating a new store at {fresh}", err=True)
    with open_store(db, settings=settings.model_copy(update={"enrich_close_wait": close_wait})) as mem:
        build_server(mem, default_workspace=default, tools=tools, scope=of_workspace(default)).run("stdio")


@cli.command()
@click.option("--db", "db", metavar="PATH", help="Database file (default $KNOTWORK_HOME/knotwork.db).")
@workspace_option
@click.option("--host", help="Address to bind (default 127.0.0.1; any other needs KNOTWORK_API_TOKEN).")
@click.option("--port", type=int, help="Port (default 8765).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Server processes over the one store (default KNOTWORK_WORKERS, 1).")
@tools_option
@click.pass_context
def serve(
    ctx: click.Context, db: str | None, workspace: str | None, host: str | None, port: int | None, workers: int | None,
    tools: str,
) -> None:
    """Serve the REST API and MCP (streamable HTTP at /mcp) on http://HOST:PORT (and run queued LLM extraction, if configured)."""
    import uvicorn

    from knotwork.adapters import hooks
    from knotwork.adapters.credentials import TokenBook
    from knotwork.adapters.http import create_app, is_loopback
    from knotwork.adapters.http.app import check_token
    from knotwork.adapters.mcp import build_server
    from knotwork.views.access import of_workspace

    settings = _settings(ctx)
    host = host or settings.host
    port = port or settings.port
    tokens = TokenBook(settings.tokens_path())
    if not is_loopback(host) and not settings.api_token and not tokens:
        raise InvalidInput("host", f"binding {host} exposes memory beyond this machine; set KNOTWORK_API_TOKEN "
                                   "or make a token with `knotwork token create` first")
    check_token(settings.api_token)  # before any worker process starts
    _can_listen(host, port)  # before the banner says where it listens, and before the store and the model load
    from knotwork.adapters.http import heap

    heap.limit_arenas(settings.serve_malloc_arenas)  # before the store, the model and the server start their threads
    trimmer = heap.Trimmer(settings.serve_trim_interval).start()
    fresh = newstore.missing(db, settings)
    if fresh is not None:
        click.echo(f"knotwork: creating a new store at {fresh}", err=True)
    with open_store(db, settings=settings) as mem:
        # A full-text index out of step with the memories, or memories stored without vectors (by a process
        # without an embedder, or before a model change), would hide memories from search: mend them first.
        checked = mem.check(repair=True)
        for line in [f"repaired: {r}" for r in checked.repaired] + [f"check: {p}" for p in checked.problems]:
            click.echo(f"knotwork: {line}", err=True)
        default = _workspace(settings, workspace)
        processes = workers or settings.workers
        click.echo(f"knotwork: REST at http://{host}:{port}/ (docs /docs), MCP at /mcp (database {mem.store.location}"
                   f"{f', {processes} processes' if processes > 1 else ''})", err=True)
        worker = mem.start_extraction_worker()  # drains the LLM extraction queue while serving, if one is configured
        pruner = mem.start_prune_worker()  # purges expired memories and extra snapshots now and then
        # Session hooks ask this server only when it serves their own store: they read this record beside it.
        record = hooks.write_record(db or settings.database(), str(settings.home), hooks.server_url(settings, None, host, port))
        _exit_on_sigterm()  # uvicorn raises SIGTERM again once it has stopped: exit through the cleanup below
        try:
            if processes > 1:
                from knotwork.adapters.http import workers as serve_workers

                os.environ.update(serve_workers.handed_down(mem.store.location, default, tools, host))
                uvicorn.run("knotwork.adapters.http.workers:app", factory=True, workers=processes, host=host, port=port,
                            log_level="warning")
            else:
                app = create_app(
                    mem,
                    default_workspace=default,
                    api_token=settings.api_token,
                    mcp_server=build_server(mem, default_workspace=default, tools=tools, scope=of_workspace(default)),
                    host=host,
                    tokens=tokens,
                    limit_to_default=True,
                )
                uvicorn.run(app, host=host, port=port, log_level="warning")
        finally:
            hooks.remove_record(record)
            pruner.stop()
            trimmer.stop()
            if worker is not None:
                worker.stop()


def _exit_on_sigterm() -> None:
    """SIGTERM raises SystemExit (status 143, as the signal's own), so ``serve``'s cleanup runs: the stop of its
    workers and the removal of its record beside the store (the default action ends the process at once)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def _can_listen(host: str, port: int) -> None:
    """Refuse an address the server could not listen on (a port in use, one below 1024, a host not of this
    machine), naming it, before anything says the server listens there."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InvalidInput("host", f"{host} is not an address of this machine ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a port in TIME_WAIT is free
        try:
            probe.bind(address)
        except OSError as exc:
            why = ("is in use (is knotwork serve already running? pass --port N)" if exc.errno == errno.EADDRINUSE
                   else f"cannot be listened on ({exc.strerror})")
            raise InvalidInput("port", f"{host}:{port} {why}") from None


@cli.group()
def token() -> None:
    """API tokens bound to workspaces, for `knotwork serve` (kept as hashes in $KNOTWORK_HOME/tokens.json)."""


@token.command("create")
@click.option("--name", required=True, help="What the token is called in `token list` and `token revoke`.")
@click.option("-w", "--workspace", "workspaces", multiple=True, required=True,
              help="A workspace the token may use (repeat; @global for the global scope, * for all).")
@click.option("--read-only", is_flag=True, help="Reads only: every write is refused.")
@click.pass_context
def token_create(ctx: click.Context, name: str, workspaces: tuple[str, ...], read_only: bool) -> None:
    """Make a token; it is printed once, on stdout (the file keeps only its hash)."""
    from knotwork.adapters.credentials import TokenBook

    made = TokenBook(_settings(ctx).tokens_path()).create(name, list(workspaces), write=not read_only)
    click.echo(made)


@token.command("list")
@click.pass_context
def token_list(ctx: click.Context) -> None:
    """Every token's name, workspaces, rights and date (never the token)."""
    from knotwork.adapters.credentials import TokenBook, since

    book = TokenBook(_settings(ctx).tokens_path())
    rows = book.credentials()
    if not rows:
        click.echo(f"No tokens ({book.path}).")
    for c in rows:
        click.echo(f"{c.name}  {', '.join(c.scope.names())}  {'read+write' if c.scope.write else 'read'}  {since(c.created_at)}")


@token.command("revoke")
@click.argument("name")
@click.pass_context
def token_revoke(ctx: click.Context, name: str) -> None:
    """Remove a token: a running server refuses it from its next request."""
    from knotwork.adapters.credentials import TokenBook

    gone = TokenBook(_settings(ctx).tokens_path()).revoke(name)
    click.echo(f"✓ Revoked {gone.name} ({', '.join(gone.scope.names())})")


@cli.command()
@click.option("--file", "path", metavar="PATH", help="Metrics file (default $KNOTWORK_METRICS_FILE).")
@click.pass_context
def metrics(ctx: click.Context, path: str | None) -> None:
    """Token savings per operation, from the metrics file (KNOTWORK_METRICS_FILE)."""
    target = path or _settings(ctx).metrics_file
    if not target:
        raise InvalidInput("file", "no metrics file: pass --file or set KNOTWORK_METRICS_FILE")
    if not Path(target).expanduser().is_file():
        raise InvalidInput("file", f"{target} does not exist (no call has been recorded there yet)")
    click.echo(call_metrics.summary(call_metrics.read(target)))


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and turn errors into one stderr line and an exit code."""
    from knotwork.adapters.cli_run import run_command

    run_command(cli, argv)


# -- the commands of the other modules, added in one place --------------------------
def _register_commands() -> None:
    """The commands of the hooks (cli_hooks.py), recall (cli_recall.py), hygiene (cli_hygiene.py) and
    knowledge-graph (cli_knowledge.py) modules: each exports its own ``COMMANDS`` and imports only
    cli_common.py, so none of them imports this module."""
    for command in (*cli_hooks.COMMANDS, *cli_recall.COMMANDS, *cli_hygiene.COMMANDS, *cli_knowledge.COMMANDS):
        cli.add_command(command)


_register_commands()
