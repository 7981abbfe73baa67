"""The first commands a new user types, in their terms: text that is not UTF-8 on stdin or in a file named as
an argument's is; ``knotwork`` alone prints its help; ``--help`` by section with an example each; ``serve`` on
an address it cannot listen on says so before it says where it listens. The installed console script."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path

import knotwork
from knotwork.adapters.cli import cli
from knotwork.adapters.cli_help import SECTIONS

from .conftest import KNOTWORK, clean_env

LATIN1 = "café au lait".encode("latin-1")
HINT = "give text in UTF-8 (it may be Latin-1: iconv -f latin1 -t utf-8 converts it)"


def run(home: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([KNOTWORK, *args], env=clean_env(home, {"KNOTWORK_URL": "none", "KNOTWORK_EMBEDDER": "none"}),
                          input=stdin, capture_output=True, timeout=120, stdin=None if stdin is not None else subprocess.DEVNULL)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_a_query_on_stdin_is_read_as_an_added_text_is(tmp_path: Path) -> None:
    """`knotwork search -` reads the query from stdin, as `add -` reads the text (it searched for "-" itself)."""
    db = tmp_path / "store.db"
    assert run(tmp_path, "add", "Deploys need two approvals.", "--db", str(db)).returncode == 0
    found = run(tmp_path, "search", "-", "--db", str(db), "--json", stdin=b"deploys approvals\n")
    assert found.returncode == 0 and [h["memory"]["content"] for h in json.loads(found.stdout)["hits"]] == ["Deploys need two approvals."]
    r = run(tmp_path, "search", "-", "--db", str(db), stdin=LATIN1)
    assert r.returncode == 2 and r.stderr == f"error: stdin is not valid UTF-8: byte 0xe9 at byte offset 3; {HINT}\n"


def test_latin1_on_stdin_or_in_a_file_is_named_as_not_utf8(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    assert run(tmp_path, "add", "Deploys need two approvals.", "--db", str(db)).returncode == 0
    r = run(tmp_path, "add", "-", "--db", str(db), stdin=LATIN1)
    assert r.returncode == 2 and r.stderr == f"error: stdin is not valid UTF-8: byte 0xe9 at byte offset 3; {HINT}\n"
    assert "surrogate" not in r.stderr
    with knotwork.open(db) as mem:
        first = mem.list()[0].id
    r = run(tmp_path, "update", first, "--content", "-", "--db", str(db), stdin=LATIN1)
    assert r.returncode == 2 and r.stderr.startswith("error: stdin is not valid UTF-8: byte 0xe9 at byte offset 3;")
    records = b'{"content": "fine"}\n' + b'{"content": "' + LATIN1 + b'"}\n'
    r = run(tmp_path, "import", "-", "--db", str(db), stdin=records)
    assert r.returncode == 2 and r.stderr == f"error: stdin (line 2) is not valid UTF-8: byte 0xe9 at byte offset 36; {HINT}\n"
    exported = tmp_path / "latin1.jsonl"
    exported.write_bytes(records)
    r = run(tmp_path, "import", str(exported), "--db", str(db))
    assert r.returncode == 2 and r.stderr.startswith(f"error: {exported} (line 2) is not valid UTF-8: byte 0xe9 at byte offset 36;")
    with knotwork.open(db) as mem:  # nothing of it was written
        assert [m.content for m in mem.list()] == ["Deploys need two approvals."]


def test_knotwork_alone_prints_its_help_and_exits_0(tmp_path: Path) -> None:
    alone, asked = run(tmp_path, ), run(tmp_path, "--help")
    assert alone.returncode == 0 and alone.stderr == "" and alone.stdout.startswith("Usage: knotwork")
    assert alone.stdout == asked.stdout  # one help, however it is asked for


def test_help_lists_every_command_in_a_section_with_an_example(tmp_path: Path) -> None:
    out = run(tmp_path, "-h").stdout
    headings = re.findall(r"^(\w+):$", out, re.M)
    assert headings == ["Options", *[name.capitalize() for name in SECTIONS]]  # no "Other": every command placed
    for name, (example, _) in SECTIONS.items():
        section = out.split(f"\n{name.capitalize()}:\n", 1)[1].split("\n\n", 1)[0]
        assert section.splitlines()[0].strip() == f"e.g.  {example}"
    listed = set(re.findall(r"^  ([a-z][a-z-]+)  ", out, re.M))
    assert listed == {n for n, c in cli.commands.items() if not c.hidden}
    assert "..." not in out.split("Options:", 1)[1]  # first sentences whole, wrapped rather than cut


def test_serve_on_a_port_in_use_says_so_before_any_banner(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run(tmp_path, "serve", "--port", str(port), "--db", str(tmp_path / "s.db"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"error: port: 127.0.0.1:{port} is in use (is knotwork serve already running? pass --port N)\n"
    assert not (tmp_path / "s.db").exists()  # refused before the store was opened


def test_a_hooks_input_that_is_not_utf8_and_a_hooks_missing_store_are_named(tmp_path: Path) -> None:
    r = run(tmp_path, "hook", "user-prompt", stdin=b'{"prompt": "' + LATIN1 + b'", "cwd": "/tmp"}')
    assert r.returncode == 1 and r.stderr == ("error: hook user-prompt: hook input on stdin is not valid UTF-8: byte 0xe9 at"
                                              " byte offset 15; give text in UTF-8 (the agent sent another encoding)\n")
    missing = tmp_path / "nowhere.db"
    r = run(tmp_path, "hook", "user-prompt", "--db", str(missing), stdin=b'{"prompt": "deploys", "cwd": "/tmp"}')
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and f"no store at {missing}" in r.stderr  # 1: never blocks a prompt
    assert not missing.exists()
