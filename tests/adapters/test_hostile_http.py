"""Hostile input over real HTTP: every answer a 4xx naming the problem, bounded in size, nothing written.

One uvicorn server on a loopback port over a real SQLite file, shared by the module; after each
request the store is checked through the Python API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Knotwork, Settings
from knotwork.limits import JSON_DEPTH, MAX_BATCH, MAX_IMPORT_RECORDS, MAX_LIST_ITEMS, MAX_TAGS, QUERY_CHARS, REQUEST_BYTES

from ._http import serving

MAX_ANSWER_BYTES = 2048  # an error answer, whatever was sent
TEN_MB = 10 * 1024 * 1024


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Knotwork]:
    with knotwork.open(tmp_path_factory.mktemp("hostile") / "api.db", settings=Settings(embedder="none")) as m:
        m.add("a memory that every hostile request must leave alone", workspace="shop", tags={"team": "core"})
        yield m


@pytest.fixture(scope="module")
def http(mem: Knotwork) -> Iterator[httpx2.Client]:
    with serving(mem) as client:
        yield client


@pytest.fixture
def unchanged(mem: Knotwork) -> Iterator[None]:
    before = [(m.id, m.version) for m in mem.list(workspace="*", agent_id="*", limit=1000)]
    yield
    assert [(m.id, m.version) for m in mem.list(workspace="*", agent_id="*", limit=1000)] == before


def refused(response: httpx2.Response, status: int, field: str | None = None) -> str:
    """The error's message, after checking the status, the JSON shape, the field named and the answer's size."""
    assert response.status_code == status, response.text[:500]
    assert len(response.content) <= MAX_ANSWER_BYTES, f"{len(response.content)} bytes: {response.text[:300]}"
    error = response.json()["error"]
    if field is not None:
        assert error.get("field") == field, error
    return error["message"]


@pytest.mark.usefixtures("unchanged")
class TestRefusedBeforeAnyWork:
    def test_ten_megabyte_workspace_is_not_echoed(self, http: httpx2.Client) -> None:
        message = refused(http.post("/memories", json={"content": "x", "workspace": "w" * TEN_MB}), 400, "workspace")
        assert "10,485,760 characters" in message

    def test_ten_megabyte_entity_query_is_not_echoed(self, http: httpx2.Client) -> None:
        message = refused(http.post("/search/entities", json={"query": "q" * TEN_MB}), 400, "query")
        assert str(QUERY_CHARS) in message

    def test_one_megabyte_search_query(self, http: httpx2.Client) -> None:
        refused(http.post("/search", json={"query": "deploy " * 150_000}), 400, "query")

    @pytest.mark.parametrize("field", ["artifacts", "evidence"])
    def test_long_lists_are_refused_by_their_length(self, http: httpx2.Client, field: str) -> None:
        items = [f"item-{i}" for i in range(40_000)]
        message = refused(http.post("/memories", json={"content": "x", field: items}), 400, field)
        assert "40,000" in message and str(MAX_LIST_ITEMS) in message

    def test_five_thousand_tag_filters_are_a_400_not_a_500(self, http: httpx2.Client) -> None:
        params = [("tag", f"k{i}") for i in range(5000)]  # under the client's 64 KiB URL limit
        message = refused(http.get("/memories", params=params), 400, "tags")
        assert str(MAX_TAGS) in message

    def test_as_many_tag_filters_as_allowed_still_answer(self, http: httpx2.Client) -> None:
        params = [("tag", f"k{i}=v") for i in range(MAX_TAGS)]
        assert http.get("/memories", params=params).json()["memories"] == []
        body = {"query": "memory", "tags": [f"k{i}=v" for i in range(MAX_TAGS)], "tags_mode": "any"}
        assert http.post("/search", json=body).status_code == 200

    def test_deep_metadata(self, http: httpx2.Client) -> None:
        deep: object = "leaf"
        for _ in range(JSON_DEPTH + 5):
            deep = [deep]
        refused(http.post("/memories", json={"content": "x", "metadata": {"a": deep}}), 400, "metadata")

    def test_hundred_thousand_deep_json_body(self, http: httpx2.Client) -> None:
        body = '{"content": "x", "metadata": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
        response = http.post("/memories", content=body, headers={"content-type": "application/json"})
        assert 400 <= response.status_code < 500 and len(response.content) <= MAX_ANSWER_BYTES

    def test_hundred_thousand_deep_import_is_a_400_not_a_500(self, http: httpx2.Client) -> None:
        body = "[" * 100_000 + "]" * 100_000
        refused(http.post("/import", content=body, headers={"content-type": "application/x-ndjson"}), 400, "body")
        line = '{"id": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
        refused(http.post("/import", content=line, headers={"content-type": "application/x-ndjson"}), 400, "line 1")

    def test_too_many_import_records(self, http: httpx2.Client) -> None:
        body = "\n".join("{}" for _ in range(MAX_IMPORT_RECORDS + 1))
        message = refused(http.post("/import", content=body, headers={"content-type": "application/x-ndjson"}), 400, "body")
        assert f"{MAX_IMPORT_RECORDS:,}" in message

    def test_hundred_thousand_bad_batch_items_get_a_short_answer(self, http: httpx2.Client) -> None:
        message = refused(http.post("/memories/batch", json={"items": [7] * 100_000}), 422, "items")
        assert str(MAX_BATCH) in message

    def test_a_thousand_bad_batch_items_report_the_first_few_and_a_count(self, http: httpx2.Client) -> None:
        message = refused(http.post("/memories/batch", json={"items": [7] * MAX_BATCH}), 422, "items.0")
        assert f"and {MAX_BATCH - 5:,} more" in message

    def test_a_batch_item_with_a_huge_unknown_field_name(self, http: httpx2.Client) -> None:
        item = {"content": "x", "k" * 100_000: 1}
        message = refused(http.post("/memories/batch", json={"items": [item]}), 400)
        assert "characters" in message

    def test_unknown_body_field_with_a_huge_name(self, http: httpx2.Client) -> None:
        refused(http.post("/search", json={"query": "x", "q" * 1_000_000: 1}), 422)

    def test_body_over_the_limit_is_413(self, http: httpx2.Client) -> None:
        body = b'{"content": "' + b"a" * (REQUEST_BYTES + 1) + b'"}'
        message = refused(http.post("/memories", content=body, headers={"content-type": "application/json"}), 413)
        assert f"{REQUEST_BYTES:,}" in message

    def test_streamed_body_over_the_limit_is_413(self, http: httpx2.Client) -> None:
        def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
            yield b'{"content": "'
            for _ in range(REQUEST_BYTES // (1 << 20) + 1):
                yield b"a" * (1 << 20)
            yield b'"}'

        refused(http.post("/memories", content=chunks(), headers={"content-type": "application/json"}), 413)

    def test_invalid_at_before_valid_at(self, http: httpx2.Client, mem: Knotwork) -> None:
        target = mem.list(workspace="shop", limit=1)[0].id
        message = refused(http.patch(f"/memories/{target}", json={"valid_at": "2026-01-02", "invalid_at": "2026-01-01"}), 400, "invalid_at")
        assert "before valid_at" in message


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"content": "x", "artifacts": ["a\\ud800"]}', "artifacts"),
        ('{"content": "x", "evidence": ["\\udfff"]}', "evidence"),
        ('{"content": "x", "tags": {"k": "\\ud800"}}', "tags"),
        ('{"content": "x", "metadata": {"\\ud800": 1}}', "metadata"),
        ('{"content": "x", "facts": [{"subject": "a", "predicate": "uses", "object": "\\ud800"}]}', "facts[0].object"),
        ('{"content": "a\\ud800b"}', "content"),
    ],
)
def test_a_lone_surrogate_is_a_400_not_a_500(http: httpx2.Client, body: str, field: str) -> None:
    """JSON may escape half a surrogate pair; Python's parser lets it through, UTF-8 cannot hold it."""
    message = refused(http.post("/memories", content=body, headers={"content-type": "application/json"}), 400, field)
    assert "lone surrogate" in message


