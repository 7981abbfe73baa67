"""The CLI's memory commands go through a running server of the same database: typed answers, typed errors.

Real processes: ``knotwork serve`` on a free loopback port, each CLI command its own process (an exit hook
reports whether the embedding runtime was loaded). The same commands without the server are the control.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import knotwork

from .conftest import KNOTWORK, LOCAL, HttpLauncher, clean_env, port_env
from .conftest import probed_cli as cli


def test_add_search_get_go_through_the_server_without_loading_the_model(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    served = launcher.start(home / "knotwork.db")
    env = port_env(served)
    code, out, _, loaded = cli(home, env, "add", "Backups are copied to the cold store every Sunday night", "-w", "ops")
    assert code == 0 and not loaded
    shown = re.fullmatch(r"✓ Stored .* \(id ([0-9A-Z]{8,26})\)", out).group(1)  # the short id, as in-process
    memory_id = json.loads(cli(home, env, "get", shown, "--json")[1])["id"]
    code, out, _, loaded = cli(home, env, "search", "when are backups copied", "-w", "ops", "--json")
    assert code == 0 and not loaded
    hits = json.loads(out)["hits"]
    assert [h["memory"]["id"] for h in hits] == [memory_id] and hits[0]["score"] > 0
    code, out, _, loaded = cli(home, env, "get", memory_id)
    assert code == 0 and not loaded and out.splitlines()[-1] == "Backups are copied to the cold store every Sunday night"
    code, out, _, _ = cli(home, env, "add", "Backups are copied to the cold store every Sunday night", "-w", "ops")
    assert out == f"✓ NOOP: already stored (id {shown})"  # the server's decision, read back typed
    code, out, _, _ = cli(home, env, "list", "-w", "ops", "--json")
    assert [m["id"] for m in json.loads(out)["memories"]] == [memory_id]
    with knotwork.open(home / "knotwork.db") as mem:  # written by the server, into the database it serves
        assert mem.get(memory_id).workspace == "ops"


def test_errors_come_back_typed(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    served = launcher.start(home / "knotwork.db")
    env = port_env(served)
    missing = "01M8ZZZZZZZZZZZZZZZZZZZZZZ"
    remote = cli(home, env, "get", missing)
    local = cli(home, LOCAL, "get", missing)
    assert remote[0] == local[0] == 2  # NotFound: bad input, as in-process
    assert remote[2] == local[2] == f"error: no memory matches id '{missing}'"
    code, _, err, _ = cli(home, env, "add", "x" * 10, "--importance", "7")
    assert code == 2 and err.startswith("error: importance")


def test_the_servers_scope_applies(launcher: HttpLauncher, tmp_path: Path) -> None:
    home = tmp_path / "home"
    token = subprocess.run([KNOTWORK, "token", "create", "--name", "cli", "-w", "team-a"], env=clean_env(home),
                           capture_output=True, text=True, check=True).stdout.strip()
    served = launcher.start(home / "knotwork.db")
    env = port_env(served, KNOTWORK_API_TOKEN=token)
    assert cli(home, env, "add", "Team A ships on Mondays", "-w", "team-a")[0] == 0
    code, _, err, _ = cli(home, env, "add", "Team B ships on Fridays", "-w", "team-b")
    assert code == 2 and "team-b" in err
    with knotwork.open(home / "knotwork.db") as mem:
        assert mem.store.count_memories() == 1


def test_a_miss_through_the_server_names_where_to_look_as_in_process(launcher: HttpLauncher, tmp_path: Path) -> None:
    """The README's miss: a search without -w names the workspace that would answer, through a server as
    in-process; a workspace that holds nothing is named as such."""
    home = tmp_path / "home"
    served = launcher.start(home / "knotwork.db")
    env = port_env(served)
    assert cli(home, env, "add", "Session tokens are cached in Valkey for 15 minutes.", "-w", "ledgerly")[0] == 0
    query = "where do we cache session tokens?"
    remote, local = cli(home, env, "search", query), cli(home, LOCAL, "search", query)
    assert remote.code == local.code == 0 and not remote.loaded
    assert remote.out == local.out == "No matching memories here; 1 match in workspace 'ledgerly'; pass -w ledgerly."
    assert json.loads(cli(home, env, "search", query, "--json").out)["elsewhere"] == {"ledgerly": 1}
    remote, local = cli(home, env, "search", query, "-w", "ledgerlyy"), cli(home, LOCAL, "search", query, "-w", "ledgerlyy")
    assert remote.out == local.out == ("No matching memories: workspace 'ledgerlyy' does not exist (nothing is stored in it); "
                                       "1 match in workspace 'ledgerly'; pass -w ledgerly.")
    assert json.loads(cli(home, env, "search", query, "-w", "ledgerlyy", "--json").out)["unknown_workspace"] == "ledgerlyy"
    assert json.loads(cli(home, env, "search", "tokens", "-w", "ledgerly", "--json").out).get("unknown_workspace") is None


def test_a_listing_of_a_workspace_that_does_not_exist_names_it_as_in_process(launcher: HttpLauncher, tmp_path: Path) -> None:
    """``list -w`` with a misspelt workspace says that workspace holds nothing, through a server as in process
    (exit 0, as a search's miss); an existing workspace's listing and an empty store's default do not."""
    home = tmp_path / "home"
    served = launcher.start(home / "knotwork.db")
    env = port_env(served)
    assert cli(home, env, "list")[:2] == (0, "No memories.")
    assert cli(home, env, "add", "Session tokens are cached in Valkey for 15 minutes.", "-w", "ledgerly")[0] == 0
    remote, local = cli(home, env, "list", "-w", "ledgerlyy"), cli(home, LOCAL, "list", "-w", "ledgerlyy")
    assert remote.code == local.code == 0 and not remote.loaded
    assert remote.out == local.out == ("No memories: workspace 'ledgerlyy' does not exist (nothing is stored in it); "
                                       "1 memory in workspace 'ledgerly'; pass -w ledgerly.")
    assert json.loads(cli(home, env, "list", "-w", "ledgerlyy", "--json").out)["unknown_workspace"] == "ledgerlyy"
    # The README's adds went to ledgerly: a listing of the global scope says where they are.
    remote, local = cli(home, env, "list"), cli(home, LOCAL, "list")
    assert remote.out == local.out == "No memories here; 1 memory in workspace 'ledgerly'; pass -w ledgerly."
    assert json.loads(cli(home, env, "list", "--json").out) == {"memories": [], "next_cursor": None, "elsewhere": {"ledgerly": 1}}
    listed = json.loads(cli(home, env, "list", "-w", "ledgerly", "--json").out)
    assert len(listed["memories"]) == 1 and "unknown_workspace" not in listed
