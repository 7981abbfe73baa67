"""The MCP contract over stdio: each client launches its own ``knotwork mcp --db PATH`` process."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._mcp import McpContract
from .conftest import Endpoint


@pytest.fixture
def start_mcp(start_stdio: Callable[..., Endpoint]) -> Callable[..., Endpoint]:
    return start_stdio


class TestMcpOverStdio(McpContract):
    transport = "stdio"
