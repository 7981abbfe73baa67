"""Docs that cannot drift: every CLI command and MCP tool is documented."""

from __future__ import annotations

import asyncio
from pathlib import Path

import knotwork
from knotwork.adapters.cli import cli
from knotwork.adapters.mcp import build_server

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_every_cli_command_has_help_and_is_in_readme() -> None:
    for name, command in cli.commands.items():
        assert command.help, f"knotwork {name} has no help text"
        assert f"`knotwork {name}" in README, f"knotwork {name} is not in README.md"
        for param in command.params:
            if param.param_type_name == "option" and param.name not in ("db", "as_json"):
                assert param.help, f"knotwork {name} {param.opts[0]} has no help text"


def test_every_mcp_tool_has_a_description_and_is_in_readme() -> None:
    with knotwork.open(":memory:") as mem:
        tools = asyncio.run(build_server(mem).list_tools())
    assert tools
    for tool in tools:
        assert tool.description, tool.name
        assert f"`{tool.name}`" in README, f"MCP tool {tool.name} is not in README.md"


def test_readme_first_screen_gives_the_two_commands() -> None:
    first_screen = "\n".join(README.splitlines()[:12])
    assert "make run" in first_screen and "make test" in first_screen
