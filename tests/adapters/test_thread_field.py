"""The thread field over MCP (the SDK's real client, a real stdio server process) and REST (a real uvicorn)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import knotwork
from knotwork import Knotwork

from ._http import serving
from ._mcp import err, ok_json, run
from .conftest import Endpoint


def test_mcp_add_search_list_and_update_by_thread(start_stdio: Callable[..., Endpoint], db: Path) -> None:
    endpoint = start_stdio(db, "--workspace", "chat")

    async def scenario() -> None:
        async with endpoint.client() as client:
            schema = {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
            assert all("thread" in schema[name] for name in ("add_memory", "search_memory", "list_memories", "update_memory"))
            first = await ok_json(client, "add_memory", {"content": "Ava: we adopted a beagle", "thread": "walk-1", "force": True})
            other = await ok_json(client, "add_memory", {"content": "Gus: my beagle snores", "thread": "walk-2", "force": True})
            assert first["thread"] == "walk-1" and first["metadata"] == {"thread": "walk-1"}
            hits = await ok_json(client, "search_memory", {"query": "beagle", "thread": "walk-2"})
            assert [h["memory"]["id"] for h in hits["hits"]] == [other["id"]]
            listed = await ok_json(client, "list_memories", {"thread": "walk-1"})
            assert [m["id"] for m in listed["memories"]] == [first["id"]]
            moved = await ok_json(client, "update_memory", {"id": other["id"], "thread": "walk-1"})
            assert moved["thread"] == "walk-1"
            problem = await err(client, "add_memory", {"content": "Ava: hello there", "thread": "a", "metadata": {"thread": "b"}})
            assert "thread" in problem and "metadata.thread" in problem

    run(scenario())
    with knotwork.open(db) as mem:
        assert {m.id for m in mem.list(workspace="chat", thread="walk-1")} == {m.id for m in mem.list(workspace="chat")}
        assert mem.store.count_memories() == 2  # the refused add wrote nothing


def test_rest_add_batch_search_list_and_update_by_thread(api: Knotwork) -> None:
    with serving(api) as http:
        one = http.post("/memories", json={"content": "Ava: we adopted a beagle", "thread": "walk-1", "force": True})
        assert one.status_code == 201 and one.json()["thread"] == "walk-1"
        batch = http.post("/memories/batch", json={"items": [{"content": "Gus: my beagle snores", "thread": "walk-2"}],
                                                    "consolidate": False, "force": True})
        assert batch.status_code == 201
        two = batch.json()["memories"][0]
        assert two["thread"] == "walk-2"
        found = http.post("/search", json={"query": "beagle", "thread": "walk-1"}).json()["hits"]
        assert [h["memory"]["id"] for h in found] == [one.json()["id"]]
        listed = http.get("/memories", params={"thread": "walk-2"}).json()["memories"]
        assert [m["id"] for m in listed] == [two["id"]]
        cleared = http.patch(f"/memories/{two['id']}", json={"thread": None})
        assert cleared.status_code == 200 and cleared.json()["thread"] is None
        assert http.get("/memories", params={"thread": "walk-2"}).json()["memories"] == []
        bad = http.post("/memories", json={"content": "Ava: hello there", "thread": "two\nlines"})
        assert bad.status_code == 400 and bad.json()["error"]["field"] == "thread"
        bad_list = http.get("/memories", params={"thread": ""})
        assert bad_list.status_code == 400 and bad_list.json()["error"]["field"] == "thread"
    assert api.store.count_memories() == 2
