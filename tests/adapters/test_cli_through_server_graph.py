"""The CLI's knowledge-graph and hygiene commands go through a running server: same answers, the server's scope.

Real processes: ``knotwork serve`` on a free loopback port, each CLI command its own process. Against a server
without tokens, each command prints what it prints in-process (``KNOTWORK_URL=none``) on the same store: the
server's JSON read back into the domain's types renders the same. A token limited to one workspace shows the
calls really go through the server: what is outside it is refused, or not named as a place to look.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import knotwork

from .conftest import KNOTWORK, LOCAL, HttpLauncher, clean_env, port_env
from .conftest import probed_cli as cli


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """team-a and team-b, each with memories whose entities and facts the caller gave."""
    home = tmp_path / "home"
    with knotwork.open(home / "knotwork.db") as mem:
        for ws, db, service in (("team-a", "PostgreSQL", "billing"), ("team-b", "Redis", "sessions")):
            mem.add(f"The {service} service stores its data in {db}", workspace=ws,
                    entities=[{"name": db, "type": "library"}, {"name": f"{service} service", "type": "module"}],
                    facts=[{"subject": f"{service} service", "predicate": "uses", "object": db}])
            mem.add(f"{db} backups run every night for the {service} service", workspace=ws,
                    entities=[{"name": db, "type": "library"}])
        mem.add("The billing service keeps invoices for ten years", workspace="team-a")
        mem.add("The billing service keeps invoices for ten years.", workspace="team-a", consolidate=False)
    return home


def test_graph_commands_print_through_a_server_what_they_print_in_process(launcher: HttpLauncher, home: Path) -> None:
    env = port_env(launcher.start(home / "knotwork.db"))
    for args in (("nodes", "PostgreSQL", "-w", "team-a"), ("facts", "billing uses", "-w", "team-a"),
                 ("facts", "billing uses", "-w", "team-a", "--json"), ("entity", "PostgreSQL", "-w", "team-a"),
                 ("episodes", "-w", "team-a"), ("communities", "-w", "team-a"), ("nodes", "Redis", "-w", "team-a"),
                 ("duplicates", "-t", "0.9")):
        remote, local = cli(home, env, *args), cli(home, LOCAL, *args)
        assert remote[0] == local[0] == 0, (args, remote[2], local[2])
        assert remote[1] == local[1], args
        assert not remote[3], f"{args[0]} loaded the model through the server"
    assert "team-b" in cli(home, env, "nodes", "Redis", "-w", "team-a")[1]  # the other workspace is named


def test_the_servers_scope_applies_to_graph_and_hygiene_commands(launcher: HttpLauncher, home: Path) -> None:
    token = subprocess.run([KNOTWORK, "token", "create", "--name", "a", "-w", "team-a"], env=clean_env(home),
                           capture_output=True, text=True, check=True).stdout.strip()
    env = port_env(launcher.start(home / "knotwork.db"), KNOTWORK_API_TOKEN=token)
    code, out, _, _ = cli(home, env, "nodes", "Redis", "-w", "team-a")
    assert code == 0 and "team-b" not in out  # team-b does not exist for this caller: not named as a place to look
    assert "team-b" in cli(home, LOCAL, "nodes", "Redis", "-w", "team-a")[1]  # the control: the owner's view
    code, out, _, _ = cli(home, env, "facts", "sessions uses Redis", "-w", "team-b", "--json")
    assert code == 2 and "team-b" not in out  # a workspace outside the token: refused
    code, out, _, _ = cli(home, env, "facts", "sessions uses Redis", "-w", "team-a", "--json")
    assert code == 0 and {h["fact"]["workspace"] for h in json.loads(out)["facts"]} <= {"team-a"}
    with knotwork.open(home / "knotwork.db") as mem:
        b_fact = mem.search_facts("sessions uses", workspace="team-b")[0].fact
        a_fact = mem.search_facts("billing uses", workspace="team-a")[0].fact
    code, _, err, _ = cli(home, env, "delete-fact", b_fact.id)
    assert code == 2 and b_fact.id in err
    code, _, err, _ = cli(home, env, "clear-graph", "-w", "team-b", "--yes")
    assert code == 2 and "team-b" in err
    assert cli(home, env, "prune")[0] == 2  # the owner's
    code, out, err, _ = cli(home, env, "delete-fact", a_fact.id)
    assert code == 0, err
    assert out == f"✓ Deleted fact {a_fact.subject} --{a_fact.predicate}--> {a_fact.object} (id {a_fact.id})"
    code, out, err, _ = cli(home, env, "merge-entities", "PostgreSQL", "billing service", "-w", "team-a")
    assert code == 0 and out.startswith("✓ Merged into"), err
    code, out, err, _ = cli(home, env, "clear-graph", "-w", "team-a", "--yes")
    assert code == 0 and out.startswith("✓ Cleared the graph of workspace team-a"), err
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.search_nodes("PostgreSQL", workspace="team-a") == []
        assert "Redis" in [h.entity.name for h in mem.search_nodes("Redis", workspace="team-b")]  # team-b kept its graph
        assert mem.fact(b_fact.id).id == b_fact.id


def test_merge_and_prune_go_through_the_server(launcher: HttpLauncher, home: Path) -> None:
    env = port_env(launcher.start(home / "knotwork.db"))
    code, out, _, loaded = cli(home, env, "duplicates", "-t", "0.9", "--json")
    assert code == 0 and not loaded
    groups = json.loads(out)["groups"]
    assert len(groups) == 1 and len(groups[0]["ids"]) == 2
    code, out, err, loaded = cli(home, env, "merge", *groups[0]["ids"], "--json")
    assert code == 0 and not loaded, err
    assert json.loads(out) == {"kept": groups[0]["ids"][0], "merged": groups[0]["ids"][1:]}
    code, out, err, _ = cli(home, env, "prune", "--json")
    assert code == 0, err
    assert json.loads(out)["expired"] == 0
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.get(groups[0]["ids"][1]).invalid_at is not None  # retired by the merge, kept
