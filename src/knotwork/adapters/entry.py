"""The ``knotwork`` console script: a light path for session hooks (errors are mapped by ``cli_run.py``).

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

from knotwork.adapters.cli_run import run_command


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
