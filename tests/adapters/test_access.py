"""Workspaces as an access boundary, through every surface of a real ``knotwork serve``.

One server, an owner's token (``KNOTWORK_API_TOKEN``) and tokens bound to workspaces (``knotwork token
create``): each scoped caller tries every read and write on another workspace's memory by full and short id,
over REST (which the web UI and the hooks use) and MCP over HTTP, and must get "not found" or a refusal,
never the memory; its own workspace and the global scope still work.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import knotwork
from knotwork import Settings
from knotwork.adapters.credentials import TokenBook
from knotwork.services.access import Scope

from ._mcp import text
from .conftest import Endpoint

OWNER = "owner-token"
FAST = {"KNOTWORK_EMBEDDER": "none"}


@pytest.fixture
def served(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> dict:
    """A store with memories in shop, lab and the global scope; a server with an owner's token and three others."""
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        shop = mem.add("The shop deploys with blue-green releases", workspace="shop")
        lab = mem.add("The lab deploys on Fridays", workspace="lab")
        glob = mem.add("Every service deploys from main")
        # Added in one batch, their ids share their first 8 characters (a ~1 s time bucket) unless the batch
        # straddles a bucket's edge: then once more, with new texts.
        for attempt in range(5):
            bucket = mem.add_many([{"content": f"bucket note {i} of {ws}, take {attempt}", "workspace": ws}
                                   for ws in ("shop", "lab") for i in range(3)])
            if len({m.id[:8] for m in bucket}) == 1:
                break
        link = mem.link(shop.id, glob.id, "references")
    book = TokenBook(tmp_path / "tokens.json")
    tokens = {
        "lab": book.create("lab-bot", ["lab"]),
        "shop-read": book.create("shop-reader", ["shop"], write=False),
        "shop": book.create("shop-bot", ["shop", "@global"]),
    }
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(book.path)})
    return {"url": server.base_url, "book": book, "tokens": tokens, "shop": shop.id, "lab": lab.id, "global": glob.id,
            "bucket": [m.id for m in bucket], "link": link.id}


def client(served: dict, token: str) -> httpx2.Client:
    return httpx2.Client(base_url=served["url"], timeout=30, headers={"authorization": f"Bearer {token}"})


def test_another_workspaces_memory_is_not_found_over_rest(served: dict) -> None:
    shop, short = served["shop"], served["shop"][-10:]
    with client(served, served["tokens"]["lab"]) as lab:
        for ref in (shop, short):
            assert lab.get(f"/memories/{ref}").status_code == 404
            assert lab.get(f"/memories/{ref}/history").status_code == 404
            assert lab.get(f"/memories/{ref}/related").status_code == 404
            assert lab.get(f"/memories/{ref}/graph").status_code == 404
            assert lab.patch(f"/memories/{ref}", json={"content": "taken over"}).status_code == 404
            assert lab.delete(f"/memories/{ref}").status_code == 404
        assert lab.post("/links", json={"from_id": served["lab"], "to_id": shop, "type": "relates_to"}).status_code == 404
        for body in ({"query": "deploys", "workspace": "shop"}, {"query": "deploys", "workspace": "*"}):
            refused = lab.post("/search", json=body)
            assert refused.status_code == 400 and "scope" in refused.json()["error"]["message"]
        assert lab.get("/memories", params={"workspace": "shop"}).status_code == 400
        assert lab.post("/memories", json={"content": "planted", "workspace": "shop"}).status_code == 400
        assert lab.post("/memories", json={"content": "planted in global"}).status_code == 400
        exported = [json.loads(line) for line in lab.get("/export").text.splitlines()]
        assert {r["workspace"] for r in exported} == {"lab", None} and served["lab"] in {r["id"] for r in exported}
        assert lab.post("/tools/ambient_recall", json={"workspace": "shop"}).status_code == 400
        # its own workspace and the global scope work as before
        found = lab.post("/search", json={"query": "deploys", "workspace": "lab"}).json()["hits"]
        assert {h["memory"]["id"] for h in found} == {served["lab"], served["global"]}
        assert lab.get(f"/memories/{served['global']}").status_code == 200
        assert lab.patch(f"/memories/{served['global']}", json={"content": "changed"}).status_code == 400
        assert lab.post("/memories", json={"content": "A lab note", "workspace": "lab"}).status_code == 201
        recalled = lab.post("/tools/ambient_recall", json={"workspace": "lab"}).json()
        assert "blue-green" not in json.dumps(recalled)
    with client(served, OWNER) as owner:  # nothing of shop's was changed or added
        assert owner.get(f"/memories/{shop}").json()["content"] == "The shop deploys with blue-green releases"
        assert owner.get("/memories", params={"workspace": "shop"}).json()["memories"][0]["content"] != "planted"
        assert "planted" not in json.dumps(owner.get("/memories", params={"workspace": "*", "limit": 100}).json())


