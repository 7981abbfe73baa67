"""Layers flow down: nothing the facade's module (``knotwork.service``) imports imports it back, not even for
type hints (services are typed against narrow views of what they use), the renderers of results do not reach
up to it, and what serves only the adapters on top of the facade (``views/``) is imported by nothing below."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import knotwork

SRC = Path(knotwork.__file__).parent


def module_name(path: Path) -> str:
    return ".".join(["knotwork", *path.relative_to(SRC).with_suffix("").parts]).removesuffix(".__init__")


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


@cache  # the walks below ask for the same module again and again; each file is parsed once per run
def imports(name: str) -> frozenset[str]:
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
    return frozenset(out)


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
    assert {"knotwork.services.recall", "knotwork.services.status"} <= set(services)
    for name in services:
        assert not any(m.startswith("knotwork.render") for m in imports(name)), (name, imports(name))


# What may import the floor above the facade (``views/``): the adapters, the framework integrations, and the
# views themselves.
ABOVE_THE_FACADE = ("knotwork.adapters", "knotwork.integrations", "knotwork.views")


def test_adapter_only_views_stand_above_the_facade() -> None:
    """The scoped view (``views/access.py``), the web UI's overviews (``views/browse.py``) and the misses that say
    where to look (``views/elsewhere.py``) hold the facade itself and serve only the adapters: they are a floor
    of their own above the facade. No module of ``services/`` names the facade (not even for a type hint), and
    nothing below the adapters imports ``views/``."""
    views = sorted(m for m in MODULES if m.startswith("knotwork.views."))
    assert {"knotwork.views.access", "knotwork.views.browse", "knotwork.views.elsewhere"} <= set(views)
    services = sorted(m for m in MODULES if m.startswith("knotwork.services."))
    assert "knotwork.services.recall" in services
    for name in services:
        assert "knotwork.service" not in imports(name), name
    for name in sorted(MODULES):
        if not name.startswith(ABOVE_THE_FACADE):
            assert not any(m.startswith("knotwork.views") for m in imports(name)), (name, imports(name))


def test_only_the_integrations_read_the_package_root() -> None:
    """The package root (``knotwork/__init__.py``) is the library's front door: it loads the facade on first use,
    so a module inside that read a name from it (``__version__``: ``knotwork.version`` holds it) would climb
    from its floor to the top. ``from knotwork import tokens`` names a module and is no such read."""
    readers = []
    for name in sorted(MODULES):
        if name == "knotwork" or name.startswith("knotwork.integrations"):
            continue
        for node in ast.walk(ast.parse(MODULES[name].read_text("utf-8"))):
            if isinstance(node, ast.Import) and any(a.name == "knotwork" for a in node.names):
                readers.append((name, "import knotwork"))
            elif isinstance(node, ast.ImportFrom) and node.module == "knotwork" and node.level == 0:
                readers.extend((name, a.name) for a in node.names if f"knotwork.{a.name}" not in MODULES)
    assert readers == []


# The modules an add runs through below the facade: deciding (hygiene), the plan, applying it (writes), and
# what applying writes with (versions, links, lookups, the graph and its queue).
ADD_PATH = ("knotwork.services.hygiene", "knotwork.services.addplan", "knotwork.services.writes",
            "knotwork.services.versions", "knotwork.services.links", "knotwork.services.lookup",
            "knotwork.services.knowledge", "knotwork.services.enrichment", "knotwork.services.parts")


def test_the_add_path_imports_nothing_of_the_facade() -> None:
    """Hygiene decides and the write path applies without the facade's module, not even for a type hint."""
    for name in ADD_PATH:
        assert name in MODULES, name
        assert reaches(name, "knotwork.service") is None, reaches(name, "knotwork.service")


def _holds(start: object, goal: object) -> list[str] | None:
    """A chain of references from ``start`` to ``goal`` (attributes, items, bound methods, partials, closures),
    or None. Modules, classes and functions' globals are not followed: only what the object itself holds."""
    import functools
    import types

    seen, stack = {id(start)}, [(start, ["<start>"])]
    while stack:
        obj, path = stack.pop()
        nxt: list[tuple[str, object]] = []
        if isinstance(obj, types.MethodType):
            nxt = [("__self__", obj.__self__), ("__func__", obj.__func__)]
        elif isinstance(obj, functools.partial):
            nxt = [("func", obj.func), *((f"args[{i}]", a) for i, a in enumerate(obj.args)), *obj.keywords.items()]
        elif isinstance(obj, types.FunctionType):
            nxt = [(f"closure[{i}]", c.cell_contents) for i, c in enumerate(obj.__closure__ or ()) if c.cell_contents is not None]
        elif isinstance(obj, dict | types.MappingProxyType):
            nxt = [(f"[{k!r}]", v) for k, v in obj.items()]
        elif isinstance(obj, list | tuple | set | frozenset):
            nxt = [(f"[{i}]", v) for i, v in enumerate(obj)]
        elif not isinstance(obj, types.ModuleType | type | str | bytes | int | float | bool):
            nxt = list(getattr(obj, "__dict__", {}).items())
            nxt += [(s, getattr(obj, s)) for c in type(obj).__mro__ for s in getattr(c, "__slots__", ()) if hasattr(obj, s)]
        for label, child in nxt:
            if child is goal:
                return [*path, str(label)]
            if id(child) not in seen:
                seen.add(id(child))
                stack.append((child, [*path, str(label)]))
    return None


def test_no_part_of_an_add_holds_the_facade(tmp_path: Path) -> None:
    """Hygiene, the write path and the graph below them hold no reference to the ``Knotwork`` object (no bound
    method of it, no callback closing over it): an add cannot climb back up to the facade in its middle, as it did
    when hygiene read and linked memories through it and the graph reported value changes to it."""
    with knotwork.open(str(tmp_path / "k.db")) as mem:
        parts = {"hygiene": mem.hygiene, "writes": mem.writes, "knowledge": mem.knowledge, "enrichment": mem.enrichment}
        assert mem.knowledge.on_value_changed is not None  # the graph still reports value changes: not to the facade
        for name, part in parts.items():
            assert _holds(part, mem) is None, (name, _holds(part, mem))
        assert _holds({"callback": [mem.get]}, mem) is not None  # the walk finds a facade that is held
