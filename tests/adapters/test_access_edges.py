"""Workspaces as an access boundary at its edges: links that write the memory they point at, the last token
revoked, and a tokens file changed faster than the file system's clock.

The main access tests (``test_access.py``, ``test_access_mcp.py``) try every route on another workspace's
records; these try what crosses from a caller's own workspace into another one (or into the global scope)
by a side effect, and the token file's life on a running server.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver.exceptions import ToolError

import knotwork
from knotwork import Settings
from knotwork.adapters.credentials import TokenBook
from knotwork.adapters.http import create_app
from knotwork.adapters.mcp import build_server

from ._mcp import text
from ._scoped import FAST, OWNER, Store, seed
from .conftest import Endpoint


def client(url: str, token: str | None) -> httpx2.Client:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx2.Client(base_url=url, timeout=30, headers=headers)


def test_a_link_writes_only_where_its_caller_may_write(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> None:
    """``lab supersedes global`` would retire a global memory: a token of lab alone is refused (and the global
    memory stays current), one that names @global may; a plain link from lab to global, or from global to
    lab, is lab's own (it is stored in lab) and allowed."""
    store: Store = seed(db, tmp_path / "tokens.json")
    assert store.book is not None
    url = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)}).base_url
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        lab_two = mem.add("The lab also deploys on Mondays", workspace="lab").id
        shop_two = mem.add("The shop also deploys at night", workspace="shop").id
    with client(url, store.tokens["lab"]) as lab:
        refused = lab.post("/links", json={"from_id": store.lab, "to_id": store.glob, "type": "supersedes"})
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["field"] == "to_id" and "@global" in refused.text
        assert lab.get(f"/memories/{store.glob}").json()["invalid_at"] is None
        plain = lab.post("/links", json={"from_id": store.glob, "to_id": lab_two, "type": "relates_to"})
        assert plain.status_code == 201 and plain.json()["workspace"] == "lab", plain.text
        assert lab.delete(f"/links/{plain.json()['id']}").status_code == 200
        assert lab.post("/links", json={"from_id": lab_two, "to_id": store.lab, "type": "supersedes"}).status_code == 201
        assert lab.get(f"/memories/{store.lab}").json()["invalid_at"] is not None
    with client(url, store.tokens["shop"]) as shop:  # shop and @global: it may retire a global memory
        done = shop.post("/links", json={"from_id": shop_two, "to_id": store.glob, "type": "supersedes"})
        assert done.status_code == 201, done.text
        assert shop.get(f"/memories/{store.glob}").json()["invalid_at"] is not None
    with client(url, store.tokens["shop-read"]) as reader:
        answer = reader.post("/links", json={"from_id": store.shop, "to_id": shop_two, "type": "relates_to"})
        assert answer.status_code == 403 and "read only" in answer.text


