"""The MCP contract over stdio: each client launches its own ``knotwork mcp --db PATH`` process."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._mcp import McpContract
from .conftest import Endpoint


@pytest.fixture
def start_mcp(start_stdio: Callable[..., Endpoint]) -> Callable[..., Endpoint]:
    return start_stdio


@pytest.fixture(scope="class")
def start_mcp_shared(start_stdio_shared: Callable[..., Endpoint]) -> Callable[..., Endpoint]:
    return start_stdio_shared


class TestMcpOverStdio(McpContract):
    transport = "stdio"
