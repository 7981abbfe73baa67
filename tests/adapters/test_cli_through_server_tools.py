"""The CLI's ``graph``, ``recall`` and ``extract`` go through a running server: the server's answers and scope.

Real processes: ``knotwork serve`` on a free loopback port, each CLI command its own process under the probe
(whether the model's runtime was loaded); the LLM the server extracts with is a real chat-completions server on
loopback (tests/knowledge/_llm_server.py). In-process (``KNOTWORK_URL=none``) runs of the same commands on the
same store are the control. A token limited to one workspace, and an LLM only the server is configured with,
show that the calls really go through the server.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from tests.knowledge._llm_server import ChatServer

from .conftest import KNOTWORK, LOCAL, HttpLauncher, clean_env, port_env
from .conftest import probed_cli as cli


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Three linked memories in team-a, one in team-b; their ids by name."""
    home = tmp_path / "home"
    with knotwork.open(home / "knotwork.db") as mem:
        ids = {
            "cache": mem.add("The cache is warmed before each release", workspace="team-a").id,
            "cut": mem.add("Releases are cut from main on Tuesdays", workspace="team-a").id,
            "freeze": mem.add("Code freeze starts the Friday before a release", workspace="team-a").id,
            "other": mem.add("Team B releases whenever the tests pass", workspace="team-b").id,
        }
        mem.link(ids["cache"], ids["cut"], "relates_to")
        mem.link(ids["cut"], ids["freeze"], "references")
    return home, ids


def token_for(home: Path, workspace: str) -> str:
    return subprocess.run([KNOTWORK, "token", "create", "--name", workspace, "-w", workspace], env=clean_env(home),
                          capture_output=True, text=True, check=True).stdout.strip()


def test_graph_prints_through_a_server_what_it_prints_in_process(launcher: HttpLauncher, home: tuple[Path, dict[str, str]]) -> None:
    folder, ids = home
    env = port_env(launcher.start(folder / "knotwork.db"))
    for args in (("graph", ids["cut"]), ("graph", ids["cut"], "--format", "dot"), ("graph", ids["cache"], "--format", "mermaid"),
                 ("graph", ids["cache"], "--depth", "1", "--json"), ("graph", ids["cache"], "--max-nodes", "2")):
        remote, local = cli(folder, env, *args), cli(folder, LOCAL, *args)
        assert remote.code == local.code == 0, (args, remote.err, local.err)
        assert remote.out == local.out, args
        assert not remote.loaded
    drawn = json.loads(cli(folder, env, "graph", ids["cache"], "--json").out)
    assert {n["id"] for n in drawn["nodes"]} == {ids["cache"], ids["cut"], ids["freeze"]}
    assert {(e["from"], e["to"], e["type"]) for e in drawn["edges"]} == {
        (ids["cache"], ids["cut"], "relates_to"), (ids["cut"], ids["freeze"], "references")}
    with knotwork.open(folder / "knotwork.db") as mem:
        short = mem.short_ids([ids["cut"]])[ids["cut"]]
    assert cli(folder, env, "graph", ids["cut"]).out.startswith(f"graph of {short}: 3 nodes, 2 edges")  # short ids, as in-process


def test_graph_errors_and_scope_through_a_server(launcher: HttpLauncher, home: tuple[Path, dict[str, str]]) -> None:
    folder, ids = home
    env = port_env(launcher.start(folder / "knotwork.db"), KNOTWORK_API_TOKEN=token_for(folder, "team-a"))
    code, out, err, _ = cli(folder, env, "graph", ids["other"])
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and ids["other"] in err  # outside the token: not there
    assert cli(folder, LOCAL, "graph", ids["other"]).code == 0  # the control: the owner's view
    code, out, err, _ = cli(folder, env, "graph", ids["cut"], "--depth", "9")
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "depth" in err
    local = cli(folder, LOCAL, "graph", ids["cut"], "--depth", "9")
    assert local.code == 2 and "depth" in local.err
    missing = "01M8ZZZZZZZZZZZZZZZZZZZZZZ"
    remote, local = cli(folder, env, "graph", missing), cli(folder, LOCAL, "graph", missing)
    assert remote.code == local.code == 2 and remote.err == local.err == f"error: no memory matches id '{missing}'"


