"""The CLI's link, status, stats, export and import commands go through a running server, with its scope.

Real processes: ``knotwork serve`` on a free loopback port, each CLI command its own process. A token limited
to one workspace is what tells the two paths apart: through the server a call outside it is refused (the
server's scope), in-process (``KNOTWORK_URL=none``) the owner may do it. Compact answers through a server show
the same short ids as in-process.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import knotwork

from .conftest import KNOTWORK, LOCAL, HttpLauncher, clean_env, port_env, probed_cli


def cli(home: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr); the model's runtime must not have loaded."""
    ran = probed_cli(home, env, *args, stdin=stdin)
    assert not ran.loaded, f"{args[0]} loaded the model"
    return ran.code, ran.out, ran.err


@pytest.fixture
def scoped(launcher: HttpLauncher, tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A store with two memories in team-a and two in team-b, served; env of a token limited to team-a; ids."""
    home = tmp_path / "home"
    with knotwork.open(home / "knotwork.db") as mem:
        ids = {name: mem.add(text, workspace=name[:-1].replace("_", "-")).id for name, text in (
            ("team_a1", "Team A deploys on Mondays"), ("team_a2", "Team A's deploys need two reviews"),
            ("team_b1", "Team B deploys on Fridays"), ("team_b2", "Team B's deploys need one review"))}
    token = subprocess.run([KNOTWORK, "token", "create", "--name", "cli", "-w", "team-a"], env=clean_env(home),
                           capture_output=True, text=True, check=True).stdout.strip()
    served = launcher.start(home / "knotwork.db")
    env = port_env(served, KNOTWORK_API_TOKEN=token)
    return home, env, ids


def test_link_related_unlink_go_through_the_server(scoped: tuple[Path, dict[str, str], dict[str, str]]) -> None:
    home, env, ids = scoped
    code, out, err = cli(home, env, "link", ids["team_a1"], ids["team_a2"], "relates_to")
    assert code == 0, err
    with knotwork.open(home / "knotwork.db") as mem:
        short = mem.short_ids([ids["team_a1"], ids["team_a2"]])
        rel = mem.relationships(ids["team_a1"])[0]
    assert out == f"✓ Linked {short[ids['team_a1']]} --relates_to--> {short[ids['team_a2']]} (id {rel.id})"
    code, out, _ = cli(home, env, "link", ids["team_a1"], ids["team_a2"], "relates_to")
    assert code == 0 and out.startswith("= Already linked")  # the server's answer, read back typed
    code, out, _ = cli(home, env, "related", ids["team_a1"], "--json")
    assert code == 0 and [r["memory"]["id"] for r in json.loads(out)["related"]] == [ids["team_a2"]]
    code, _, err = cli(home, env, "link", ids["team_b1"], ids["team_b2"], "relates_to")
    assert code == 2 and ids["team_b1"] in err  # outside the token's scope: it does not exist for this caller
    assert cli(home, env, "related", ids["team_b1"])[0] == 2
    code, out, _ = cli(home, env, "unlink", rel.id)
    assert code == 0 and out.startswith("✓ Unlinked")
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.relationships(ids["team_a1"]) == [] and mem.relationships(ids["team_b1"]) == []
    assert cli(home, LOCAL, "link", ids["team_b1"], ids["team_b2"], "relates_to")[0] == 0  # the control


def test_status_and_stats_are_the_servers(scoped: tuple[Path, dict[str, str], dict[str, str]]) -> None:
    home, env, _ = scoped
    code, out, _ = cli(home, env, "status", "--json")
    assert code == 0 and json.loads(out)["memories"] == 2  # the token's workspaces only
    code, out, _ = cli(home, LOCAL, "status", "--json")
    assert code == 0 and json.loads(out)["memories"] == 4
    code, _, err = cli(home, env, "stats")
    assert code == 2 and "stats of the whole store" in err  # the owner's, not a scoped caller's
    code, out, _ = cli(home, LOCAL, "stats", "--json")
    assert code == 0 and json.loads(out)["by_workspace"] == {"team-a": 2, "team-b": 2}


def test_export_and_import_go_through_the_server(scoped: tuple[Path, dict[str, str], dict[str, str]], tmp_path: Path) -> None:
    home, env, ids = scoped
    out_file = tmp_path / "a.jsonl"
    code, _, err = cli(home, env, "export", str(out_file))
    assert code == 0, err
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert sorted(r["id"] for r in records if "record" not in r) == sorted([ids["team_a1"], ids["team_a2"]])
    new = {"id": "01J0000000000000000000000A", "content": "Team A rolls back with one command", "workspace": "team-a",
           "created_at": "2024-06-01T00:00:00Z", "valid_at": "2024-06-01T00:00:00Z", "updated_at": "2024-06-01T00:00:00Z",
           "version": 1, "importance": 0.5}
    outside = {**new, "id": "01J0000000000000000000000B", "content": "Team B rolls forward", "workspace": "team-b"}
    both = "".join(json.dumps(r) + "\n" for r in (new, outside))
    code, _, err = cli(home, env, "import", "-", stdin=both)
    assert code == 2 and "team-b" in err  # one record outside the scope: nothing is written
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.store.count_memories() == 4
    code, out, err = cli(home, env, "import", "-", "--json", stdin=json.dumps(new) + "\n")
    assert code == 0, err
    assert json.loads(out) == {"added": 1, "skipped": 0}
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.get(new["id"]).workspace == "team-a"


def test_compact_answers_show_the_short_ids_shown_in_process(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with knotwork.open(home / "knotwork.db") as mem:
        first = mem.add("The cache is warmed before each release", workspace="w")
        mem.add("Releases are cut from main on Tuesdays", workspace="w")
        mem.link(first.id, mem.list(workspace="w")[0].id, "relates_to")
    served = launcher.start(home / "knotwork.db")
    env = port_env(served)
    for args in (("list", "-w", "w"), ("get", first.id), ("related", first.id), ("history", first.id)):
        remote, local = cli(home, env, *args), cli(home, LOCAL, *args)
        assert remote[0] == local[0] == 0
        assert remote[1] == local[1], args
    assert first.id not in cli(home, env, "list", "-w", "w")[1]  # shown short, as in-process
