"""Workspaces as an access boundary over REST, on a real ``knotwork serve``.

One server, an owner's token (``KNOTWORK_API_TOKEN``) and tokens bound to workspaces (``knotwork token
create``): a caller limited to lab tries every read and write of the API on shop's memories, links, entities
and facts, by full and short id, and must get 404 or a refusal (403), never one of shop's ids or words;
its own workspace and the global scope still work. The web UI's data and the hooks have their own file
(``test_access_ui_hooks.py``), MCP too (``test_access_mcp.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Settings
from knotwork.views.access import Scope

from ._scoped import FAST, OWNER, SHOP_TEXT, Store, seed
from .conftest import Endpoint

Call = tuple[str, str, dict]


@pytest.fixture
def served(start_http: Callable[..., Endpoint], db: Path, tmp_path: Path) -> tuple[str, Store]:
    store = seed(db, tmp_path / "tokens.json")
    assert store.book is not None
    server = start_http(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(store.book.path)})
    assert server.base_url
    return server.base_url, store


def client(url: str, token: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, timeout=30, headers={"authorization": f"Bearer {token}"})


def send(http: httpx2.Client, call: Call) -> httpx2.Response:
    method, path, kwargs = call
    return http.request(method, path, **kwargs)


def lab_record(mid: str, links: list[dict] | None = None, workspace: str = "lab") -> dict:
    stamp = "2026-01-02T03:04:05Z"
    return {"id": mid, "content": f"imported note {mid[-4:]}", "workspace": workspace, "created_at": stamp,
            "updated_at": stamp, "valid_at": stamp, "links": links or []}


def ndjson(*records: dict) -> dict:
    return {"content": "\n".join(json.dumps(r) for r in records), "headers": {"content-type": "application/x-ndjson"}}


def not_found(s: Store) -> list[Call]:
    """Every way of naming one of shop's records: each must be 404 for a caller limited to lab."""
    out: list[Call] = []
    for ref in (s.shop, s.shop[-10:], s.shop.lower()):
        out += [
            ("GET", f"/memories/{ref}", {}),
            ("GET", f"/memories/{ref}", {"params": {"format": "compact"}}),
            ("GET", f"/memories/{ref}/history", {}),
            ("GET", f"/memories/{ref}/related", {}),
            ("GET", f"/memories/{ref}/graph", {}),
            ("GET", f"/memories/{ref}/relationships", {}),
            ("GET", "/relations", {"params": {"id": ref}}),
            ("PATCH", f"/memories/{ref}", {"json": {"content": "taken over"}}),
            ("DELETE", f"/memories/{ref}", {}),
        ]
    for ref in (s.shop_link, s.shop_link[-10:]):
        out.append(("DELETE", f"/links/{ref}", {}))
    for ref in (s.shop_entity, s.shop_entity[-10:], "Shopfront"):
        out += [
            ("GET", f"/entities/{ref}", {"params": {"workspace": "lab"}}),
            ("GET", f"/entities/{ref}/facts", {"params": {"workspace": "lab"}}),
            ("GET", "/communities", {"params": {"workspace": "lab", "entity": ref}}),
            ("POST", "/search/entities", {"json": {"query": "deploys", "center": ref, "workspace": "lab"}}),
            ("POST", "/search/facts", {"json": {"query": "deploys", "center": ref, "workspace": "lab"}}),
            ("POST", "/entities/merge", {"json": {"a": ref, "b": s.lab_entity, "workspace": "lab"}}),
        ]
    for ref in (s.shop_fact, s.shop_fact[-10:]):
        out += [("GET", f"/facts/{ref}", {}), ("DELETE", f"/facts/{ref}", {})]
    out += [
        ("POST", "/links", {"json": {"from_id": s.lab, "to_id": s.shop, "type": "relates_to"}}),
        ("POST", "/links", {"json": {"from_id": s.shop, "to_id": s.glob, "type": "relates_to"}}),
        ("POST", "/merge", {"json": {"ids": [s.lab, s.shop]}}),
        ("POST", "/import", ndjson(lab_record("01JQ5ZZZZZA00000000000000M", [
            {"id": "01JQ5ZZZZZA00000000000000K", "from": "01JQ5ZZZZZA00000000000000M", "to": s.shop,
             "type": "references", "created_at": "2026-01-02T03:04:05Z"}]))),
    ]
    return out


