"""The Python API, the ``knotwork`` command and the MCP server agree on one database file.

And the command's bad-input contract: exit code 2, nothing on stdout,
exactly one ``error: ...`` line on stderr naming the problem, nothing written.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork, NotFound

from ._mcp import ABSENT_ID, ID_RE, err, ok, ok_json, run, snapshot
from .conftest import Endpoint

Cli = Callable[..., subprocess.CompletedProcess[str]]


def succeeded(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"exit {result.returncode}; stderr: {result.stderr!r}"
    assert result.stderr == "", result.stderr
    return result.stdout


def test_api_mcp_and_cli_agree_on_one_file(db: Path, start_stdio: Callable[..., Endpoint], run_cli: Cli) -> None:
    with knotwork.open(db) as mem:
        first = mem.add(
            "Invoices are archived after seven years", workspace="shop", category="Policy", tags={"team": "finance"}
        )
    server = start_stdio(db)

    async def scenario() -> str:
        async with server.client() as client:
            # added through the API, found and changed through MCP
            hits = (await ok_json(client, "search_memory", {"query": "how long are invoices archived", "workspace": "shop"}))["hits"]
            assert [h["memory"]["id"] for h in hits] == [first.id]
            assert hits[0]["memory"] == first.to_dict()
            assert first.id not in await ok(client, "search_memory", {"query": "invoices archived", "workspace": "other"})
            changed = await ok_json(
                client, "update_memory", {"id": first.id[-8:], "content": "Invoices are archived after ten years"}
            )
            assert changed["version"] == 2

            # read and deleted through the CLI while the MCP server holds the file open
            shown = succeeded(await asyncio.to_thread(run_cli, "get", first.id[-8:], "--db", str(db)))
            lines = shown.splitlines()
            assert lines[0].startswith(f"{first.id} [policy] @shop v2")
            assert "tags: team=finance" in lines
            assert lines[-1] == "Invoices are archived after ten years"
            as_json = json.loads(succeeded(await asyncio.to_thread(run_cli, "get", first.id, "--db", str(db), "--json")))
            assert as_json == changed
            history = succeeded(await asyncio.to_thread(run_cli, "history", first.id, "--db", str(db)))
            said = [ln.split(" - ", 1)[1] for ln in history.splitlines()]  # the first text, then what v2 changed
            assert said[0] == "Invoices are archived after seven years"
            assert said[1].startswith("content: Invoices are archived after ten years") and len(said) == 2
            deleted = succeeded(await asyncio.to_thread(run_cli, "delete", first.id, "--db", str(db)))
            assert deleted.strip() == f"✓ Deleted {first.id} - Invoices are archived after ten years"

            # every adapter now agrees it is gone
            missing = await err(client, "get_memory", {"id": first.id})
            assert first.id in missing
            after = await ok_json(client, "search_memory", {"query": "how long are invoices archived", "workspace": "shop"})
            assert first.id not in [h["memory"]["id"] for h in after["hits"]]  # the server's search saw the CLI's delete
            again = await asyncio.to_thread(run_cli, "get", first.id, "--db", str(db))
            assert again.returncode == 2 and first.id in again.stderr

            # added by the CLI (content from stdin), found through MCP
            added = succeeded(
                await asyncio.to_thread(
                    run_cli, "add", "-", "--db", str(db), "-w", "shop", "-c", "policy", "--tag", "team=finance",
                    "--tag", "urgent", "--evidence", "ADR-7", input="Refunds above 500 EUR need a second approver\n",
                )
            )
            assert added.startswith("✓ Stored ")
            (second,) = ID_RE.findall(added)
            hits = (await ok_json(client, "search_memory", {"query": "refunds approver", "workspace": "shop"}))["hits"]
            assert [h["memory"]["id"] for h in hits] == [second]
            got = await ok_json(client, "get_memory", {"id": second[-8:]})
            assert got["content"] == "Refunds above 500 EUR need a second approver"
            assert (got["workspace"], got["category"], got["tags"], got["evidence"]) == (
                "shop", "policy", {"team": "finance", "urgent": ""}, ["ADR-7"]
            )
            listed = await ok_json(client, "list_memories", {"workspace": "shop", "tags": {"team": "finance"}})
            assert [m["id"] for m in listed["memories"]] == [second]
            return second

    second = run(scenario())
    with knotwork.open(db) as mem:
        with pytest.raises(NotFound):
            mem.get(first.id)
        assert mem.store.memory_versions(first.id) == []
        m = mem.get(second)
        assert m.content == "Refunds above 500 EUR need a second approver"
        assert m.tags == {"team": "finance", "urgent": ""}
        assert [h.memory.id for h in mem.search("second approver", workspace="shop")] == [second]
        assert mem.store.count_memories() == 1


# -- the CLI's bad-input contract --------------------------------------------
def _ambiguous_pair(mem: Knotwork) -> tuple[str, str]:
    for attempt in range(10):  # add_many draws the ids back to back; retry if they straddle a prefix change
        a, b = (m.id for m in mem.add_many([{"content": f"ambiguous {attempt} first"}, {"content": f"ambiguous {attempt} second"}]))
        if a[:8] == b[:8]:
            return a, b
    pytest.fail("could not create two memories whose ids share an 8-character prefix")


def fill(template: str, names: dict[str, str]) -> str:
    for key, value in names.items():
        template = template.replace("{" + key + "}", value)
    return template


BAD_INPUT = [
    pytest.param(["add", ""], ["content", "empty"], id="empty-content"),
    pytest.param(["add", "x", "--tag", "bad key=v"], ["tags", "bad key"], id="tag-key-with-space"),
    pytest.param(["add", "x", "--valid-at", "yesterday-ish"], ["valid_at", "yesterday-ish"], id="bad-date"),
    pytest.param(["add", "x", "-w", "bad workspace!"], ["workspace", "bad workspace!"], id="bad-workspace"),
    pytest.param(["add", "x", "--metadata", "{not json"], ["metadata", "JSON"], id="bad-metadata-json"),
    pytest.param(["get", ABSENT_ID], ["no memory", ABSENT_ID], id="unknown-id-get"),
    pytest.param(["delete", ABSENT_ID[:8]], ["no memory", ABSENT_ID[:8]], id="unknown-id-delete"),
    pytest.param(["get", "abc"], ["'abc'", "not an id"], id="malformed-id"),
    pytest.param(["get", "{prefix}"], ["ambiguous", "{a}", "{b}"], id="ambiguous-id-get"),
    pytest.param(["delete", "{prefix}"], ["ambiguous", "{a}", "{b}"], id="ambiguous-id-delete"),
    pytest.param(["update", "{a}"], ["nothing to change"], id="update-without-changes"),
    pytest.param(["list", "--tag", "bad key"], ["tags", "bad key"], id="list-bad-tag-filter"),
]


@pytest.mark.parametrize(("args", "expected"), BAD_INPUT)
def test_cli_bad_input_exits_2_with_one_error_line(
    api: Knotwork, db: Path, run_cli: Cli, args: list[str], expected: list[str]
) -> None:
    a, b = _ambiguous_pair(api)
    names = {"prefix": a[:8], "a": a, "b": b}
    before = snapshot(db)

    result = run_cli(*[fill(arg, names) for arg in args], "--db", str(db))

    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    for fragment in expected:
        assert fill(fragment, names) in lines[0], lines[0]
    assert snapshot(db) == before


def test_cli_usage_errors_are_exit_2_and_one_line(db: Path, run_cli: Cli) -> None:
    for args in (["add"], ["list", "--limit", "many"]):
        result = run_cli(*args, "--db", str(db))
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)


def test_ambiguous_id_error_counts_every_match(api: Knotwork, db: Path, run_cli: Cli) -> None:
    """Regression: the store fetched at most 11 matches, so past ten the error always said "and 1 more"."""
    for attempt in range(10):
        ids = [m.id for m in api.add_many([{"content": f"crowd {attempt} {i}"} for i in range(15)])]
        prefix = ids[0][:8]
        if all(i[:8] == prefix for i in ids):
            break
    else:
        pytest.fail("could not create 15 memories whose ids share an 8-character prefix")
    sharing = [m.id for m in api.store.iter_memories() if m.id.startswith(prefix)]
    assert len(sharing) >= 15

    result = run_cli("get", prefix, "--db", str(db))

    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "ambiguous" in line
    shown = [i for i in sharing if i in line]
    assert len(shown) == 10  # the first ten are named...
    said = re.search(r"and (\d+) more", line)
    if said:  # ...and the rest are counted right, if they are counted at all
        assert int(said.group(1)) == len(sharing) - 10, line
    else:
        assert "more" in line, line
