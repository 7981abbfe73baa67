"""``knotwork serve`` (REST and MCP in one process), the hook commands, and ``install claude-code``.

Servers are real ``knotwork serve`` processes on loopback ports; hooks and
installs are the real ``knotwork`` command with sample hook JSON on stdin and
a temporary HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from mcp_types import CallToolResult

import knotwork
from knotwork import Settings, tokens
from knotwork.adapters import hooks

from ._mcp import run
from .conftest import KNOTWORK, Endpoint, clean_env, free_port

FAST = {"KNOTWORK_EMBEDDER": "none"}
SESSION_START = {
    "session_id": "abc123",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "",
    "hook_event_name": "SessionStart",
    "source": "startup",
}


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def seed(db: Path, *contents: str, workspace: str = "proj") -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        for content in contents:
            mem.add(content, workspace=workspace, category="directive")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git checkout named ``proj`` with a subfolder the agent works in."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    return root


# -- serve ----------------------------------------------------------------------------
def test_serve_runs_rest_and_mcp_in_one_process(start_http: Callable[..., Endpoint], db: Path) -> None:
    seed(db, "Keep commits small", workspace="proj")
    server = start_http(db, "--workspace", "proj", env=FAST)
    with httpx2.Client(base_url=server.base_url, timeout=30) as http:
        added = http.post("/memories", json={"content": "Added over REST", "category": "decision"})
        assert added.status_code == 201 and added.json()["workspace"] == "proj"
        recalled = http.post("/tools/ambient_recall", json={"budget_tokens": 300}).json()
        assert "Keep commits small" in recalled["text"] and "Added over REST" in recalled["text"]

    async def over_mcp(client):
        async with client:
            names = {t.name for t in (await client.list_tools()).tools}
            recall = await client.call_tool("ambient_recall", {"budget_tokens": 300})
            status = await client.call_tool("get_status", {"format": "json"})
            stats = await client.call_tool("get_memory_stats", {})
            bad = await client.call_tool("ambient_recall", {"sections": ["weather"]})
            return names, recall, status, stats, bad

    names, recall, status, stats, bad = run(over_mcp(server.client()))
    assert {"ambient_recall", "get_status", "get_memory_stats", "add_memory"} <= names
    assert not recall.is_error and "Added over REST" in text(recall) and tokens.count(text(recall)) <= 300
    s = json.loads(text(status))
    assert s["memories"] == 2 and s["recall"]["count"] == 2  # one recall over REST, one over MCP: one process
    # A server started with a workspace limits its callers to it: whole-store stats are the owner's.
    assert stats.is_error and "get_memory_stats" in text(stats) and "unrestricted caller" in text(stats)
    assert bad.is_error and "weather" in text(bad)


def test_serve_refuses_a_public_address_without_a_token(run_cli, db: Path) -> None:
    done = run_cli("serve", "--db", str(db), "--host", "0.0.0.0", "--port", str(free_port()))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: host: binding 0.0.0.0 exposes memory beyond this machine; set KNOTWORK_API_TOKEN"
        " or make a token with `knotwork token create` first"
    ]
    assert not db.exists()


def test_serve_with_a_token_guards_rest_and_mcp(start_http: Callable[..., Endpoint], db: Path) -> None:
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": "tok"})
    with httpx2.Client(base_url=server.base_url, timeout=30) as http:
        assert http.get("/status").status_code == 401
        assert http.post("/mcp", json={}).status_code == 401
        assert http.get("/status", headers={"authorization": "Bearer tok"}).json()["memories"] == 0


# -- hooks ------------------------------------------------------------------------------
def hook_json(project: Path, **fields) -> str:
    return json.dumps({**SESSION_START, "cwd": str(project / "src" / "pkg"), **fields})


def recalls(server: Endpoint) -> int:
    """How many recalls the server has answered."""
    return httpx2.get(f"{server.base_url}/status", params={"format": "json"}, timeout=30).json()["recall"]["count"]


def test_session_start_hook_asks_the_running_server(start_http, run_cli, db: Path, project: Path, tmp_path: Path) -> None:
    seed(db, "Server-side directive: use ruff")
    seed(tmp_path / "home" / "knotwork.db", "Local-only directive: use black")
    server = start_http(db, env=FAST)
    before = recalls(server)
    done = run_cli("hook", "session-start", input=hook_json(project), env={**FAST, "KNOTWORK_DB": str(db)})
    assert done.returncode == 0, done.stderr
    assert recalls(server) == before + 1  # answered by the server of the hook's store
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "workspace proj" in out["additionalContext"]  # the git root's folder name, not the cwd's
    assert "use ruff" in out["additionalContext"] and "use black" not in out["additionalContext"]
    assert tokens.count(out["additionalContext"]) <= Settings().hook_budget_tokens


def test_session_start_hook_works_in_process_without_a_server(run_cli, project: Path, tmp_path: Path) -> None:
    seed(tmp_path / "home" / "knotwork.db", "Local-only directive: use black")
    done = run_cli("hook", "session-start", "--format", "text", input=hook_json(project),
                   env={**FAST, "KNOTWORK_PORT": str(free_port()), "KNOTWORK_HOOK_TIMEOUT_S": "0.5"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## now ") and "use black" in done.stdout


def test_user_prompt_hook_adds_what_is_relevant_to_the_prompt(start_http, run_cli, db: Path, project: Path) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add("The staging database password rotates monthly", workspace="proj")
        mem.add("Lunch orders close at eleven", workspace="proj")
    start_http(db, env=FAST)
    prompt = hook_json(project, hook_event_name="UserPromptSubmit", prompt="when does the staging database password rotate?")
    done = run_cli("hook", "user-prompt", input=prompt, env={**FAST, "KNOTWORK_DB": str(db)})
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "rotates monthly" in context["additionalContext"] and "Lunch" not in context["additionalContext"]
    assert not context["additionalContext"].startswith("## now")  # the clock came with the session start


def test_user_prompt_hook_prints_nothing_when_nothing_is_relevant(run_cli, project: Path) -> None:
    prompt = hook_json(project, hook_event_name="UserPromptSubmit", prompt="zebra xylophone")
    done = run_cli("hook", "user-prompt", input=prompt, env={**FAST, "KNOTWORK_PORT": str(free_port())})
    assert (done.returncode, done.stdout) == (0, "")


def test_a_hook_that_reaches_the_server_imports_no_heavy_module(start_http, db: Path, project: Path, tmp_path: Path) -> None:
    """The light path: the standard library alone (each import here costs every prompt's round trip)."""
    seed(db, "Server-side directive: use ruff")
    start_http(db, env=FAST)
    for kind, fields in (("session-start", {}), ("user-prompt", {"hook_event_name": "UserPromptSubmit", "prompt": "ruff?"})):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", KNOTWORK, "hook", kind, "--format", "text", "-w", "proj"],
            input=hook_json(project, **fields), capture_output=True, text=True, timeout=60,
            env=clean_env(tmp_path / "home", {**FAST, "KNOTWORK_DB": str(db)}),
        )
        assert done.returncode == 0, done.stderr
        assert "use ruff" in done.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert "knotwork.adapters.hooks" in imported
        heavy = {"click", "pydantic", "numpy", "urllib.request", "http.client", "typing", "knotwork.config", "knotwork.service"}
        assert not heavy & imported, heavy & imported