def refused(s: Store) -> list[Call]:
    """Workspaces outside lab's scope, '*', the global scope to write, the owner's operations: each 403."""
    out: list[Call] = []
    for ws in ("shop", "*"):
        out += [
            ("GET", "/memories", {"params": {"workspace": ws}}),
            ("POST", "/search", {"json": {"query": "deploys", "workspace": ws}}),
            ("POST", "/search/entities", {"json": {"query": "deploys", "workspace": ws}}),
            ("POST", "/search/facts", {"json": {"query": "deploys", "workspace": ws}}),
            ("GET", "/episodes", {"params": {"workspace": ws}}),
            ("GET", "/communities", {"params": {"workspace": ws}}),
            ("GET", "/relationships", {"params": {"workspace": ws}}),
            ("GET", "/duplicates", {"params": {"workspace": ws}}),
            ("POST", "/tools/ambient_recall", {"json": {"workspace": ws}}),
            ("DELETE", "/graph", {"params": {"workspace": ws, "confirm": "true"}}),
            ("POST", "/communities/rebuild", {"params": {"workspace": ws}}),
            ("GET", f"/entities/{s.lab_entity}", {"params": {"workspace": ws}}),
        ]
    out += [
        ("POST", "/memories", {"json": {"content": "planted", "workspace": "shop"}}),
        ("POST", "/memories", {"json": {"content": "planted in global"}}),
        ("POST", "/memories/batch", {"json": {"items": [{"content": "planted", "workspace": "lab"},
                                                        {"content": "planted", "workspace": "shop"}]}}),
        ("PATCH", f"/memories/{s.glob}", {"json": {"content": "planted over global"}}),
        ("DELETE", f"/memories/{s.glob}", {}),
        ("DELETE", "/graph", {"params": {"confirm": "true"}}),  # the global scope's graph
        ("POST", "/import", ndjson(lab_record("01JQ5ZZZZZA00000000000000T", workspace="shop"))),
        ("POST", "/import", ndjson(lab_record("01JQ5ZZZZZA00000000000000H", workspace=None))),  # type: ignore[arg-type]
        ("GET", "/stats", {}),
        ("POST", "/prune", {}),
        ("POST", "/reembed", {}),
        ("GET", "/extraction", {}),
        ("POST", "/extraction/run", {"json": {}}),
    ]
    return out


def test_a_caller_limited_to_lab_finds_nothing_of_shop_and_changes_nothing(served: tuple[str, Store]) -> None:
    url, s = served
    with client(url, OWNER) as owner:
        before = owner.get("/export").text
    answers: list[tuple[Call, str]] = []
    with client(url, s.tokens["lab"]) as lab:
        for call in not_found(s):
            got = send(lab, call)
            assert got.status_code == 404, (call, got.status_code, got.text)
            answers.append((call, got.text))
        for call in refused(s):
            got = send(lab, call)
            # a scope refusal is 403; '*' where the operation takes no '*' at all is invalid input (400)
            invalid_star = got.status_code == 400 and "'*' is not a valid name" in got.json()["error"]["message"]
            assert got.status_code == 403 or invalid_star, (call, got.status_code, got.text)
            assert got.json()["error"]["field"], call  # the refusal names what it is about
            answers.append((call, got.text))
    assert s.leaked(answers) == []
    with client(url, OWNER) as owner:  # nothing of anyone's was changed or added
        assert owner.get("/export").text == before


