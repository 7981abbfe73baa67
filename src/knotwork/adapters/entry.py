"""The ``knotwork`` console script: error mapping, and a light path for session hooks.

``knotwork hook …`` runs on every prompt a coding agent sends, so it is
dispatched before anything else is imported: :func:`knotwork.adapters.hooks.fast_hook`
asks the running server with the standard library alone, and only when it
cannot (no server, an unusual option) does the click command run, which loads
the store, the search engine and numpy if it has to recall in-process.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click


def run_command(command: click.Command, argv: list[str] | None, prog_name: str = "knotwork") -> None:
    """Run a click command; turn errors into one stderr line and an exit code (2 for bad input)."""
    import click

    from knotwork.errors import CLI_WORKSPACE_ARG, BackendUnavailable, KnotworkError, NotFound

    try:
        command.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
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
    from knotwork.adapters.cli import cli

    run_command(cli, args)
