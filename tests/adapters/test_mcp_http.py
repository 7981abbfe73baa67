"""The MCP contract over streamable HTTP: ``knotwork serve --db PATH --port N``, client at /mcp."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._mcp import McpContract
from .conftest import Endpoint


@pytest.fixture
def start_mcp(start_http: Callable[..., Endpoint]) -> Callable[..., Endpoint]:
    return start_http


@pytest.fixture(scope="class")
def start_mcp_shared(start_http_shared: Callable[..., Endpoint]) -> Callable[..., Endpoint]:
    return start_http_shared


class TestMcpOverHttp(McpContract):
    transport = "http"