def test_related_and_links_stop_at_the_scope(served: dict) -> None:
    with client(served, served["tokens"]["shop"]) as shop:
        related = shop.get(f"/memories/{served['shop']}/related").json()["related"]
        assert [r["memory"]["id"] for r in related] == [served["global"]]
    with client(served, served["tokens"]["lab"]) as lab:  # the global end is visible, the shop end is not
        assert lab.get(f"/memories/{served['global']}/related").json()["related"] == []
        for ref in (served["link"], served["link"][-10:]):
            assert lab.delete(f"/links/{ref}").status_code == 404
    with client(served, served["tokens"]["shop"]) as shop:
        assert shop.delete(f"/links/{served['link'][-10:]}").status_code == 200


def test_a_short_id_resolves_within_the_scope_only(served: dict) -> None:
    prefix = served["bucket"][0][:8]
    assert all(mid.startswith(prefix) for mid in served["bucket"])
    shop_ids, lab_ids = served["bucket"][:3], served["bucket"][3:]
    with client(served, served["tokens"]["lab"]) as lab:
        ambiguous = lab.get(f"/memories/{prefix}")
        assert ambiguous.status_code == 400
        body = json.dumps(ambiguous.json())
        assert not any(mid in body for mid in shop_ids) and any(mid in body for mid in lab_ids)
        assert lab.get(f"/memories/{lab_ids[0][-12:]}").json()["id"] == lab_ids[0]


def test_a_read_only_token_reads_and_writes_nothing(served: dict) -> None:
    with client(served, served["tokens"]["shop-read"]) as reader:
        assert reader.get(f"/memories/{served['shop']}").status_code == 200
        refused = reader.patch(f"/memories/{served['shop']}", json={"content": "x"})
        assert refused.status_code == 400 and "read only" in refused.json()["error"]["message"]
        assert reader.post("/memories", json={"content": "x", "workspace": "shop"}).status_code == 400
        assert reader.delete(f"/memories/{served['shop']}").status_code == 400
        assert reader.get(f"/memories/{served['lab']}").status_code == 404


def test_a_revoked_or_unknown_token_is_refused(served: dict) -> None:
    with client(served, served["tokens"]["lab"]) as lab:
        assert lab.get("/status").status_code == 200
        served["book"].revoke("lab-bot")
        assert lab.get("/status").status_code == 401
    with client(served, "kw_not-a-token") as stranger:
        assert stranger.get(f"/memories/{served['global']}").status_code == 401


def test_mcp_over_http_answers_each_call_in_its_callers_scope(served: dict) -> None:
    async def calls(token: str) -> dict[str, tuple[bool, str]]:
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
        async with http, Client(streamable_http_client(f"{served['url']}/mcp", http_client=http)) as mcp:
            out = {}
            for name, tool, args in [
                ("get", "get_memory", {"id": served["shop"]}),
                ("delete", "delete_memory", {"id": served["shop"]}),
                ("search", "search_memory", {"query": "deploys", "workspace": "shop"}),
                ("own", "search_memory", {"query": "deploys", "workspace": "lab"}),
            ]:
                result = await mcp.call_tool(tool, args)
                out[name] = (bool(result.is_error), text(result))
            try:
                read = await mcp.read_resource(f"memory://memory/{served['shop']}/related")
                out["resource"] = (False, str(read))
            except Exception as exc:  # the SDK raises a read error as an exception
                out["resource"] = (True, str(exc))
            return out

    lab = asyncio.run(calls(served["tokens"]["lab"]))
    assert lab["get"][0] and "no memory" in lab["get"][1]
    assert lab["delete"][0] and "no memory" in lab["delete"][1]
    assert lab["search"][0] and "scope" in lab["search"][1]
    assert not lab["own"][0] and "Fridays" in lab["own"][1] and "blue-green" not in lab["own"][1]
    assert lab["resource"][0]
    owner = asyncio.run(calls(OWNER))  # the owner's calls on the same server see everything
    assert not owner["get"][0] and "blue-green" in owner["get"][1]


def test_serve_with_a_workspace_limits_every_caller_to_it(start_http: Callable[..., Endpoint], db: Path) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        lab = mem.add("The lab deploys on Fridays", workspace="lab").id
    server = start_http(db, "-w", "shop", env=FAST)
    with httpx2.Client(base_url=server.base_url, timeout=30) as http:
        assert http.get(f"/memories/{lab}").status_code == 404
        assert http.post("/memories", json={"content": "A shop note"}).json()["workspace"] == "shop"
        assert http.post("/search", json={"query": "deploys", "workspace": "*"}).status_code == 400


def test_scope_intersection_and_names() -> None:
    token = Scope.of(["shop", "@global"])
    server = Scope.of(["shop"])
    both = token.within(server)
    assert both.names() == ["shop"] and both.writes("shop") and not both.writes(None) and both.reads(None)
    assert Scope.of(["*"]).unrestricted and not Scope.of(["*"], write=False).unrestricted
    with pytest.raises(knotwork.InvalidInput):
        Scope.of(["-bad"])
