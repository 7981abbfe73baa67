"""Running a click command as the ``knotwork`` console script does: one stderr line and an exit code per error.

Light on purpose (click and the errors are imported when a command runs): ``entry.py`` reads it before it
knows whether the full command line is needed, and ``cli.main`` runs the group through it.
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