def test_what_a_caller_limited_to_lab_reads_and_writes(served: tuple[str, Store]) -> None:
    url, s = served
    answers: list[str] = []
    with client(url, s.tokens["lab"]) as lab:

        def ok(method: str, path: str, status: int = 200, **kwargs: object) -> httpx2.Response:
            got = lab.request(method, path, **kwargs)  # type: ignore[arg-type]
            assert got.status_code == status, (path, got.status_code, got.text)
            answers.append(got.text)
            return got

        assert ok("GET", f"/memories/{s.lab[-10:]}").json()["id"] == s.lab
        assert ok("GET", f"/memories/{s.glob}").json()["content"].startswith("Every service")
        listed = {m["id"] for m in ok("GET", "/memories", params={"workspace": "lab", "limit": 100}).json()["memories"]}
        assert listed == {s.lab, s.glob, *s.lab_bucket}
        hits = ok("POST", "/search", json={"query": "deploys", "workspace": "lab"}).json()["hits"]
        assert {h["memory"]["id"] for h in hits} == {s.lab, s.glob}
        ok("POST", "/search", json={"query": "deploys", "workspace": "lab"}, params={"format": "compact"})
        assert [r["id"] for r in ok("GET", "/relationships", params={"workspace": "lab"}).json()["relationships"]] == [s.lab_link]
        assert ok("GET", f"/memories/{s.glob}/related").json()["related"][0]["memory"]["id"] == s.lab
        graph = ok("GET", f"/memories/{s.glob}/graph").json()
        assert {n["id"] for n in graph["nodes"]} == {s.glob, s.lab}
        status = ok("GET", "/status").json()
        assert (status["memories"], status["links"]) == (5, 1)  # lab's four and the global one; lab's link
        recalled = ok("POST", "/tools/ambient_recall", json={"workspace": "lab"}).json()
        assert "Fridays" in recalled["text"] and "5 memories" in recalled["text"]
        assert ok("GET", f"/entities/{s.lab_entity}", params={"workspace": "lab"}).json()["name"] == "Labrunner"
        assert ok("GET", f"/facts/{s.lab_fact[-10:]}").json()["id"] == s.lab_fact
        names = {h["entity"]["name"] for h in ok("POST", "/search/entities", json={"query": "Labrunner", "workspace": "lab"}).json()["entities"]}
        assert "Labrunner" in names
        ok("POST", "/search/facts", json={"query": "deploys", "workspace": "lab"})
        ok("GET", "/episodes", params={"workspace": "lab"})
        ok("GET", "/communities", params={"workspace": "lab"})
        every = [json.loads(line) for line in ok("GET", "/export").text.splitlines()]
        exported = [r for r in every if "record" not in r]
        assert {r["id"] for r in exported} == {s.lab, s.glob, *s.lab_bucket}
        graph = [r for r in every if r.get("record") in ("entity", "fact", "community")]
        assert s.lab_entity in {r["id"] for r in graph} and s.lab_fact in {r["id"] for r in graph}
        assert {r["workspace"] for r in graph} <= {"lab", None}  # the graph of what it reads, no other
        assert [link["id"] for r in exported for link in r["links"]] == [s.lab_link]
        # writes in lab
        made = ok("POST", "/memories", 201, json={"content": "A lab note about ovens", "workspace": "lab"}).json()
        ok("PATCH", f"/memories/{made['id']}", json={"content": "A lab note about ovens and fans"})
        ok("POST", "/links", 201, json={"from_id": made["id"], "to_id": s.glob, "type": "references"})
        imported = ok("POST", "/import", content=json.dumps(lab_record("01JQ5ZZZZZB00000000000000M", [
            {"id": "01JQ5ZZZZZB00000000000000K", "from": "01JQ5ZZZZZB00000000000000M", "to": s.glob,
             "type": "references", "created_at": "2026-01-02T03:04:05Z"}])),
            headers={"content-type": "application/x-ndjson"}).json()
        assert imported["added"] == 1
        ok("DELETE", f"/facts/{s.lab_fact}")
        ok("DELETE", f"/memories/{made['id']}")
    assert s.leaked(answers) == []


def test_a_short_id_resolves_within_the_scope_only(served: tuple[str, Store]) -> None:
    url, s = served
    assert all(mid.startswith(s.prefix) for mid in [s.shop, s.lab, *s.shop_bucket, *s.lab_bucket])
    with client(url, OWNER) as owner:  # the owner is told of every memory the prefix names
        everyone = json.dumps(owner.get(f"/memories/{s.prefix}").json())
        assert s.shop in everyone and s.lab in everyone
    with client(url, s.tokens["lab"]) as lab:
        answers = []
        for path in (f"/memories/{s.prefix}", f"/memories/{s.prefix}/history", f"/memories/{s.prefix}/related"):
            ambiguous = lab.get(path)
            assert ambiguous.status_code == 400 and "ambiguous" in ambiguous.json()["error"]["message"]
            assert s.lab in ambiguous.text
            answers.append(ambiguous.text)
        entity = lab.get(f"/entities/{s.entity_prefix}", params={"workspace": "lab"})
        assert entity.status_code in (200, 400) and (s.lab_entity in entity.text or entity.json().get("workspace") == "lab")
        answers.append(entity.text)
        assert s.leaked(answers) == []
    with client(url, s.tokens["shop-read"]) as shop:  # and the other way round
        ambiguous = shop.get(f"/memories/{s.prefix}")
        assert s.shop in ambiguous.text and s.lab not in ambiguous.text and "bucket" not in ambiguous.text


