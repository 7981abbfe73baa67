"""Docs that cannot drift: README.md is a front door whose examples run as written, and docs/ covers every
CLI command and option, MCP tool and resource, REST endpoint, setting and search recipe, each list taken from
the code (click's commands, the MCP server's lists, the OpenAPI spec, the Settings model, the recipe registry).
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from fastapi import FastAPI
from pydantic import Field
from pydantic_settings import BaseSettings

import knotwork
from knotwork.adapters.cli import cli
from knotwork.adapters.http.app import create_app
from knotwork.adapters.mcp import build_server
from knotwork.config import Settings
from knotwork.search.recipes import RECIPES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_LIMIT_BYTES = 16 * 1024
BIN = Path(sys.executable).parent
GENERIC_OPTIONS = {"db", "as_json", "help"}  # every data command's; said once on the CLI page


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# -- what the code offers, and what the docs leave out ------------------------------------------------------
def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    """Every command the CLI runs, by its full name (``token create``), groups' subcommands included."""
    for name, command in group.commands.items():
        if command.hidden:
            continue
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def cli_missing(group: click.Group, doc: str) -> list[str]:
    """Commands not named on the CLI page (as `knotwork NAME`), and options not on the line naming their command."""
    out = []
    for name, command in commands(group):
        rows = [line for line in doc.splitlines() if f"`knotwork {name}" in line]
        if not rows:
            out.append(f"knotwork {name}")
            continue
        for param in command.params:
            if param.param_type_name == "option" and param.name not in GENERIC_OPTIONS:
                if not any(opt in row for row in rows for opt in param.opts):
                    out.append(f"knotwork {name} {param.opts[-1]}")
    return out


def mcp_lists(mem: knotwork.Knotwork) -> tuple[list[Any], list[str]]:
    server = build_server(mem)
    tools = asyncio.run(server.list_tools())
    uris = [str(r.uri) for r in asyncio.run(server.list_resources())]
    uris += [t.uri_template for t in asyncio.run(server.list_resource_templates())]
    return tools, uris


def _route(text: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", text)


def endpoints(app: FastAPI) -> list[str]:
    """``METHOD /path`` of every operation in the OpenAPI spec (path parameters as ``{}``)."""
    spec = app.openapi()
    return [f"{method.upper()} {_route(path)}" for path, ops in spec["paths"].items() for method in ops]


def rest_missing(app: FastAPI, doc: str) -> list[str]:
    documented = {_route(m.group(0)) for m in re.finditer(r"(GET|POST|PUT|PATCH|DELETE) /[^\s`,|)?]*", doc)}
    return [e for e in endpoints(app) if e not in documented]


def settings_missing(model: type[BaseSettings], doc: str) -> list[str]:
    prefix = model.model_config.get("env_prefix", "")
    return [f"{prefix}{name}".upper() for name in model.model_fields if f"`{prefix}{name}`".upper() not in doc.upper()]


# -- README as a front door -----------------------------------------------------------------------------------
def test_readme_fits_a_first_read() -> None:
    assert len(README.encode("utf-8")) <= README_LIMIT_BYTES, f"README.md is {len(README.encode()):,} bytes"


def test_readme_first_screen_gives_the_two_commands() -> None:
    first_screen = "\n".join(README.splitlines()[:12])
    assert "make run" in first_screen and "make test" in first_screen


def test_readme_links_every_docs_page() -> None:
    for doc in sorted(DOCS.glob("*.md")):
        assert f"](docs/{doc.name})" in README, f"README.md does not link docs/{doc.name}"


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_relative_link_and_anchor_resolves() -> None:
    for source in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = source.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (source.parent / path).resolve() if path else source
            assert file.exists(), f"{source.name} links {target}: no such file"
            if anchor and file.suffix == ".md":
                slugs = {_slug(h) for h in re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)}
                assert anchor in slugs, f"{source.name} links {target}: no such heading"


