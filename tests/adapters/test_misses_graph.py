"""Misses of the knowledge graph that say where to look: an entity or fact search (and an entity's facts looked up
by name) that finds nothing in the workspace asked about names the other workspaces the caller reads where it
would find something, on every surface (CLI, REST, MCP over HTTP; the web UI reads REST), and never one beyond
the caller's scope; while memories of the scope asked about wait to be read into the graph, it names none.

The store is :mod:`._scoped`'s: shop and lab, each with a memory, entities and a fact, and tokens bound to them.
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
from knotwork.render.respond import Responder
from knotwork.views import elsewhere
from knotwork.views.access import Scope, scoped

from ._mcp import http_session, text
from ._scoped import FAST, OWNER, Store, seed
from .conftest import Endpoint

SHOP_NAME = "Shopfront"  # an entity of shop, and the subject of its one fact
LAB_NAME = "Labrunner"


@pytest.fixture
def store(db: Path, tmp_path: Path) -> Store:
    return seed(db, tmp_path / "tokens.json")


def there(db: Path, operation: str, query: str, workspace: str) -> int:
    """How many results ``operation`` gives for ``query`` asked of ``workspace`` itself, its own records only."""
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        hits = getattr(mem, operation)(query, workspace=workspace)
    return sum(1 for h in hits if (h.entity if operation == "search_nodes" else h.fact).workspace == workspace)


def test_the_service_names_the_workspaces_of_the_callers_scope_alone(db: Path, store: Store) -> None:
    nodes_in_shop, facts_in_shop = there(db, "search_nodes", SHOP_NAME, "shop"), there(db, "search_facts", SHOP_NAME, "shop")
    assert nodes_in_shop >= 1 and facts_in_shop >= 1
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        nodes = elsewhere.search_nodes(mem, SHOP_NAME)  # the global scope holds no such entity
        assert list(nodes) == [] and nodes.elsewhere == {"shop": nodes_in_shop} and nodes.query == SHOP_NAME
        facts = elsewhere.search_facts(mem, SHOP_NAME)
        assert list(facts) == [] and facts.elsewhere == {"shop": facts_in_shop}
        found = elsewhere.search_nodes(mem, SHOP_NAME, workspace="shop")
        assert SHOP_NAME in [h.entity.name for h in found] and found.elsewhere == {}  # found: nothing to add
        assert elsewhere.search_facts(mem, SHOP_NAME, workspace="shop").elsewhere == {}
        assert elsewhere.search_nodes(mem, "Zeppelin").elsewhere == {}  # nowhere at all
        # The caller's options hold elsewhere too: before any fact was true, no workspace has one.
        assert elsewhere.search_facts(mem, SHOP_NAME, as_of="2000-01-01T00:00:00Z").elsewhere == {}
        assert elsewhere.search_nodes(mem, SHOP_NAME, workspace="*").elsewhere == {}  # every workspace: no elsewhere

        lab_bot = scoped(mem, Scope.of(["lab"]))
        assert elsewhere.search_nodes(lab_bot, SHOP_NAME).elsewhere == {}  # shop is beyond its scope
        assert elsewhere.search_facts(lab_bot, SHOP_NAME).elsewhere == {}
        assert elsewhere.search_nodes(lab_bot, LAB_NAME).elsewhere == {"lab": there(db, "search_nodes", LAB_NAME, "lab")}
        both = scoped(mem, Scope.of(["lab", "shop"], write=False))
        assert elsewhere.search_facts(both, SHOP_NAME, workspace="lab").elsewhere == {"shop": facts_in_shop}

        with pytest.raises(NotFound) as missed:
            elsewhere.entity_facts(mem, SHOP_NAME)
        assert missed.value.elsewhere == {"shop": 1}
        assert str(missed.value) == "no entity is named 'Shopfront' here; 1 match in workspace 'shop'; pass workspace=\"shop\""
        with pytest.raises(NotFound) as hidden:
            elsewhere.entity_facts(lab_bot, SHOP_NAME)
        assert hidden.value.elsewhere == {} and str(hidden.value) == "no entity is named 'Shopfront'"
        assert [f.id for f in elsewhere.entity_facts(mem, SHOP_NAME, workspace="shop")] == [store.shop_fact]


def test_a_graph_with_memories_waiting_says_so_instead_of_pointing_elsewhere(db: Path, store: Store, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "lib", enrich="background", embedder="none", enrich_close_wait=0)
    with knotwork.open(db, settings=settings) as mem:
        mem.enrichment.stop()  # nothing is read in: what is queued stays queued
        mem.add("Shopfront ships the catalogue on Mondays.", workspace="lab")  # waits in lab, not in the global scope
        assert mem.graph_backlog({""}) == 0 and mem.graph_backlog({"lab"}) == 1
        respond = Responder(mem)
        assert elsewhere.search_nodes(mem, SHOP_NAME).elsewhere == {"shop": there(db, "search_nodes", SHOP_NAME, "shop")}
        waiting = elsewhere.search_nodes(mem, SHOP_NAME, workspace="lab")  # lab's answer may be among the queued
        assert list(waiting) == [] and waiting.elsewhere == {}
        said = respond("search_nodes", waiting)
        assert said == 'No entities found for "Shopfront".\n(graph: 1 memory not read in yet; this answer is without them)'
        facts = elsewhere.search_facts(mem, SHOP_NAME, workspace="lab")
        assert facts.elsewhere == {} and json.loads(respond("search_facts", facts, "json")) == {"query": SHOP_NAME, "facts": []}
        mem.add("Every shop front opens at nine.")  # now the global scope waits too
        assert elsewhere.search_facts(mem, SHOP_NAME).elsewhere == {}


def test_the_cli_says_where_and_how_to_pass_it(run_cli: Callable, run_cli_here: Callable, db: Path, store: Store) -> None:
    nodes_in_shop, facts_in_shop = there(db, "search_nodes", SHOP_NAME, "shop"), there(db, "search_facts", SHOP_NAME, "shop")
    nodes = run_cli("nodes", SHOP_NAME, "--db", str(db), env=FAST)
    assert nodes.returncode == 0
    plural = "match" if nodes_in_shop == 1 else "matches"
    assert nodes.stdout.strip() == f"No entities found for \"Shopfront\" here; {nodes_in_shop} {plural} in workspace 'shop'; pass -w shop."
    as_json = run_cli_here("nodes", SHOP_NAME, "--db", str(db), "--json", env=FAST)
    assert json.loads(as_json.stdout) == {"query": SHOP_NAME, "entities": [], "elsewhere": {"shop": nodes_in_shop}}
    facts = run_cli_here("facts", SHOP_NAME, "--db", str(db), "--json", env=FAST)
    assert json.loads(facts.stdout) == {"query": SHOP_NAME, "facts": [], "elsewhere": {"shop": facts_in_shop}}
    found = run_cli_here("facts", SHOP_NAME, "--db", str(db), "-w", "shop", env=FAST)
    assert "Shopfront --deploys_with--> Bluegreen" in found.stdout and "pass -w" not in found.stdout
    nowhere = run_cli_here("facts", "Zeppelin", "--db", str(db), env=FAST)
    assert nowhere.returncode == 0 and nowhere.stdout.strip() == 'No facts found for "Zeppelin".'


def test_rest_and_mcp_name_the_workspaces_a_token_reads_and_no_other(
    start_http: Callable[..., Endpoint], db: Path, store: Store
) -> None:
    assert store.book is not None
    nodes_in_shop, facts_in_shop = there(db, "search_nodes", SHOP_NAME, "shop"), there(db, "search_facts", SHOP_NAME, "shop")
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)})

    def ask(token: str, method: str, path: str, **kw: object) -> httpx2.Response:
        with httpx2.Client(base_url=server.base_url, timeout=30, headers={"authorization": f"Bearer {token}"}) as http:
            return http.request(method, path, **kw)

    lab = store.tokens["lab"]
    owner = ask(OWNER, "POST", "/search/entities", json={"query": SHOP_NAME})
    assert owner.json() == {"query": SHOP_NAME, "entities": [], "elsewhere": {"shop": nodes_in_shop}}
    facts = ask(OWNER, "POST", "/search/facts", json={"query": SHOP_NAME})
    assert facts.json() == {"query": SHOP_NAME, "facts": [], "elsewhere": {"shop": facts_in_shop}}
    compact = ask(OWNER, "POST", "/search/facts?format=compact", json={"query": SHOP_NAME})
    plural = "match" if facts_in_shop == 1 else "matches"
    assert compact.text == f"No facts found for \"Shopfront\" here; {facts_in_shop} {plural} in workspace 'shop'; pass workspace=\"shop\"."
    hidden_nodes = ask(lab, "POST", "/search/entities", json={"query": SHOP_NAME})
    hidden_facts = ask(lab, "POST", "/search/facts?format=compact", json={"query": SHOP_NAME})
    assert hidden_nodes.json() == {"query": SHOP_NAME, "entities": []}  # what a search that matches nowhere answers
    assert hidden_facts.text == 'No facts found for "Shopfront".'
    assert ask(lab, "POST", "/search/entities", json={"query": LAB_NAME}).json()["elsewhere"] == {
        "lab": there(db, "search_nodes", LAB_NAME, "lab")
    }

    missed = ask(OWNER, "GET", "/entities/Shopfront/facts")
    assert missed.status_code == 404
    assert missed.json()["error"]["message"].endswith("here; 1 match in workspace 'shop'; pass workspace=\"shop\"")
    hidden = ask(lab, "GET", "/entities/Shopfront/facts")
    assert hidden.status_code == 404 and hidden.json()["error"]["message"] == "no entity is named 'Shopfront'"
    answers = [(SHOP_NAME, r.text) for r in (hidden_nodes, hidden_facts, hidden)]
    assert store.leaked(answers) == [] and all("shop" not in r.text for r in (hidden_nodes, hidden_facts, hidden))

    async def mcp(token: str) -> list[str]:
        async with http_session(server.base_url, token)() as session:
            return [
                text(await session.call_tool("search_nodes", {"query": SHOP_NAME})),
                text(await session.call_tool("search_facts", {"query": SHOP_NAME, "format": "json"})),
            ]

    said, as_json = asyncio.run(mcp(OWNER))
    nodes_plural = "match" if nodes_in_shop == 1 else "matches"
    assert said == f"No entities found for \"Shopfront\" here; {nodes_in_shop} {nodes_plural} in workspace 'shop'; pass workspace=\"shop\"."
    assert json.loads(as_json)["elsewhere"] == {"shop": facts_in_shop}
    lab_said, lab_json = asyncio.run(mcp(lab))
    assert lab_said == 'No entities found for "Shopfront".' and "elsewhere" not in json.loads(lab_json)
    assert store.leaked([(SHOP_NAME, lab_said), (SHOP_NAME, lab_json)]) == [] and "shop" not in lab_said + lab_json


def test_a_fact_search_that_hides_only_less_sure_facts_says_how_many(
    run_cli: Callable, run_cli_here: Callable, start_http: Callable[..., Endpoint], tmp_path: Path
) -> None:
    """`knotwork facts "Valkey" -w ledgerly` (the example of `knotwork --help`) after the README's add: the one
    fact extracted is less sure than a read shows by default; the miss says so, and how to see it, on the CLI,
    REST and MCP alike (through the server: its count, carried)."""
    db = tmp_path / "ledgerly.db"
    with knotwork.open(db, settings=Settings(embedder="none", enrich="inline")) as mem:
        mem.add("Session tokens are cached in Valkey for 15 minutes.", workspace="ledgerly", category="decision")
        shown = mem.search_facts("Valkey", workspace="ledgerly")
        stored = mem.search_facts("Valkey", workspace="ledgerly", min_confidence=0)
    assert len(shown) == 0 and len(stored) == 1  # the case: extracted, and below the default
    said = run_cli("facts", "Valkey", "-w", "ledgerly", "--db", str(db), env=FAST)
    assert said.returncode == 0
    assert said.stdout.strip() == 'No facts found for "Valkey" (1 less sure fact hidden; pass --min-confidence 0 to see it).'
    assert json.loads(run_cli_here("facts", "Valkey", "-w", "ledgerly", "--db", str(db), "--json", env=FAST).stdout)["less_sure"] == 1
    assert "less sure" not in run_cli_here("facts", "Valkey", "-w", "ledgerly", "--min-confidence", "0", "--db", str(db), env=FAST).stdout
    assert run_cli_here("facts", "Zeppelin", "-w", "ledgerly", "--db", str(db), env=FAST).stdout.strip() == 'No facts found for "Zeppelin".'

    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER})
    with httpx2.Client(base_url=server.base_url, timeout=30, headers={"authorization": f"Bearer {OWNER}"}) as http:
        assert http.post("/search/facts", json={"query": "Valkey", "workspace": "ledgerly"}).json() == {
            "query": "Valkey", "facts": [], "less_sure": 1}
        assert http.post("/search/facts?format=compact", json={"query": "Valkey", "workspace": "ledgerly"}).text == (
            'No facts found for "Valkey" (1 less sure fact hidden; pass min_confidence=0 to see it).')

    async def mcp() -> str:
        async with http_session(server.base_url, OWNER)() as session:
            return text(await session.call_tool("search_facts", {"query": "Valkey", "workspace": "ledgerly"}))

    assert asyncio.run(mcp()) == 'No facts found for "Valkey" (1 less sure fact hidden; pass min_confidence=0 to see it).'