def test_a_read_only_token_reads_its_workspace_and_writes_nothing(served: tuple[str, Store]) -> None:
    url, s = served
    with client(url, s.tokens["shop-read"]) as reader:
        assert reader.get(f"/memories/{s.shop}").json()["content"].startswith(SHOP_TEXT)
        assert reader.post("/search", json={"query": "deploys", "workspace": "shop"}).status_code == 200
        assert reader.get(f"/facts/{s.shop_fact}").status_code == 200
        assert reader.get(f"/memories/{s.lab}").status_code == 404
        for method, path, kwargs in [
            ("POST", "/memories", {"json": {"content": "x", "workspace": "shop"}}),
            ("POST", "/memories/batch", {"json": {"items": [{"content": "x", "workspace": "shop"}]}}),
            ("PATCH", f"/memories/{s.shop}", {"json": {"content": "x"}}),
            ("DELETE", f"/memories/{s.shop}", {}),
            ("POST", "/links", {"json": {"from_id": s.shop_bucket[0], "to_id": s.shop, "type": "relates_to"}}),
            ("DELETE", f"/links/{s.shop_link}", {}),
            ("POST", "/merge", {"json": {"ids": [s.shop, s.shop_bucket[0]]}}),
            ("DELETE", f"/facts/{s.shop_fact}", {}),
            ("DELETE", "/graph", {"params": {"workspace": "shop", "confirm": "true"}}),
            ("POST", "/entities/merge", {"json": {"a": "Shopfront", "b": "Bluegreen", "workspace": "shop"}}),
            ("POST", "/communities/rebuild", {"params": {"workspace": "shop"}}),
            ("POST", "/import", ndjson(lab_record("01JQ5ZZZZZC00000000000000T", workspace="shop"))),
        ]:
            got = reader.request(method, path, **kwargs)
            assert got.status_code == 403 and "read only" in got.json()["error"]["message"], (path, got.text)
    with client(url, OWNER) as owner:
        assert owner.get(f"/memories/{s.shop}").json()["content"].startswith(SHOP_TEXT)
        assert owner.get(f"/facts/{s.shop_fact}").status_code == 200


def test_a_read_only_token_of_every_workspace_reads_them_all(served: tuple[str, Store]) -> None:
    url, s = served
    with client(url, s.tokens["reader"]) as reader:
        listed = {m["id"] for m in reader.get("/memories", params={"workspace": "*", "limit": 100}).json()["memories"]}
        assert {s.shop, s.lab, s.glob} <= listed
        assert reader.get("/stats").status_code == 200
        assert reader.post("/memories", json={"content": "x", "workspace": "lab"}).status_code == 403
        assert reader.post("/prune").status_code == 403


def test_writing_the_global_scope_takes_naming_it(served: tuple[str, Store]) -> None:
    url, s = served
    with client(url, s.tokens["shop"]) as shop:  # shop-bot: shop and @global
        made = shop.post("/memories", json={"content": "A rule for every team"})
        assert made.status_code == 201 and made.json()["workspace"] is None
        assert shop.patch(f"/memories/{s.glob}", json={"content": "Every service deploys from main, always"}).status_code == 200
        assert shop.get(f"/memories/{s.lab}").status_code == 404
    with client(url, s.tokens["lab"]) as lab:  # lab-bot reads what shop-bot wrote there, and may not change it
        assert lab.get(f"/memories/{made.json()['id']}").status_code == 200
        assert lab.delete(f"/memories/{made.json()['id']}").status_code == 403