# -- the reference in docs/ covers what the code offers --------------------------------------------------
def test_every_cli_command_and_option_has_help_and_is_in_the_cli_page() -> None:
    for name, command in commands(cli):
        assert command.help, f"knotwork {name} has no help text"
        for param in command.params:
            if param.param_type_name == "option" and param.name not in GENERIC_OPTIONS:
                assert param.help, f"knotwork {name} {param.opts[0]} has no help text"
    assert cli_missing(cli, page("cli.md")) == []


def test_every_mcp_tool_and_resource_has_a_description_and_is_in_the_mcp_page() -> None:
    with knotwork.open(":memory:") as mem:
        tools, uris = mcp_lists(mem)
    assert tools and uris
    doc = page("mcp.md")
    for tool in tools:
        assert tool.description, tool.name
        assert f"`{tool.name}`" in doc, f"MCP tool {tool.name} is not in docs/mcp.md"
    for uri in uris:
        assert f"`{uri}`" in doc, f"MCP resource {uri} is not in docs/mcp.md"


def test_every_rest_endpoint_is_in_the_rest_page() -> None:
    with knotwork.open(":memory:") as mem:
        app = create_app(mem)
        assert len(endpoints(app)) > 40
        assert rest_missing(app, page("rest.md")) == []


def test_every_setting_is_in_the_configuration_page() -> None:
    assert settings_missing(Settings, page("configuration.md")) == []


def test_every_search_recipe_is_in_the_concepts_page() -> None:
    doc = page("concepts.md")
    assert [name for name in RECIPES if f"`{name}`" not in doc] == []


def test_the_checks_catch_what_is_left_out() -> None:
    """A command, an option, an endpoint or a setting that the docs do not name is reported."""
    extra = click.Group("knotwork", commands=dict(cli.commands))
    extra.add_command(click.Command("teleport", help="Go elsewhere.", params=[click.Option(["--far"], help="How far.")]))
    assert cli_missing(extra, page("cli.md")) == ["knotwork teleport"]
    assert cli_missing(extra, page("cli.md") + "\n| `knotwork teleport` | go |") == ["knotwork teleport --far"]
    with knotwork.open(":memory:") as mem:
        app = create_app(mem)
        app.get("/teleport/{where}", summary="Go elsewhere")(lambda where: where)
        app.openapi_schema = None
        assert rest_missing(app, page("rest.md")) == ["GET /teleport/{}"]

    class MoreSettings(Settings):
        teleport_range: int = Field(default=1, description="How far.")

    assert settings_missing(MoreSettings, page("configuration.md")) == ["KNOTWORK_TELEPORT_RANGE"]


# -- the README's examples run as written ---------------------------------------------------------------
def blocks(kind: str) -> list[str]:
    """The code blocks of README.md marked ``<!-- docs-test: KIND -->``."""
    return re.findall(rf"<!-- docs-test: {kind} -->\n```\w+\n(.*?)```", README, re.S)


