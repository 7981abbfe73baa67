"""Malformed MCP messages over streamable HTTP get one-line JSON-RPC errors, as over stdio; good ones still work."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from .conftest import HttpLauncher

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module: no message here writes anything, and each malformed one must leave it serving
    the next (the good message included, whichever order the tests run in)."""
    home = tmp_path_factory.mktemp("envelope")
    launcher = HttpLauncher(home / "home")
    try:
        endpoint = launcher.start(home / "envelope.db")
        assert endpoint.base_url
        yield endpoint.base_url
    finally:
        launcher.stop_all()


@pytest.mark.parametrize(
    ("body", "request_id", "code", "words"),
    [
        ('{"jsonrpc": "2.0", "id": 7, "metho": "tools/list"}', 7, -32600, "not a JSON-RPC 2.0 message"),
        ('{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": 5}', "a", -32600, "params"),
        ('{"jsonrpc": "2.0", "id": 3, "method": "x", "big": "' + "z" * 200_000 + '"', 3, -32700, "not valid JSON"),
        ("[" * 100_000, None, -32700, "not valid JSON"),
        ('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "\\ud800"}}', 9, -32700, "not valid JSON"),
    ],
    ids=["misspelt-method", "params-not-object", "cut-off", "deep-nesting", "lone-surrogate"],
)
def test_a_malformed_message_gets_a_one_line_error(base_url: str, body: str, request_id, code: int, words: str) -> None:
    answer = httpx2.post(f"{base_url}/mcp", content=body.encode(), headers=HEADERS, timeout=30)
    assert answer.status_code == 400
    reply = answer.json()
    assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id
    assert reply["error"]["code"] == code
    message = reply["error"]["message"]
    assert words in message and "\n" not in message and len(message) < 400


def test_a_good_message_passes_through(base_url: str) -> None:
    body = ('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",'
            ' "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}')
    answer = httpx2.post(f"{base_url}/mcp", content=body.encode(), headers=HEADERS, timeout=30)
    assert answer.status_code == 200
    assert '"serverInfo"' in answer.text and '"id":1' in answer.text.replace(" ", "")