def test_revoking_the_last_token_locks_the_server(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> None:
    """A server with a tokens file and no owner's token: once its only token is revoked, a request without a
    token is still refused (401), never answered as the owner's."""
    book = TokenBook(tmp_path / "tokens.json")
    token = book.create("only", ["lab"])
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        secret = mem.add("The shop's secret roadmap", workspace="shop").id
    url = start_http(db, env={**FAST, "KNOTWORK_TOKENS_FILE": str(book.path)}).base_url
    with client(url, token) as http:
        assert http.get(f"/memories/{secret}").status_code == 404
    with client(url, None) as anyone:
        assert anyone.get(f"/memories/{secret}").status_code == 401
        book.revoke("only")
        for path in (f"/memories/{secret}", "/export", "/stats"):
            answer = anyone.get(path)
            assert answer.status_code == 401, (path, answer.text)
    with client(url, token) as http:
        assert http.get("/memories").status_code == 401


def test_a_tokens_file_changed_within_one_tick_of_the_clock_is_read_again(tmp_path: Path) -> None:
    """A token revoked and made again under the same name has the same file size; when the file system's
    clock has not moved on (coarse timestamps), the server's reading must still see the change."""
    path = tmp_path / "tokens.json"
    server, cli = TokenBook(path), TokenBook(path)
    first = cli.create("bot", ["lab"])
    assert server.scope_of(first) is not None
    before = path.stat()
    cli.revoke("bot")
    second = cli.create("bot", ["ops"])  # same length as lab: same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the clock did not tick between the writes
    assert path.stat().st_size == before.st_size
    assert server.scope_of(first) is None
    found = server.scope_of(second)
    assert found is not None and found.names() == ["ops"]


def test_an_mcp_message_over_http_without_its_callers_scope_is_refused(db: Path) -> None:
    """Over HTTP every /mcp request passes the token check, which names its caller; a message that reaches a
    tool without one (were the SDK to stop handing tools the HTTP request) is refused, not answered as the
    owner's. Over stdio (no HTTP app) the same message is the owner's."""
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        secret = mem.add("The shop's secret roadmap", workspace="shop").id
        stdio = build_server(mem)
        answer = asyncio.run(stdio.call_tool("get_memory", {"id": secret}, None))
        assert "secret roadmap" in str(answer)
        served = build_server(mem)
        create_app(mem, mcp_server=served, api_token=OWNER)
        try:
            asyncio.run(served.call_tool("get_memory", {"id": secret}, None))
        except ToolError as exc:
            assert "refused" in str(exc) and "roadmap" not in str(exc)
        else:
            raise AssertionError("a message without its caller was answered")


def test_each_mcp_request_is_answered_in_the_scope_of_its_own_token(start_http: Callable[..., Endpoint], db: Path,
                                                                     tmp_path: Path) -> None:
    """One MCP session over HTTP, its requests sent with one token and then another: each call is answered
    in the scope of the token of the request that carried it, not of the one that opened the session."""
    store: Store = seed(db, tmp_path / "tokens.json")
    assert store.book is not None
    url = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)}).base_url

    async def session(first: str, then: str) -> list[tuple[bool, str]]:
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {first}"}, timeout=30)
        answers = []
        async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            for token in (first, then, first):
                http.headers["authorization"] = f"Bearer {token}"
                got = await mcp.call_tool("get_memory", {"id": store.shop, "format": "json"})
                answers.append((bool(got.is_error), text(got)))
        return answers

    owner_first = asyncio.run(session(OWNER, store.tokens["lab"]))
    assert [error for error, _ in owner_first] == [False, True, False], owner_first
    assert "blue-green" in owner_first[0][1] and "no memory matches" in owner_first[1][1]
    assert store.leaked([((store.shop,), owner_first[1][1])]) == []
    lab_first = asyncio.run(session(store.tokens["lab"], OWNER))
    assert [error for error, _ in lab_first] == [True, False, True], lab_first


def test_an_import_writes_no_link_outside_what_its_caller_writes(start_http: Callable[..., Endpoint], db: Path,
                                                                 tmp_path: Path) -> None:
    """A token of lab imports lab records whose links would reach further: one between two global memories
    (written in the global scope), one stored as another workspace's, one from a record that names one of
    shop's ids (the service skips that record, so the link would join shop to lab). Each is refused and
    nothing is written; the lab record with a link to a global memory goes in, the link stored in lab."""
    store: Store = seed(db, tmp_path / "tokens.json")
    assert store.book is not None
    url = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)}).base_url
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        other_global = mem.add("Every service logs to one place").id
        links_before = len(mem.list_links("*"))
    stamp = "2026-01-02T03:04:05Z"

    def record(mid: str, *links: dict, workspace: str = "lab") -> str:
        body = {"id": mid, "content": f"imported note {mid[-4:]}", "workspace": workspace, "created_at": stamp,
                "updated_at": stamp, "valid_at": stamp, "links": list(links)}
        return json.dumps(body)

    def link(lid: str, start: str, end: str, workspace: str | None = "lab") -> dict:
        return {"id": lid, "from": start, "to": end, "type": "relates_to", "workspace": workspace, "created_at": stamp}

    new = "01JQ5ZZZZZD00000000000000A"
    refused = {
        "global to global": record(new, link("01JQ5ZZZZZD00000000000000B", store.glob, other_global, None)),
        "stored as shop's": record(new, link("01JQ5ZZZZZD00000000000000C", new, store.glob, "shop")),
        "from shop's id": record(store.shop, link("01JQ5ZZZZZD00000000000000D", store.shop, store.lab)),
    }
    with client(url, store.tokens["lab"]) as lab:
        for case, content in refused.items():
            answer = lab.post("/import", content=content, headers={"content-type": "application/x-ndjson"})
            assert answer.status_code in (400, 403, 404), (case, answer.text)
        assert lab.get(f"/memories/{new}").status_code == 404
        good = record(new, link("01JQ5ZZZZZD00000000000000E", new, store.glob, None))  # stored in lab, its end's
        answer = lab.post("/import", content=good, headers={"content-type": "application/x-ndjson"})
        assert answer.status_code == 200 and answer.json()["added"] == 1, answer.text
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        assert len(mem.list_links("*")) == links_before + 1
        assert [(r.to_id, r.workspace) for r in mem.relationships(new)] == [(store.glob, "lab")]
        assert mem.relationships(store.shop)[0].to_id == store.glob  # shop's only link, as seeded
        assert len(mem.relationships(store.shop)) == 1


