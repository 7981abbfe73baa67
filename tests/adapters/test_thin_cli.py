"""CLI commands that need no model do not load it: the embedding runtime stays out of their process.

Each command runs as its own process; an exit hook reports whether ``onnxruntime`` was imported. ``search``
(which embeds its query) is the control: it must load it, so the probe can see a load when there is one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import knotwork

from .conftest import PROBE, clean_env


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    home = tmp_path_factory.mktemp("home")
    with knotwork.open(home / "knotwork.db") as mem:
        a = mem.add("The staging database is restored from the nightly backup", workspace="w")
        b = mem.add("Restores are tested every Monday", workspace="w")
        mem.link(a.id, b.id, "relates_to")
        mem.update(a.id, importance=0.9)
    return home, a.id, b.id


def _loads_model(home: Path, *args: str) -> bool:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=clean_env(home, {"KNOTWORK_URL": "none"}),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1] == "ORT=1"


@pytest.mark.parametrize("command", ["get", "list", "history", "stats", "status", "export", "related", "graph"])
def test_a_command_that_needs_no_model_does_not_load_it(home: tuple[Path, str, str], command: str) -> None:
    folder, a, _ = home
    args = {"get": [a], "history": [a], "related": [a], "graph": [a], "list": ["-w", "w"]}.get(command, [])
    assert not _loads_model(folder, command, *args)


def test_search_loads_it(home: tuple[Path, str, str]) -> None:
    folder, _, _ = home
    assert _loads_model(folder, "search", "when are restores tested", "-w", "w")


HEAVY = ("numpy", "onnxruntime", "networkx", "knotwork.knowledge.extract", "knotwork.services.knowledge",
         "knotwork.search.pipeline", "tqdm")
MODULES_PROBE = (
    "import sys, atexit; atexit.register(lambda: sys.stderr.write('\\nLOADED=' + ','.join("
    f"m for m in {HEAVY!r} if m in sys.modules) + '\\n'));"
    " from knotwork.adapters.entry import main; main(sys.argv[1:])"
)


def _heavy_modules(home: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", MODULES_PROBE, *args], env=clean_env(home, {"KNOTWORK_URL": "none"}),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the command printed nothing"
    loaded = done.stderr.strip().splitlines()[-1].removeprefix("LOADED=")
    return set(loaded.split(",")) - {""}


@pytest.mark.parametrize("command", ["get", "list", "history", "stats", "status"])
def test_reading_memories_imports_no_engine(home: tuple[Path, str, str], command: str) -> None:
    """What makes get/list/stats start fast: no NumPy, model runtime, graph library, extraction rules or search
    pipeline (stats and status count the graph's queue from the store, without its engine)."""
    folder, a, _ = home
    args = {"get": [a], "history": [a], "list": ["-w", "w"], "stats": [], "status": []}[command]
    assert _heavy_modules(folder, command, *args) == set()


def test_the_module_probe_sees_engines_that_load(home: tuple[Path, str, str]) -> None:
    folder, _, _ = home
    loaded = _heavy_modules(folder, "search", "when are restores tested", "-w", "w")
    assert {"numpy", "onnxruntime", "knotwork.search.pipeline"} <= loaded