def test_the_spec_lists_error_answers_compact_text_and_ranges(http: httpx2.Client) -> None:
    spec = http.get("/openapi.json").json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            # 404 too where no id is in the path: a body or query can name a missing one (POST /entities/merge,
            # GET /communities?entity=..., POST /links), as tests/adapters/test_openapi_fuzz.py found.
            assert {"400", "404", "422"} <= set(answers), (method, path)
            error = answers["422"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}, (method, path)
            if any(p["name"] == "format" for p in operation.get("parameters", [])):
                ok = [a for status, a in answers.items() if status.startswith("2")]
                assert ok and all("text/plain" in a["content"] for a in ok), (method, path)
    listing = {p["name"]: p["schema"] for p in spec["paths"]["/memories"]["get"]["parameters"]}
    assert (listing["limit"]["minimum"], listing["limit"]["maximum"]) == (1, 1000)
    graph = {p["name"]: p["schema"] for p in spec["paths"]["/memories/{id}/graph"]["get"]["parameters"]}
    assert (graph["max_depth"]["minimum"], graph["max_depth"]["maximum"]) == (1, 3)


def test_the_spec_ranges_are_the_service_ranges(http: httpx2.Client) -> None:
    """A value just outside a declared range is refused (400, by the service), one on its edge is not."""
    assert http.get("/memories", params={"limit": 1000}).status_code == 200
    refused(http.get("/memories", params={"limit": 1001}), 400, "limit")
    target = http.get("/memories", params={"workspace": "shop", "limit": 1}).json()["memories"][0]["id"]
    assert http.get(f"/memories/{target}/graph", params={"max_depth": 3}).status_code == 200
    refused(http.get(f"/memories/{target}/graph", params={"max_depth": 4}), 400, "max_depth")


def test_a_blank_token_is_refused_at_start_up(mem: Knotwork) -> None:
    with pytest.raises(knotwork.InvalidInput, match="KNOTWORK_API_TOKEN"):
        with serving(mem, api_token="   "):
            pass


def test_compact_answers_are_text(http: httpx2.Client) -> None:
    r = http.get("/memories", params={"workspace": "shop", "format": "compact"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert json.dumps(r.text)  # text, not JSON of a memory list