def test_a_revoked_or_unknown_token_is_refused(served: tuple[str, Store], run_cli) -> None:
    url, s = served
    assert s.book is not None
    with client(url, s.tokens["lab"]) as lab:
        assert lab.get("/status").status_code == 200
        done = run_cli("token", "revoke", "lab-bot", env={"KNOTWORK_TOKENS_FILE": str(s.book.path)})
        assert done.returncode == 0 and "lab-bot" in done.stdout
        gone = lab.get(f"/memories/{s.lab}")
        assert gone.status_code == 401 and gone.json()["error"]["type"] == "unauthorized"
    for token in ("kw_not-a-token", s.tokens["lab"][:-1], s.tokens["lab"] + "x", OWNER.upper()):
        with client(url, token) as stranger:
            assert stranger.get(f"/memories/{s.glob}").status_code == 401
    with httpx2.Client(base_url=url, timeout=30) as anonymous:
        assert anonymous.get("/status").status_code == 401


def test_serve_with_a_workspace_limits_every_caller_to_it(start_http: Callable[..., Endpoint], db: Path) -> None:
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        lab = mem.add("The lab deploys on Fridays", workspace="lab").id
        glob = mem.add("Every service deploys from main").id
    server = start_http(db, "-w", "shop", env={**FAST, "KNOTWORK_API_TOKEN": OWNER})
    with client(str(server.base_url), OWNER) as http:  # even the owner's token
        assert http.get(f"/memories/{lab}").status_code == 404
        assert http.get(f"/memories/{glob}").status_code == 200
        assert http.post("/memories", json={"content": "A shop note"}).json()["workspace"] == "shop"
        assert http.post("/search", json={"query": "deploys", "workspace": "*"}).status_code == 403
        assert http.post("/search", json={"query": "deploys", "workspace": "lab"}).status_code == 403
        assert http.patch(f"/memories/{glob}", json={"content": "changed"}).status_code == 403
        assert http.get("/stats").status_code == 403


def test_the_openapi_spec_documents_401_and_404() -> None:
    from knotwork.adapters.http import create_app

    with knotwork.open(":memory:", settings=Settings(embedder="none")) as mem:
        spec = create_app(mem, api_token="t").openapi()
    get_memory = spec["paths"]["/memories/{id}"]["get"]["responses"]
    assert {"401", "404", "400", "403"} <= set(get_memory)
    assert "scope" in get_memory["404"]["description"] and "token" in get_memory["401"]["description"]


def test_token_commands(run_cli, run_cli_here, tmp_path: Path) -> None:
    """The first command runs as the installed script; the others through its entry point in this process."""
    tokens = tmp_path / "tokens.json"
    env = {"KNOTWORK_TOKENS_FILE": str(tokens)}
    made = run_cli("token", "create", "--name", "ci", "-w", "shop", "-w", "@global", "--read-only", env=env)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token.startswith("kw_") and len(token) > 40 and made.stdout.count("\n") == 1
    stored = tokens.read_text()
    assert token not in stored and json.loads(stored)["tokens"]["ci"]["workspaces"] == ["@global", "shop"]
    assert oct(tokens.stat().st_mode & 0o777) == "0o600"
    listed = run_cli_here("token", "list", env=env)
    assert listed.returncode == 0 and "ci  @global, shop  read" in listed.stdout and token not in listed.stdout
    again = run_cli_here("token", "create", "--name", "ci", "-w", "lab", env=env)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "exists" in again.stderr
    bad = run_cli_here("token", "create", "--name", "x", "-w", "-bad", env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert run_cli_here("token", "revoke", "ci", env=env).returncode == 0
    assert "No tokens" in run_cli_here("token", "list", env=env).stdout
    missing = run_cli_here("token", "revoke", "ci", env=env)
    assert missing.returncode == 2 and missing.stderr == "error: name: no token is named 'ci' (see `knotwork token list`)\n"


def test_scope_intersection_and_names() -> None:
    token = Scope.of(["shop", "@global"])
    server = Scope.of(["shop"])
    both = token.within(server)
    assert both.names() == ["shop"] and both.writes("shop") and not both.writes(None) and both.reads(None)
    assert Scope.of(["*"]).unrestricted and not Scope.of(["*"], write=False).unrestricted
    assert not Scope.of(["lab"]).reads("shop") and Scope.of(["lab"]).reads("lab")
    with pytest.raises(knotwork.InvalidInput):
        Scope.of(["-bad"])
    with pytest.raises(knotwork.InvalidInput):
        Scope.of([])