def test_light_settings_read_the_environment_as_settings_do(monkeypatch) -> None:
    names = ("host", "port", "api_token", "hook_timeout_s", "workspace", "hook_budget_tokens", "hook_prompt_budget_tokens")
    envs = [
        {},
        {"KNOTWORK_HOST": "::", "KNOTWORK_PORT": "9001", "KNOTWORK_API_TOKEN": "tok", "KNOTWORK_HOOK_TIMEOUT_S": "0.25",
         "KNOTWORK_WORKSPACE": "proj", "KNOTWORK_HOOK_BUDGET_TOKENS": "900", "KNOTWORK_HOOK_PROMPT_BUDGET_TOKENS": "32000"},
        {"knotwork_port": "9002", "Knotwork_Workspace": "mixed-case"},  # pydantic matches names in any case
    ]
    for env in envs:
        for key in [k for k in os.environ if k.lower().startswith("knotwork_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        light, full = hooks.light_settings(), Settings()
        assert light is not None
        assert {n: getattr(light, n) for n in names} == {n: getattr(full, n) for n in names}, env
    for bad in ({"KNOTWORK_PORT": "http"}, {"KNOTWORK_PORT": "70000"}, {"KNOTWORK_HOOK_TIMEOUT_S": "0"},
                {"KNOTWORK_HOOK_BUDGET_TOKENS": "-3"}):
        assert hooks.light_settings(bad) is None, bad  # left to the full command, which reports it


@pytest.mark.parametrize(
    "args, wanted",
    [
        (["user-prompt"], {"kind": "user-prompt", "workspace": None, "budget": None, "fmt": "json", "url": None}),
        (["session-start", "-w", "p", "--budget=99", "--format", "cline", "--url", "http://h:1"],
         {"kind": "session-start", "workspace": "p", "budget": 99, "fmt": "cline", "url": "http://h:1"}),
        (["user-prompt", "--db", "x.db"], None),  # in-process: the full command
        (["user-prompt", "--help"], None),
        (["user-prompt", "--budget", "0"], None),
        (["user-prompt", "--format", "yaml"], None),
        (["user-prompt", "-w"], None),
        (["stop"], None),
    ],
)
def test_light_path_takes_only_plainly_valid_options(args: list[str], wanted) -> None:
    assert hooks._light_args(args) == wanted


def test_http_answers_are_read_whole_and_chunked() -> None:
    plain = b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\ncontent-type: application/json\r\n\r\n{\"a\":1}"
    assert hooks._response(plain) == (200, b'{"a":1}')
    chunked = b"HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\n\r\n"
    assert hooks._response(chunked) == (503, b'{"a":1}')
    with pytest.raises(ConnectionError):
        hooks._response(b"SSH-2.0-OpenSSH\r\n")


def test_a_silent_server_is_asked_once_per_process() -> None:
    base = f"http://127.0.0.1:{free_port()}"
    hooks._SILENT.discard(base)
    assert hooks.ask_server(base, {"context": "startup"}, None, 0.5) is None
    assert base in hooks._SILENT
    assert hooks.ask_server(base, {"context": "startup"}, None, 0.5) is None


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("{not json", "hook input is not JSON"),
        ("[1, 2]", "hook input must be a JSON object, got list"),
        ('{"prompt": 5}', "hook input field 'prompt' must be a string, got int"),
    ],
)
def test_bad_hook_input_exits_1_never_2(run_cli, stdin: str, message: str) -> None:
    done = run_cli("hook", "user-prompt", input=stdin, env=FAST)
    assert done.returncode == 1  # 2 would block the user's prompt in Claude Code
    assert done.stdout == ""
    assert done.stderr.startswith("error: hook user-prompt: ") and message in done.stderr


def test_a_server_error_is_reported_not_retried_locally(start_http, run_cli, db: Path, project: Path) -> None:
    start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": "tok"})
    done = run_cli("hook", "session-start", input=hook_json(project), env={**FAST, "KNOTWORK_DB": str(db)})
    assert done.returncode == 1 and "missing or wrong bearer token" in done.stderr
    ok = run_cli("hook", "session-start", input=hook_json(project),
                 env={**FAST, "KNOTWORK_DB": str(db), "KNOTWORK_API_TOKEN": "tok"})
    assert ok.returncode == 0 and "workspace proj" in ok.stdout


# -- install ----------------------------------------------------------------------------
def test_install_dry_run_prints_the_entries_and_writes_nothing(run_cli, tmp_path: Path) -> None:
    home = tmp_path / "user"
    home.mkdir()
    done = run_cli("install", "claude-code", "--dry-run", env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    planned = json.loads(done.stdout)
    hooks = planned[str(home / ".claude" / "settings.json")]["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"].endswith("knotwork hook session-start")
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"].endswith("knotwork hook user-prompt")
    server = planned[str(home / ".claude.json")]["mcpServers"]["knotwork"]
    assert server["args"] == ["mcp"] and Path(server["command"]).name == "knotwork"
    assert list(home.iterdir()) == []


def test_install_merges_keeps_a_backup_and_is_idempotent(run_cli, tmp_path: Path) -> None:
    home = tmp_path / "user"
    (home / ".claude").mkdir(parents=True)
    settings = home / ".claude" / "settings.json"
    original = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
                                           "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
    settings.write_text(json.dumps(original))
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}))
    for _ in range(2):
        done = run_cli("install", "claude-code", env={"HOME": str(home)})
        assert done.returncode == 0, done.stderr
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus" and merged["hooks"]["Stop"] == original["hooks"]["Stop"]
    starts = [h["command"] for g in merged["hooks"]["SessionStart"] for h in g["hooks"]]
    assert starts[0] == "echo hi" and len(starts) == 2 and starts[1].endswith("hook session-start")
    assert len(merged["hooks"]["UserPromptSubmit"]) == 1
    config = json.loads((home / ".claude.json").read_text())
    assert config["numStartups"] == 3 and set(config["mcpServers"]) == {"other", "knotwork"}
    backups = sorted(p.name for p in (home / ".claude").iterdir() if "knotwork-backup" in p.name)
    assert len(backups) == 2
    assert json.loads((home / ".claude" / backups[0]).read_text()) == original


