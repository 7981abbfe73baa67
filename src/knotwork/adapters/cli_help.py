"""``knotwork --help``: the commands in sections (memories, search, graph, data, server, agents), one example each.

Trigger: ``--help`` was a flat list of 38 commands whose descriptions click cut at the terminal's width.
Why: a new user looks for what to do first, by kind of task. Outcome: the group's help (the one source, the
same with ``-h``, ``--help`` and ``knotwork`` alone) prints a section per kind, each with one example and
every command with the first sentence of its help, wrapped rather than cut. A command that no section names
is printed under "other" (tests/adapters/test_first_hour_terms.py keeps that section empty).
"""

from __future__ import annotations

import click

#: Section -> (an example command line, the commands it holds, in the order shown).
SECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "memories": ('knotwork add "Deploys need two approvals." -w ledgerly -c decision',
                 ("add", "get", "list", "update", "delete", "history", "link", "unlink", "related", "graph")),
    "search": ('knotwork search "how many approvals for a deploy?" -w ledgerly', ("search", "duplicates")),
    "graph": ('knotwork facts "Valkey" -w ledgerly',
              ("nodes", "facts", "entity", "episodes", "communities", "merge-entities", "delete-fact", "clear-graph",
               "extract")),
    "data": ("knotwork export ledgerly.jsonl",
             ("import", "export", "backup", "restore", "migrate", "reembed", "check", "prune", "merge", "stats",
              "status")),
    "server": ("knotwork serve --port 8765", ("serve", "token", "metrics")),
    "agents": ("knotwork install claude-code", ("install", "mcp", "hook", "recall")),
}


def first_sentence(command: click.Command) -> str:
    """The first sentence of a command's help, whole (click's short help is cut to the terminal's width)."""
    return command.get_short_help_str(limit=400)


class SectionedGroup(click.Group):
    """A click group whose help lists its commands by :data:`SECTIONS`."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        listed = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        shown = {name: c for name, c in listed.items() if c is not None and not c.hidden}
        placed: set[str] = set()
        for section, (example, names) in SECTIONS.items():
            rows = [(name, first_sentence(shown[name])) for name in names if name in shown]
            placed.update(name for name, _ in rows)
            if rows:
                with formatter.section(section.capitalize()):
                    formatter.write_text(f"e.g.  {example}")
                    formatter.write_dl(rows)
        rest = [(name, first_sentence(c)) for name, c in shown.items() if name not in placed]
        if rest:
            with formatter.section("Other"):
                formatter.write_dl(rest)
