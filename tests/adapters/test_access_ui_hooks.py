"""Workspaces as an access boundary for the web UI's data (``/ui/api/…``) and the hooks (``knotwork hook``,
which asks the running server's ``POST /tools/ambient_recall`` with ``KNOTWORK_API_TOKEN``), on a real
``knotwork serve`` with tokens bound to workspaces."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Settings

from ._scoped import FAST, OWNER, Store, seed
from .conftest import Endpoint

# What shop's memories alone carry: names a caller limited to lab must not learn from the pickers or counts.
SHOP_NAMES = ("shopcategory", "shopagent", "shoptag")


@pytest.fixture
def served(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> tuple[str, Store]:
    store = seed(db, tmp_path / "tokens.json")
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add("The shop's tagged note", workspace="shop", category="shopcategory", agent_id="shopagent",
                tags={"shoptag": "yes"})
        mem.add("The lab's tagged note", workspace="lab", category="labcategory", tags={"labtag": "yes"})
    assert store.book is not None
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)})
    return str(server.base_url), store


def client(url: str, token: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, timeout=30, headers={"authorization": f"Bearer {token}"})


def test_the_web_uis_data_stays_in_the_callers_scope(served: tuple[str, Store]) -> None:
    url, s = served
    with client(url, s.tokens["lab"]) as lab:
        choices = lab.get("/ui/api/choices").json()
        assert choices["workspaces"] == ["lab"] and "labcategory" in choices["categories"]
        tags = lab.get("/ui/api/tags").json()["tags"]
        assert "labtag" in tags
        activity = lab.get("/ui/api/activity", params={"bucket": "year"})
        assert activity.status_code == 200 and "labcategory" in activity.text
        graph = lab.get("/ui/api/knowledge", params={"workspace": "lab"})
        assert graph.status_code == 200 and "Labrunner" in graph.text
        knowledge = lab.get(f"/ui/api/memories/{s.lab}/knowledge")
        assert knowledge.status_code == 200 and "Labrunner" in knowledge.text
        answers = [json.dumps(choices), json.dumps(tags), activity.text, graph.text, knowledge.text,
                   lab.get("/ui/api/latency").text]
        assert not [n for n in ("shop", *SHOP_NAMES) for a in answers if n in a]
        assert s.leaked(answers) == []
        for ref in (s.shop, s.shop[-10:]):
            assert lab.get(f"/ui/api/memories/{ref}/knowledge").status_code == 404
        for ws in ("shop", "*"):
            refused = lab.get("/ui/api/knowledge", params={"workspace": ws})
            assert refused.status_code == 403 and refused.json()["error"]["field"] == "workspace"
    with client(url, OWNER) as owner:  # the owner's pickers offer every workspace's
        choices = owner.get("/ui/api/choices").json()
        assert {"lab", "shop"} <= set(choices["workspaces"]) and "shopcategory" in choices["categories"]
        assert "shopagent" in choices["agents"] and "shoptag" in owner.get("/ui/api/tags").json()["tags"]


def hook_input(project: Path) -> str:
    return json.dumps({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
                       "hook_event_name": "SessionStart", "source": "startup"})


def prompt_input(project: Path, prompt: str) -> str:
    return json.dumps({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt})


def test_hooks_ask_the_server_in_the_scope_of_their_token(served: tuple[str, Store], run_cli, db: Path, tmp_path: Path) -> None:
    url, s = served
    project = tmp_path / "lab"
    project.mkdir()
    env = {**FAST, "KNOTWORK_DB": str(db), "KNOTWORK_API_TOKEN": s.tokens["lab"]}  # the server's store: hooks ask it
    own = run_cli("hook", "session-start", "-w", "lab", "--format", "text", input=hook_input(project), env=env)
    assert own.returncode == 0, own.stderr
    assert "Fridays" in own.stdout and "blue-green" not in own.stdout
    named = run_cli("hook", "session-start", "--format", "text", input=hook_input(project), env=env)  # "lab", from cwd
    assert named.returncode == 0 and "Fridays" in named.stdout
    asked = run_cli("hook", "user-prompt", "-w", "lab", "--format", "text",
                    input=prompt_input(project, "how does the shop deploy with blue-green releases?"), env=env)
    assert asked.returncode == 0 and "The shop deploys" not in asked.stdout
    for kind, given in (("session-start", hook_input(project)), ("user-prompt", prompt_input(project, "deploys"))):
        other = run_cli("hook", kind, "-w", "shop", input=given, env=env)
        assert other.returncode == 1 and other.stdout == ""  # reported, not answered from the file in-process
        assert other.stderr.count("\n") == 1 and "outside this caller's scope" in other.stderr
    stranger = run_cli("hook", "session-start", "-w", "lab", input=hook_input(project), env={**env, "KNOTWORK_API_TOKEN": "kw_x"})
    assert stranger.returncode == 1 and "missing or wrong bearer token" in stranger.stderr