def test_install_http_transport_points_at_the_server(run_cli, tmp_path: Path) -> None:
    done = run_cli("install", "claude-code", "--dry-run", "--transport", "http",
                   env={"HOME": str(tmp_path), "KNOTWORK_PORT": "9911", "KNOTWORK_API_TOKEN": "tok"})
    server = json.loads(done.stdout)[str(tmp_path / ".claude.json")]["mcpServers"]["knotwork"]
    assert server == {"type": "http", "url": "http://127.0.0.1:9911/mcp", "headers": {"Authorization": "Bearer tok"}}


def test_install_refuses_a_settings_file_it_cannot_read(run_cli, tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    broken = tmp_path / ".claude" / "settings.json"
    broken.write_text("{ not json")
    done = run_cli("install", "claude-code", env={"HOME": str(tmp_path)})
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {broken}: cannot read it as JSON")
    assert broken.read_text() == "{ not json" and not (tmp_path / ".claude.json").exists()


def test_cline_and_cursor_shaped_input(run_cli, project: Path, tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "home" / "knotwork.db", settings=Settings(embedder="none")) as mem:
        mem.add("The release checklist lives in docs/release.md", workspace="proj")
    cline = json.dumps({"hookName": "UserPromptSubmit", "taskId": "t1", "workspaceRoots": [str(project)],
                        "userPromptSubmit": {"prompt": "where is the release checklist?"}})
    env = {**FAST, "KNOTWORK_PORT": str(free_port())}
    done = run_cli("hook", "user-prompt", "--format", "cline", input=cline, env=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["cancel"] is False and "docs/release.md" in out["contextModification"]
    nothing = run_cli("hook", "user-prompt", "--format", "cline", input=json.dumps(
        {"workspaceRoots": [str(project)], "userPromptSubmit": {"prompt": "zebra xylophone"}}), env=env)
    assert json.loads(nothing.stdout) == {"cancel": False, "contextModification": ""}
    cursor = json.dumps({"hook_event_name": "sessionStart", "workspace_roots": [str(project / "src")]})
    started = run_cli("hook", "session-start", "--format", "text", input=cursor, env=env)
    assert "workspace proj" in started.stdout and "release checklist" in started.stdout