def test_recall_goes_through_the_server_without_loading_the_model(launcher: HttpLauncher, home: tuple[Path, dict[str, str]]) -> None:
    folder, ids = home
    env = port_env(launcher.start(folder / "knotwork.db"), KNOTWORK_API_TOKEN=token_for(folder, "team-a"))
    args = ("recall", "-w", "team-a", "-q", "when are releases cut", "--section", "facts", "--section", "health")
    code, out, err, loaded = cli(folder, env, *args, "--json")
    assert code == 0 and not loaded, err
    answer = json.loads(out)
    assert (answer["workspace"], answer["query"], answer["focus"]) == ("team-a", "when are releases cut", False)
    assert [s["name"] for s in answer["sections"]] == ["facts", "health"]
    facts = answer["sections"][0]
    assert ids["cut"] in facts["memory_ids"] and ids["other"] not in facts["memory_ids"]
    assert len(facts["memory_ids"]) == len(facts["entries"])  # each entry with the memory it came from
    assert 0 < answer["tokens"] <= answer["budget_tokens"] == 1500
    code, out, err, loaded = cli(folder, env, *args)
    assert code == 0 and not loaded, err
    assert "Releases are cut from main on Tuesdays" in out and "Team B" not in out
    code, out, err, _ = cli(folder, env, "recall", "-w", "team-b", "-q", "releases")
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "team-b" in err  # outside the token
    code, out, err, loaded = cli(folder, LOCAL, "recall", "-w", "team-b", "-q", "releases", "--section", "facts")
    assert code == 0 and loaded and "Team B releases" in out, err  # the control: in-process, the model loads
    code, _, err, _ = cli(folder, env, "recall", "-w", "team-a", "--budget", "0")
    assert code == 2 and len(err.splitlines()) == 1 and "budget" in err


@pytest.fixture
def llm() -> Iterator[ChatServer]:
    server = ChatServer().start()
    yield server
    server.stop()


def test_extract_drains_the_servers_queue_with_the_servers_llm(launcher: HttpLauncher, tmp_path: Path, llm: ChatServer) -> None:
    folder = tmp_path / "home"
    # Only the server knows the LLM; its own worker waits an hour between drains, so the drain below is the CLI's.
    served = launcher.start(folder / "knotwork.db", env={"KNOTWORK_KG_LLM_URL": llm.base_url, "KNOTWORK_KG_LLM_MODEL": "toy",
                                                         "KNOTWORK_KG_LLM_WORKER_INTERVAL": "3600"})
    env = port_env(served)
    assert cli(folder, env, "add", "BillingService uses Stripe.", "-w", "shop").code == 0
    code, out, err, loaded = cli(folder, env, "extract", "--status")
    assert code == 0 and not loaded, err
    assert out.startswith("LLM extraction: on · pending 1 · running 0 · done 0 · failed 0"), out
    assert cli(folder, LOCAL, "extract", "--status").out.startswith("LLM extraction: off")  # the control: no LLM here
    code, out, err, _ = cli(folder, env, "extract")
    assert code == 0, err
    assert out.splitlines()[0] == "✓ Extracted 1 memories; 0 to retry, 0 failed; left: nothing"
    assert out.splitlines()[1].startswith("LLM extraction: on · pending 0 · running 0 · done 1")
    assert len(llm.chat_requests) == 1
    code, out, _, _ = cli(folder, env, "extract", "--json", "-n", "5")
    assert code == 0 and json.loads(out) == {"done": 0, "retrying": 0, "failed": 0,
                                             "remaining": {"pending": 0, "running": 0, "failed": 0}}
    assert json.loads(cli(folder, env, "extract", "--status", "--json").out)["counts"]["done"] == 1
    with knotwork.open(folder / "knotwork.db") as mem:  # the server's drain wrote the graph of the store it serves
        assert "Stripe" in [h.entity.name for h in mem.search_nodes("Stripe", workspace="shop")]


def test_extract_is_the_owners_through_a_server(launcher: HttpLauncher, home: tuple[Path, dict[str, str]]) -> None:
    folder, _ = home
    env = port_env(launcher.start(folder / "knotwork.db"), KNOTWORK_API_TOKEN=token_for(folder, "team-a"))
    for args in (("extract",), ("extract", "--status")):
        code, out, err, _ = cli(folder, env, *args)
        assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "extraction queue" in err, args
    assert cli(folder, LOCAL, "extract", "--status").code == 0  # the control: the owner's, in-process
