"""What the ``knotwork`` command's modules share: the store a command runs against, and the options and
helpers its commands take.

``with_store`` opens the service (a running server's when a command is marked :func:`through_server`),
``_answer`` renders a result as every adapter does, and the options (``workspace_option``,
``filter_options``, ``tools_option``) read alike on every command. The command modules (``cli.py``,
``cli_hygiene.py``, ``cli_knowledge.py``, ``cli_recall.py``, ``cli_hooks.py``) import this one and none of
each other; ``cli.py`` gathers their commands on the ``knotwork`` group.
"""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from knotwork.adapters import newstore
from knotwork.app import open as open_store
from knotwork.config import Settings
from knotwork.domain.models import ALL_WORKSPACES
from knotwork.errors import CLI_WORKSPACE_ARG, BackendUnavailable, InvalidInput
from knotwork.render.respond import Responder
from knotwork.service import Knotwork
from knotwork.service_api import ServiceApi

if TYPE_CHECKING:
    from knotwork.adapters.client import RemoteKnotwork


def _settings(ctx: click.Context) -> Settings:
    return ctx.ensure_object(dict).setdefault("settings", Settings())


def with_store(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--db`` and ``--json``; pass an open Knotwork as ``mem`` and print what the command returns.

    A command marked :func:`through_server` gets the running server's service instead
    (:class:`~knotwork.adapters.client.RemoteKnotwork`) when one answers and no ``--db`` names a store here.
    """

    @click.option("--db", "db", metavar="PATH", help="Database file (default $KNOTWORK_HOME/knotwork.db).")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of compact text.")
    @click.pass_context
    @functools.wraps(fn)
    def wrapper(ctx: click.Context, db: str | None, as_json: bool, **kwargs: Any) -> None:
        settings = _settings(ctx)
        fresh = newstore.missing(db, settings)
        if fresh is not None and not getattr(fn, "creates", False):
            raise newstore.refuse(fresh)
        opened = settings.model_copy(update={"enrich_close_wait": 0}) if getattr(fn, "waits_for_graph", False) else settings
        with newstore.created(fresh, lambda line: click.echo(line, err=True)):
            with _service(db, opened, getattr(fn, "through_server", False)) as mem:
                out = fn(mem=mem, settings=settings, fmt="json" if as_json else "compact", **kwargs)
        if out is not None:
            click.echo(out)

    return wrapper


def through_server(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a command whose calls a running server can answer (see :func:`with_store`)."""
    fn.through_server = True  # type: ignore[attr-defined]
    return fn


def waits_for_graph(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a command that waits for the knowledge graph itself (with progress; Ctrl-C stops the wait at once):
    the store is opened so that closing it does not wait again (``enrich_close_wait`` 0: what is left goes to a
    worker process that outlives this one), and the command reads ``settings.enrich_close_wait`` for its own."""
    fn.waits_for_graph = True  # type: ignore[attr-defined]
    return fn


def creates(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a command that writes: pointed at a store that does not exist, it creates it (adapters/newstore.py)."""
    fn.creates = True  # type: ignore[attr-defined]
    return fn


def _service(db: str | None, settings: Settings, remote_ok: bool) -> Knotwork | RemoteKnotwork:
    """The service a command calls: a running server's when it may and one answers, else the store opened here.

    A command marked :func:`through_server` may be handed either, and is typed against what both offer
    (:class:`~knotwork.service_api.ServiceApi`); any other command always gets the facade (``Knotwork``)."""
    if remote_ok and db is None:
        from knotwork.adapters.remote import ServerUnavailable, find_server

        try:
            server = find_server(settings.url, settings.api_token, settings.host, settings.port, settings.database())
        except ServerUnavailable as exc:
            raise BackendUnavailable(str(exc)) from None
        if server is not None:
            from knotwork.adapters.client import RemoteKnotwork

            return RemoteKnotwork(server, settings)
    return open_store(db, settings=settings)


def _answer(mem: ServiceApi, operation: str, result: Any, fmt: str, **options: Any) -> str:
    """Render through the adapters' shared Responder (short ids, safe fallback, token metrics)."""
    return Responder(mem, workspace_arg=CLI_WORKSPACE_ARG)(operation, result, fmt, **options)


def _json_option(value: str | None, field: str) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(field, f"is not valid JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise InvalidInput(field, "is nested too deeply") from None


def _text(raw: bytes, what: str, offset: int = 0) -> str:
    """``raw`` as text; bytes that are not UTF-8 are named as a command-line argument's are (adapters/cli_run.py)."""
    from knotwork.adapters.encoding import not_utf8

    problem = not_utf8(raw, what, offset, "it may be Latin-1: iconv -f latin1 -t utf-8 converts it")
    if problem:
        raise click.UsageError(problem)
    return raw.decode("utf-8")


def _stdin_bytes() -> Any:
    """stdin as bytes (a text stream handed in without a buffer, as by a test runner, as UTF-8)."""
    return getattr(sys.stdin, "buffer", None) or io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))


def _content(value: str) -> str:
    return _text(_stdin_bytes().read(), "stdin") if value == "-" else value


def _workspace(settings: Settings, workspace: str | None, all_workspaces: bool = False) -> str | None:
    if all_workspaces:
        return ALL_WORKSPACES
    return workspace if workspace is not None else settings.workspace


workspace_option = click.option(
    "-w", "--workspace", help="Workspace name (default $KNOTWORK_WORKSPACE; none means global)."
)
filter_options = [
    click.option("--agent", "agent_id", help="Partition (default: the shared one; * for every one)."),
    click.option("-c", "--category", help="Only this category."),
    click.option("--tag", "tags", multiple=True, metavar="KEY[=VALUE]", help="Only memories with this tag (repeat)."),
    click.option("--thread", help="Only the memories of this thread (conversation, session)."),
]


tools_option = click.option(
    "--tools", type=click.Choice(["all", "core"]), default="all", show_default=True,
    help="MCP tool set; core: only the everyday memory tools (add, search, get, update, delete, list, recall), a smaller catalog.",
)


def _apply(options: list[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    def decorate(fn: Any) -> Any:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate
