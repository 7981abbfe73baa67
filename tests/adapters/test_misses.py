"""Misses that say where to look: a memory search or an entity lookup by name that finds nothing in the
workspace asked about names the other workspaces the caller reads where it would find something, on every
surface (CLI, REST, MCP over HTTP; the web UI reads REST), and never one beyond the caller's scope.

The store is :mod:`._scoped`'s: shop and lab, each with a memory and an entity, and tokens bound to them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Settings
from knotwork.errors import NotFound
from knotwork.views import elsewhere
from knotwork.views.access import Scope, scoped

from ._mcp import http_session, text
from ._scoped import FAST, OWNER, SHOP_TEXT, Store, seed
from .conftest import Endpoint

SHOP_QUERY = "blue-green releases"
LAB_QUERY = "Fridays"


@pytest.fixture
def store(db: Path, tmp_path: Path) -> Store:
    return seed(db, tmp_path / "tokens.json")


def test_the_service_names_the_workspaces_of_the_callers_scope_alone(db: Path, store: Store) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        owner = elsewhere.search(mem, SHOP_QUERY)  # the global scope holds no such memory
        assert list(owner) == [] and owner.elsewhere == {"shop": 1}
        assert elsewhere.search(mem, SHOP_QUERY, workspace="shop").elsewhere == {}  # found: nothing to add
        found = elsewhere.search(mem, SHOP_QUERY, workspace="shop")
        assert [h.memory.id for h in found] == [store.shop]
        assert elsewhere.search(mem, "zeppelin mooring masts").elsewhere == {}  # nowhere at all

        lab_bot = scoped(mem, Scope.of(["lab"]))
        assert elsewhere.search(lab_bot, SHOP_QUERY).elsewhere == {}  # shop is beyond its scope
        assert elsewhere.search(lab_bot, LAB_QUERY).elsewhere == {"lab": 1}
        both = scoped(mem, Scope.of(["lab", "shop"], write=False))
        assert elsewhere.search(both, SHOP_QUERY, workspace="lab").elsewhere == {"shop": 1}

        with pytest.raises(NotFound) as missed:
            elsewhere.entity(mem, "Shopfront")
        assert missed.value.by == "name" and missed.value.elsewhere == {"shop": 1}
        assert str(missed.value) == "no entity is named 'Shopfront' here; 1 match in workspace 'shop'; pass workspace=\"shop\""
        with pytest.raises(NotFound) as hidden:
            elsewhere.entity(lab_bot, "Shopfront")
        assert hidden.value.elsewhere == {} and str(hidden.value) == "no entity is named 'Shopfront'"
        with pytest.raises(NotFound) as by_id:
            elsewhere.entity(lab_bot, store.shop_entity)  # shop's entity by its id: as if there were none
        assert str(by_id.value) == f"no entity has the name or id {store.shop_entity!r}"


def test_the_cli_says_where_and_how_to_pass_it(run_cli: Callable, run_cli_here: Callable, db: Path, store: Store) -> None:
    found = run_cli("search", SHOP_QUERY, "--db", str(db), env=FAST)
    assert found.returncode == 0
    assert found.stdout.strip() == "No matching memories here; 1 match in workspace 'shop'; pass -w shop."
    as_json = run_cli_here("search", SHOP_QUERY, "--db", str(db), "--json", env=FAST)
    assert json.loads(as_json.stdout) == {"hits": [], "elsewhere": {"shop": 1}}
    there = run_cli_here("search", SHOP_QUERY, "--db", str(db), "-w", "shop", env=FAST)
    assert "blue-green" in there.stdout and "pass -w" not in there.stdout

    entity = run_cli_here("entity", "Shopfront", "--db", str(db), env=FAST)
    assert entity.returncode == 2
    assert entity.stderr.strip() == "error: no entity is named 'Shopfront' here; 1 match in workspace 'shop'; pass -w shop"
    nowhere = run_cli_here("entity", "Zeppelin", "--db", str(db), env=FAST)
    assert nowhere.returncode == 2 and nowhere.stderr.strip() == "error: no entity is named 'Zeppelin'"


def test_rest_names_the_workspaces_a_token_reads_and_no_other(
    start_http: Callable[..., Endpoint], db: Path, store: Store
) -> None:
    assert store.book is not None
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)})

    def ask(token: str, method: str, path: str, **kw: object) -> httpx2.Response:
        with httpx2.Client(base_url=server.base_url, timeout=30, headers={"authorization": f"Bearer {token}"}) as http:
            return http.request(method, path, **kw)

    owner = ask(OWNER, "POST", "/search", json={"query": SHOP_QUERY})
    assert owner.json() == {"hits": [], "elsewhere": {"shop": 1}}
    compact = ask(OWNER, "POST", "/search?format=compact", json={"query": SHOP_QUERY})
    assert compact.text == "No matching memories here; 1 match in workspace 'shop'; pass workspace=\"shop\"."
    lab = ask(store.tokens["lab"], "POST", "/search", json={"query": SHOP_QUERY})
    assert lab.json() == {"hits": []}  # exactly what a search that matches nowhere answers
    assert ask(store.tokens["lab"], "POST", "/search", json={"query": "zeppelin"}).json() == {"hits": []}
    assert ask(store.tokens["lab"], "POST", "/search", json={"query": LAB_QUERY}).json()["elsewhere"] == {"lab": 1}

    missed = ask(OWNER, "GET", "/entities/Shopfront")
    assert missed.status_code == 404 and "1 match in workspace 'shop'" in missed.json()["error"]["message"]
    hidden = ask(store.tokens["lab"], "GET", "/entities/Shopfront")
    assert hidden.status_code == 404 and hidden.json()["error"]["message"] == "no entity is named 'Shopfront'"
    assert store.leaked([lab.text, ("/entities/Shopfront", hidden.text)]) == []

    async def mcp(token: str) -> tuple[str, str]:
        async with http_session(server.base_url, token)() as session:
            miss = text(await session.call_tool("search_memory", {"query": SHOP_QUERY}))
            as_json = text(await session.call_tool("search_memory", {"query": SHOP_QUERY, "format": "json"}))
        return miss, as_json

    said, as_json = asyncio.run(mcp(OWNER))
    assert said == "No matching memories here; 1 match in workspace 'shop'; pass workspace=\"shop\"."
    assert json.loads(as_json)["elsewhere"] == {"shop": 1}
    lab_said, _ = asyncio.run(mcp(store.tokens["lab"]))
    assert lab_said == "No matching memories." and store.leaked([lab_said]) == []
    assert SHOP_TEXT not in lab_said


def test_an_empty_listing_names_the_workspaces_that_hold_memories_in_the_callers_scope(tmp_path: Path) -> None:
    """``list`` without a workspace (the global scope) in a store whose memories are all in workspaces says where
    they are, with the same filters, and never beyond the caller's scope; a later page, or a listing of every
    workspace, adds nothing."""
    with knotwork.open(tmp_path / "store.db", settings=Settings(embedder="none")) as mem:
        mem.add_many([{"content": f"shop note {i}", "workspace": "shop", "category": "decision" if i else None} for i in range(3)]
                     + [{"content": "lab note", "workspace": "lab"}], consolidate=False)
        owner = elsewhere.listed(mem)
        assert list(owner) == [] and owner.elsewhere == {"shop": 3, "lab": 1}
        assert owner.to_dict() == {"memories": [], "next_cursor": None, "elsewhere": {"shop": 3, "lab": 1}}
        assert elsewhere.listed(mem, category="decision").elsewhere == {"shop": 2}  # the listing's filters apply
        assert elsewhere.listed(mem, category="lesson").elsewhere == {}
        typo = elsewhere.listed(mem, workspace="shpo")
        assert typo.unknown_workspace == "shpo" and typo.elsewhere == {"shop": 3, "lab": 1}
        assert elsewhere.listed(mem, workspace="shop").elsewhere == {}  # found: nothing to add
        assert elsewhere.listed(mem, workspace="*").elsewhere == {}
        lab_bot = scoped(mem, Scope.of(["lab"]))
        assert elsewhere.listed(lab_bot).elsewhere == {"lab": 1}  # shop is beyond its scope
        later = mem.list(workspace="*", limit=1).next_cursor  # a later page that is empty ends a listing
        assert later and elsewhere.listed(mem, cursor=later).elsewhere == {}
