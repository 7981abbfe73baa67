"""Layers flow down: nothing the facade's module (``knotwork.service``) imports imports it back, not even for
type hints (services are typed against narrow views of what they use), and the renderers of results do not
reach up to it."""

from __future__ import annotations

import ast
from pathlib import Path

import knotwork

SRC = Path(knotwork.__file__).parent


def module_name(path: Path) -> str:
    return ".".join(["knotwork", *path.relative_to(SRC).with_suffix("").parts]).removesuffix(".__init__")


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


def imports(name: str) -> set[str]:
    """The knotwork modules ``name`` imports, at any level (type-checking blocks and functions included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        else:
            continue
        out.update(m for m in found if m in MODULES and m not in (name, "knotwork"))
    return out


def reaches(start: str, goal: str) -> list[str] | None:
    """An import path from ``start`` to ``goal``, or None."""
    seen, stack = {start}, [[start]]
    while stack:
        path = stack.pop()
        for nxt in imports(path[-1]):
            if nxt == goal:
                return [*path, nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append([*path, nxt])
    return None


def test_nothing_the_facade_imports_imports_it_back() -> None:
    circles = [path for m in sorted(imports("knotwork.service")) if (path := reaches(m, "knotwork.service"))]
    assert circles == []


def test_renderers_of_results_do_not_reach_up_to_the_facade() -> None:
    render = sorted(m for m in MODULES if m.startswith("knotwork.render."))
    assert "knotwork.render.respond" in render  # the adapters' Responder too: typed against what it asks
    for name in render:
        assert reaches(name, "knotwork.service") is None, name


def test_the_command_line_modules_import_no_circle() -> None:
    """The ``knotwork`` command's modules share their helpers through ``adapters/cli_common.py`` and export their
    commands for ``cli.py`` to gather: none of them imports ``cli.py`` back, and no import path among them
    (``entry.py`` included) returns to where it started."""
    names = sorted(m for m in MODULES if m.startswith("knotwork.adapters.cli") or m == "knotwork.adapters.entry")
    assert {"knotwork.adapters.cli", "knotwork.adapters.cli_common", "knotwork.adapters.entry"} <= set(names)
    for name in names:
        assert reaches(name, name) is None, reaches(name, name)
    for name in names:
        if name not in ("knotwork.adapters.cli", "knotwork.adapters.entry"):
            assert "knotwork.adapters.cli" not in imports(name), name


def test_renderers_import_no_service_module() -> None:
    """What the renderers show (``MetaRelation``, ``ImportReport``…) lives below both them and the services
    (``domain/models.py``), so ``render/`` imports nothing from ``services/``."""
    render = sorted(m for m in MODULES if m.startswith("knotwork.render"))
    assert "knotwork.render.compact" in render
    for name in render:
        assert not any(m.startswith("knotwork.services") for m in imports(name)), (name, imports(name))


def test_services_import_no_renderer() -> None:
    """The services hand results up and the adapters render them: what a service must write itself (ambient
    recall measures the very text it hands out; the status views read the metrics file) lives below both
    (``text/``, ``metrics.py``), so ``services/`` imports nothing from ``render/``."""
    services = sorted(m for m in MODULES if m.startswith("knotwork.services."))
    assert {"knotwork.services.recall", "knotwork.services.browse"} <= set(services)
    for name in services:
        assert not any(m.startswith("knotwork.render") for m in imports(name)), (name, imports(name))
