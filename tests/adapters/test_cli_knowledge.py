"""The knowledge-graph CLI commands, run as the installed ``knotwork`` script (the first add of the long
scenario and every call of the LLM one, each in its own process; the scenario's other calls through the same
entry point in the test's process, with the same environment, to spare a start-up of the parser per call)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

from tests.knowledge._llm_server import ChatServer

NO_EMBEDDER = {"KNOTWORK_EMBEDDER": "none"}


def test_add_with_graph_then_nodes_facts_entity_merge_delete_clear(
    run_cli: Callable[..., CompletedProcess[str]], run_cli_here: Callable[..., CompletedProcess[str]], tmp_path: Path
) -> None:
    db = str(tmp_path / "kg.db")

    def cli(*args: str) -> CompletedProcess[str]:
        return run_cli_here(*args, "--db", db, env=NO_EMBEDDER)

    first = run_cli("add", "We moved from MySQL to PostgreSQL.", "--valid-at", "2026-01-01", "-w", "shop", "--db", db,
                    env=NO_EMBEDDER)
    assert first.returncode == 0, first.stderr
    r = cli("add", "notes", "-w", "shop", "--entity", "Redis:library", "--fact", "Billing|uses|Postgres DB|2026-02-01")
    assert r.returncode == 0, r.stderr
    r = cli("add", "editors", "-w", "shop", "--fact", "Bo|uses|Helix", "--fact", "Bo|uses|Kakoune||0.25")
    assert r.returncode == 0, r.stderr
    assert "Bo --uses--> Kakoune" in cli("facts", "Bo uses", "-w", "shop").stdout
    sure = cli("entity", "Bo", "-w", "shop", "--min-confidence", "0.5")
    assert "Bo --uses--> Helix (" in sure.stdout and "; caller 1) id " in sure.stdout and "--> Kakoune" not in sure.stdout
    assert "Kakoune" not in cli("facts", "Bo uses", "-w", "shop", "--min-confidence", "0.5").stdout
    bad = cli("facts", "Bo", "-w", "shop", "--min-confidence", "2")
    assert bad.returncode == 2 and "--min-confidence" in bad.stderr
    bad = cli("add", "x", "-w", "shop", "--fact", "Bo|uses|Vim||sure")
    assert bad.returncode == 2 and "CONFIDENCE" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    r = cli("facts", "mysql", "-w", "shop", "--include-invalid")
    # the offline extractor's confidence is the fact scorer's probability, shown to two decimals
    assert re.search(r"Team --uses--> MySQL \(… → 2026-01-01, retired; rules (0\.\d\d?|1)\) id ", r.stdout), r.stdout
    assert "Redis [library] @shop" in cli("nodes", "redis", "-w", "shop").stdout
    r = cli("merge-entities", "Postgres DB", "PostgreSQL", "-w", "shop")
    assert r.returncode == 0 and "✓ Merged into" in r.stdout, r.stderr
    shown = json.loads(cli("entity", "postgres", "-w", "shop", "--json").stdout)
    assert {f["fact"] for f in shown["facts"]} >= {"Billing uses PostgreSQL", "Team uses PostgreSQL"} or {
        f["fact"] for f in shown["facts"]
    } >= {"Billing uses Postgres DB", "Team uses Postgres DB"}
    fact_id = json.loads(cli("facts", "billing", "-w", "shop", "--json").stdout)["facts"][0]["fact"]["id"]
    assert cli("delete-fact", fact_id[-8:]).stdout.startswith("✓ Deleted fact Billing")
    groups = cli("communities", "-w", "shop", "--rebuild")
    assert groups.returncode == 0 and "entities) - " in groups.stdout and "Team" in groups.stdout, groups.stderr
    eps = cli("episodes", "-w", "shop").stdout
    assert "We moved from MySQL to PostgreSQL." in eps
    refused = cli("clear-graph", "-w", "shop")
    assert refused.returncode == 2 and "confirm" in refused.stderr
    assert "✓ Cleared the graph of workspace shop" in cli("clear-graph", "-w", "shop", "--yes").stdout
    bad = cli("add", "x", "--fact", "only|two")
    assert bad.returncode == 2 and bad.stderr.startswith("error: fact:")


def test_extract_runs_the_llm_queue_and_shows_it(run_cli: Callable[..., CompletedProcess[str]], tmp_path: Path) -> None:
    server = ChatServer().start()
    try:
        _extract_scenario(run_cli, tmp_path, server)
    finally:
        server.stop()


def _extract_scenario(run_cli: Callable[..., CompletedProcess[str]], tmp_path: Path, server: ChatServer) -> None:
    env = {"KNOTWORK_EMBEDDER": "none", "KNOTWORK_KG_LLM_URL": server.base_url, "KNOTWORK_KG_LLM_MODEL": "toy"}
    db = str(tmp_path / "kg.db")
    assert run_cli("add", "BillingService uses Stripe.", "--db", db, env=env).returncode == 0
    shown = run_cli("extract", "--status", "--db", db, env=env)
    assert shown.stdout.startswith("LLM extraction: on · pending 1 · running 0 · done 0 · failed 0"), shown.stdout
    ran = run_cli("extract", "--db", db, env=env)
    assert ran.returncode == 0 and ran.stdout.startswith("✓ Extracted 1 memories; 0 to retry, 0 failed"), ran.stderr
    counts = json.loads(run_cli("extract", "--status", "--json", "--db", db, env=env).stdout)["counts"]
    assert counts["done"] == 1
