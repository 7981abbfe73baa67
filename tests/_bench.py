"""A script of bench/ imported as a module, for the tests of its loader and its metrics."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(script: str, name: str) -> ModuleType:
    """``bench/<script>`` as the module ``name``: bench/ is on the path while it loads (the scripts import one
    another), and the module stays in ``sys.modules`` (dataclasses look their module up there)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / script)
        assert spec is not None and spec.loader is not None, script
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module