@pytest.fixture
def fresh(tmp_path: Path) -> dict[str, str]:
    """An environment like a new user's second terminal in the checkout: an empty home, ``.venv/`` (this
    interpreter's virtualenv) beside it, no KNOTWORK_* settings, and no ``knotwork`` on PATH until the README's
    steps put it there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KNOTWORK_", "VIRTUAL_ENV"))}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not (Path(p) / "knotwork").exists()]
    env.update(HOME=str(tmp_path), KNOTWORK_HOME=str(tmp_path / ".knotwork"), PATH=os.pathsep.join(path))
    (tmp_path / ".venv").symlink_to(BIN.parent, target_is_directory=True)
    return env


def _matches(expected: list[str], got: list[str]) -> bool:
    """``got`` line by line against ``expected``, where ``…`` in a line stands for any text and a line that is
    ``…`` alone for any number of lines."""
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "…":
        return any(_matches(rest, got[i:]) for i in range(len(got) + 1))
    pattern = ".*".join(re.escape(part) for part in head.split("…"))
    return bool(got) and re.fullmatch(pattern, got[0]) is not None and _matches(rest, got[1:])


def run_console(console: str, cwd: Path, env: dict[str, str], address: str | None = None) -> None:
    """Each ``$ command`` of a console block in bash, in order, its output matched against the lines below it.
    A step that changes the shell (``source``, ``cd``) carries over to the steps after it, as in a terminal;
    ``address`` stands for the README's 127.0.0.1:8765 (a server the test started on a free port)."""
    steps = re.split(r"^\$ ", console, flags=re.M)[1:]
    assert len(steps) >= 2
    carried: list[str] = []
    for step in steps:
        command, *expected = step.rstrip("\n").split("\n")
        if address:
            command = command.replace("127.0.0.1:8765", address)
        shell_step = command.split()[0] in ("source", "cd")
        script = " && ".join([*carried, command])
        if shell_step:
            carried.append(command)
        run = subprocess.run(script, shell=True, executable="/bin/bash", cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (command, run.stderr)
        assert _matches(expected, run.stdout.rstrip("\n").split("\n")) if expected else not run.stdout.strip(), (
            command, expected, run.stdout)


def test_readme_cli_quick_start_prints_what_it_shows(tmp_path: Path, fresh: dict[str, str]) -> None:
    (console,) = blocks("console")
    assert console.startswith("$ source .venv/bin/activate")  # the step a second terminal needs
    run_console(console, tmp_path, fresh)


def test_without_the_readmes_first_step_knotwork_is_not_found(tmp_path: Path, fresh: dict[str, str]) -> None:
    """The control of the test above: its environment has no ``knotwork`` until the README's step gives one."""
    run = subprocess.run("knotwork --version", shell=True, executable="/bin/bash", cwd=tmp_path, env=fresh,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 127 and "not found" in run.stderr


def test_readme_curl_example_runs_against_a_server(tmp_path: Path, fresh: dict[str, str]) -> None:
    import socket
    import time

    (console,) = blocks("curl")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen([str(BIN / "knotwork"), "serve", "--port", str(port)], env=fresh, cwd=tmp_path,
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.1)
        run_console(console, tmp_path, fresh, address=f"127.0.0.1:{port}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("kind", ["python", "mcp"])
def test_readme_python_and_mcp_examples_run(tmp_path: Path, fresh: dict[str, str], kind: str) -> None:
    """Each example runs, and runs again in the same folder, as a newcomer runs a script twice (the Python one
    stopped with a Conflict the second time when it kept its store in a file: its update's text was taken)."""
    (code,) = blocks(kind)
    script = tmp_path / f"readme_{kind}_example.py"
    script.write_text(code, encoding="utf-8")
    for _ in range(2):
        run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=fresh, capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip(), "the example printed nothing"
    if kind == "mcp":
        assert list(tmp_path.glob("*.db")), "the example wrote no store in its folder"


def test_the_python_page_example_runs() -> None:
    (code,) = re.findall(r"```python\n(.*?)```", page("python.md"), re.S)
    exec(compile(code, "docs/python.md", "exec"), {})


@pytest.mark.parametrize("framework", ["langgraph", "langchain_core", "agents", "pydantic_ai"])
def test_the_integrations_page_examples_run(framework: str) -> None:
    """Every example of docs/integrations.md runs as written, each under the heading of the framework it needs."""
    pytest.importorskip(framework)
    title = {"langgraph": "## LangGraph", "langchain_core": "## LangChain", "agents": "## OpenAI Agents SDK",
             "pydantic_ai": "## Pydantic AI"}[framework]
    section = page("integrations.md").split(title + "\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/integrations.md ({title[3:]} #{i + 1})", "exec"), {})


def test_the_matcher_refuses_output_that_differs() -> None:
    assert _matches(["✓ Stored … (id …)"], ["✓ Stored a note (id 01ABC)"])
    assert not _matches(["✓ Stored … (id …)"], ["✗ IGNORE: not stored"])
    assert _matches(["a", "…"], ["a", "b", "c"]) and not _matches(["a"], ["a", "b"])
