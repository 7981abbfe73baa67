"""A ``--db`` where there is no store: every command that only reads refuses it (exit 2, one line naming the
path) and creates nothing, not the file, not its folder; a command that writes creates it and says so in one
line on stderr, and a write that fails leaves nothing behind. The installed console script, real files."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import knotwork

from .conftest import KNOTWORK, clean_env

READERS = [
    ["list"], ["search", "where is it"], ["get", "01M8ZZZZZZZZZZZZZZZZZZZZZZ"], ["history", "01M8ZZZZZZZZZZZZZZZZZZZZZZ"],
    ["stats"], ["status"], ["export"], ["recall"], ["nodes", "Valkey"], ["facts", "Valkey"], ["episodes"],
    ["duplicates"], ["check"], ["communities"], ["reembed"], ["backup", "copy.db"],
]


def knotwork_cli(home: Path, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KNOTWORK, *args], env=clean_env(home, {"KNOTWORK_URL": "none", **env}), cwd=cwd,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("where", ["missing/folder/x.db", "typo.db"])
def test_commands_that_only_read_refuse_a_store_that_is_not_there(
    tmp_path: Path, where: str, run_cli_here: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The first reader runs as the installed command, in its own process; the others through the same entry
    point in this one (a process each cost a second of start-up and checked nothing more)."""
    target = tmp_path / where
    for i, args in enumerate(READERS):
        if i == 0:
            run = knotwork_cli(tmp_path / "home", *args, "--db", str(target), cwd=tmp_path)
        else:
            run = run_cli_here(*args, "--db", str(target), env={"KNOTWORK_URL": "none"}, cwd=tmp_path)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert run.stderr.count("\n") == 1 and f"no store at {target}" in run.stderr, (args, run.stderr)
        assert run.stdout == ""
        assert not target.exists() and not target.parent.with_name("missing").exists(), args
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == [], args


def test_the_store_named_by_KNOTWORK_DB_is_refused_alike(tmp_path: Path) -> None:
    target = tmp_path / "nowhere.db"
    run = knotwork_cli(tmp_path / "home", "list", KNOTWORK_DB=str(target))
    assert run.returncode == 2 and f"no store at {target}" in run.stderr and not target.exists()


def test_a_command_that_writes_creates_the_store_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "x.db"
    run = knotwork_cli(tmp_path / "home", "add", "Deploys need two approvals.", "--db", str(target))
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == f"knotwork: created a new store at {target}"
    assert run.stdout.startswith("✓ Stored Deploys need two approvals.")
    again = knotwork_cli(tmp_path / "home", "list", "--db", str(target))  # now it is there: read, and no word of it
    assert again.returncode == 0 and "two approvals" in again.stdout and again.stderr == ""
    with knotwork.open(target) as mem:
        assert mem.store.count_memories() == 1


def test_a_write_that_fails_leaves_no_store_behind(tmp_path: Path) -> None:
    nested, flat = tmp_path / "made" / "for" / "it.db", tmp_path / "flat.db"
    for target in (nested, flat):
        run = knotwork_cli(tmp_path / "home", "add", "   ", "--db", str(target))
        assert run.returncode == 2 and "content" in run.stderr and "created" not in run.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name != "home"] == []  # neither the folders nor the files stayed


def test_the_default_store_is_made_on_first_use_as_before(tmp_path: Path) -> None:
    run = knotwork_cli(tmp_path / "home", "list")
    assert run.returncode == 0 and run.stdout.strip() == "No memories."
