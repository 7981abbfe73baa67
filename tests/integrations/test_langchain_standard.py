"""LangChain's own standard tests (the ``langchain-tests`` package) for the retriever and the memory tools, when
that package is installed. It is not part of the test extra (it brings pytest plugins every other test would load);
run it with::

    pip install --target /tmp/lct langchain-tests==1.1.9 pytest-asyncio==1.5.0 syrupy==5.5.3 pytest-socket==0.8.1 --no-deps
    PYTHONPATH=src:/tmp/lct python -m pytest tests/integrations/test_langchain_standard.py -o asyncio_mode=auto -p no:cacheprovider
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_tests")

from langchain_core.tools import BaseTool  # noqa: E402
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests  # noqa: E402
from langchain_tests.unit_tests import ToolsUnitTests  # noqa: E402

import knotwork  # noqa: E402
from knotwork.integrations.langchain import KnotworkRetriever, memory_tools  # noqa: E402

_MEM = knotwork.open(":memory:")  # the standard tests build their subject from class properties, not fixtures
_MEM.add_many([{"content": f"Release {i} of the billing service moved the invoices to queue {i}", "workspace": "std"}
               for i in range(5)])


class TestKnotworkRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[KnotworkRetriever]:
        return KnotworkRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"mem": _MEM, "workspace": "std", "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return "which queue holds the invoices of the billing service?"


class TestRecallToolStandard(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return memory_tools(_MEM, workspace="std")[1]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "billing service invoices", "limit": 2}


class TestRememberToolStandard(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return memory_tools(_MEM, workspace="std")[0]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"content": "The standard tests ran against the remember tool", "tags": {"suite": "standard"}}


class TestForgetToolUnitStandard(ToolsUnitTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return memory_tools(_MEM, workspace="std")[2]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"id": "0123456789ABCDEFGHJKMNPQRS"}


class TestRememberToolUnitStandard(ToolsUnitTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return memory_tools(_MEM, workspace="std")[0]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"content": "The unit standard tests ran too", "tags": None, "category": "fact"}
