"""The ``knotwork`` console script: error mapping, and a light path for session hooks.

``knotwork hook …`` runs on every prompt a coding agent sends, so it is
dispatched before anything else is imported: :func:`knotwork.adapters.hooks.fast_hook`
asks the running server with the standard library alone, and only when it
cannot (no server, an unusual option) does the click command run, which loads
the store, the search engine and numpy if it has to recall in-process.
``knotwork mcp`` likewise goes through a running server when one answers
(:func:`knotwork.adapters.remote.fast_mcp`).
"""

from __future__ import annotations

import sys

from knotwork.adapters.encoding import not_utf8

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click


def undecodable_argument(argv: list[str]) -> str | None:
    """The first command-line argument that is not UTF-8, named as such (Python hands such bytes over as lone
    surrogates, which would otherwise be reported as text no one typed); None when every one is."""
    for number, arg in enumerate(argv, 1):
        if not any("\udc80" <= ch <= "\udcff" for ch in arg):
            continue
        raw = arg.encode("utf-8", "surrogateescape")
        problem = not_utf8(raw, f"argument {number} ({raw.decode('utf-8', 'backslashreplace')[:60]!r})")
        if problem:
            return problem
    return None


def run_command(command: click.Command, argv: list[str] | None, prog_name: str = "knotwork") -> None:
    """Run a click command; turn errors into one stderr line and an exit code (2 for bad input)."""
    import click

    from knotwork.errors import CLI_WORKSPACE_ARG, BackendUnavailable, KnotworkError, NotFound

    problem = undecodable_argument(sys.argv[1:] if argv is None else argv)
    if problem:
        click.echo(f"error: {problem}", err=True)
        sys.exit(2)
    try:
        command.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:  # `knotwork` alone (or a group alone): its help, not an error
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
        sys.exit(0)
    except click.exceptions.Abort:
        click.echo("error: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except BackendUnavailable as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except NotFound as exc:  # names a workspace to pass as this command line passes one
        click.echo(f"error: {exc.message(CLI_WORKSPACE_ARG)}", err=True)
        sys.exit(2)
    except KnotworkError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(0)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from knotwork.adapters.hooks import fast_hook

        code = fast_hook(args[1:])
        if code is not None:
            sys.exit(code)
        from knotwork.adapters.cli_hooks import hook

        run_command(hook, args[1:], prog_name="knotwork hook")
        return
    if args[:1] == ["mcp"]:
        # Trigger: an agent session starting its stdio MCP server. Why: in-process, each session held its
        # own store and models (about 0.5 GB). Outcome: when a server answers for the same database (or
        # KNOTWORK_URL names one), this process only passes messages to its /mcp (adapters/remote.py).
        from knotwork.adapters.remote import fast_mcp

        code = fast_mcp(args[1:])
        if code is not None:
            sys.exit(code)
    from knotwork.adapters.cli import cli

    run_command(cli, args)
