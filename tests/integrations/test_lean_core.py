"""The frameworks stay optional: importing knotwork (and the integrations package) imports none of them."""

from __future__ import annotations

import subprocess
import sys

import pytest

FRAMEWORKS = ("langgraph", "langchain_core", "agents", "pydantic_ai")


def test_importing_knotwork_imports_no_framework() -> None:
    code = (
        "import sys, knotwork, knotwork.integrations, knotwork.integrations._tools\n"
        "from knotwork.adapters import cli, mcp\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({FRAMEWORKS!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_adapter_imports_its_framework() -> None:
    pytest.importorskip("langgraph")
    code = "import sys, knotwork.integrations.langgraph\nprint('langgraph' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
