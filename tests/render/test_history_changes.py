"""A memory's history tells every field each version changed, validity included, on a real SQLite file:
through the CLI (the installed command), the compact text and the JSON form."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.render import render
from tests.adapters.conftest import KNOTWORK, clean_env


def test_a_version_that_only_retired_a_memory_says_so(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        m = mem.add("The API listens on port 8080", workspace="ledgerly", valid_at="2026-01-01T00:00:00Z")
        mem.update(m.id, invalid_at="2026-02-01T00:00:00Z")
        mem.update(m.id, category="decision", tags={"team": "core"})
        history = mem.history(m.id)
        assert [v.content for v in history] == ["The API listens on port 8080"] * 3
        as_json = json.loads(render("history", history, "json"))
        assert [v["changed"] for v in as_json["versions"]] == [[], ["invalid_at"], ["category", "tags"]]
    run = subprocess.run([KNOTWORK, "history", m.id, "--db", str(db)], capture_output=True, text=True, timeout=60,
                         env=clean_env(tmp_path / "home", {"KNOTWORK_EMBEDDER": "none"}), stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith("- The API listens on port 8080")
    assert lines[1].endswith("- invalid_at: none → 2026-02-01 00:00 (retired)")
    assert lines[2].endswith("- category: none → decision; tags: +team=core")
    assert "8080" not in lines[1] + lines[2]  # the same text is not repeated as if it had changed
