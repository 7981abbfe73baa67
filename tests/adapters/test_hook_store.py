"""A session hook reads its own store: a running server is asked only when it serves that store.

The server is a real ``knotwork serve`` on a loopback port; the hooks are the
real ``knotwork`` command under two homes, each with a store of its own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import httpx2

import knotwork
from knotwork import Settings
from knotwork.adapters import hooks

from .conftest import Endpoint, port_env

FAST = {"KNOTWORK_EMBEDDER": "none"}


def seed(db: Path, content: str) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add(content, workspace="proj", category="directive")


def recalls(server: Endpoint) -> int:
    """How many recalls the server has answered."""
    return httpx2.get(f"{server.base_url}/status", params={"format": "json"}, timeout=30).json()["recall"]["count"]


def prompt(project: Path) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(project), "prompt": "which formatter: ruff or black?"})


def test_a_hook_under_another_home_reads_its_own_store_not_the_running_server(start_http, run_cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    seed(a / "knotwork.db", "Format with ruff")
    seed(b / "knotwork.db", "Format with black")
    project = tmp_path / "proj"
    project.mkdir()
    server = start_http(a / "knotwork.db", env=FAST)
    record = json.loads((a / "knotwork.db-server.json").read_text())
    assert record["url"] == server.base_url and record["database"] == str((a / "knotwork.db").resolve())
    before = recalls(server)

    other = run_cli("hook", "user-prompt", "--format", "text", input=prompt(project),
                    env={**FAST, **port_env(server), "KNOTWORK_HOME": str(b)})  # the server's port, another store
    assert other.returncode == 0, other.stderr
    assert "black" in other.stdout and "ruff" not in other.stdout
    assert recalls(server) == before  # the server was not asked

    same = run_cli("hook", "user-prompt", "--format", "text", input=prompt(project), env={**FAST, "KNOTWORK_HOME": str(a)})
    assert same.returncode == 0, same.stderr
    assert "ruff" in same.stdout and "black" not in same.stdout
    assert recalls(server) == before + 1  # the server of this store answered


def test_the_record_goes_when_the_server_stops(launcher, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    seed(db, "Format with ruff")
    server = launcher.start(db, env=FAST)
    path = Path(f"{db}-server.json")
    assert hooks.served_url(str(db), str(tmp_path)) == server.base_url
    launcher.stop_all()
    assert not path.exists()
    assert hooks.served_url(str(db), str(tmp_path)) is None


def test_a_stale_or_copied_record_is_not_used(tmp_path: Path) -> None:
    db = tmp_path / "a" / "knotwork.db"
    db.parent.mkdir()
    db.touch()
    path = hooks.write_record(str(db), str(tmp_path), "http://127.0.0.1:9")
    assert path == f"{db}-server.json"
    assert hooks.served_url(str(db), str(tmp_path)) == "http://127.0.0.1:9"  # this process is alive
    copy = tmp_path / "b"
    shutil.copytree(db.parent, copy)  # a copied folder carries the original's record
    assert hooks.served_url(str(copy / "knotwork.db"), str(tmp_path)) is None
    gone = subprocess.Popen(["true"])  # a process that has ended (and been reaped): a server killed outright
    gone.wait()
    Path(path).write_text(json.dumps({**json.loads(Path(path).read_text()), "pid": gone.pid}))
    assert hooks.served_url(str(db), str(tmp_path)) is None
    Path(path).write_text("{not json")
    assert hooks.served_url(str(db), str(tmp_path)) is None
    hooks.write_record(str(db), str(tmp_path), "http://127.0.0.1:9")
    hooks.remove_record(path)
    assert not Path(path).exists()