def test_a_tokens_file_made_unreadable_lets_only_the_owner_in(start_http: Callable[..., Endpoint], db: Path,
                                                               tmp_path: Path) -> None:
    """A tokens file edited by hand into something that is not one: a token of it is not let in (503, a
    JSON answer that names no path), the owner's token still is, and the mended file works again."""
    book = TokenBook(tmp_path / "tokens.json")
    lab_token = book.create("lab-bot", ["lab"])
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add("The lab deploys on Fridays", workspace="lab")
    url = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(book.path)}).base_url
    good = book.path.read_text()
    with client(url, lab_token) as lab, client(url, OWNER) as owner:
        assert lab.get("/memories", params={"workspace": "lab"}).status_code == 200
        book.path.write_text('{"tokens": {"lab-bot": {"workspaces": ["lab"]}}}')  # no sha256
        answer = lab.get("/memories", params={"workspace": "lab"})
        assert answer.status_code == 503 and answer.json()["error"]["type"] == "unavailable", answer.text
        assert str(tmp_path) not in answer.text and "Fridays" not in answer.text
        assert "Fridays" in owner.get("/memories", params={"workspace": "lab"}).text
        book.path.write_text(good)
        assert "Fridays" in lab.get("/memories", params={"workspace": "lab"}).text


def test_duplicates_of_a_caller_who_names_no_workspace_are_those_of_its_scope(start_http: Callable[..., Endpoint],
                                                                               db: Path, tmp_path: Path) -> None:
    """Duplicates read every workspace when none is named; a caller limited to lab (who may not name ``*``)
    gets those of lab and the global scope instead, over REST and MCP, and never shop's."""
    book = TokenBook(tmp_path / "tokens.json")
    lab_token = book.create("lab-bot", ["lab"])
    with knotwork.open(db) as mem:
        for ws in ("lab", "shop", None):
            for end in ("", "."):
                mem.add(f"The deploy of {ws or 'everyone'} runs every Friday at noon{end}", workspace=ws, force=True,
                        consolidate=False)
        shop_ids = {m.id for m in mem.list(workspace="shop") if m.workspace == "shop"}
        assert len(shop_ids) == 2
    url = start_http(db, env={"KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(book.path)}).base_url
    with client(url, OWNER) as owner, client(url, lab_token) as lab:
        everyone = owner.get("/duplicates", params={"threshold": 0.9}).json()["groups"]
        assert sorted(g["workspace"] or "" for g in everyone) == ["", "lab", "shop"]
        answer = lab.get("/duplicates", params={"threshold": 0.9})
        assert answer.status_code == 200, answer.text
        seen = answer.json()["groups"]
        assert sorted(g["workspace"] or "" for g in seen) == ["", "lab"]
        assert not shop_ids & {i for g in seen for i in g["ids"]}
        assert lab.get("/duplicates", params={"workspace": "*"}).status_code == 403

    async def over_mcp() -> str:
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {lab_token}"}, timeout=30)
        async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            got = await mcp.call_tool("find_duplicates", {"threshold": 0.9, "format": "json"})
            assert not got.is_error, text(got)
            return text(got)

    groups = json.loads(asyncio.run(over_mcp()))["groups"]
    assert sorted(g["workspace"] or "" for g in groups) == ["", "lab"]
