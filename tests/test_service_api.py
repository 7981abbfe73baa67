"""The facade, the scoped view and the remote client each implement the one service Protocol
(``knotwork.service_api.ServiceApi``): every method, taking every parameter the same way; and the adapters,
typed against it, call nothing else on the service they are handed."""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork.adapters.client import RemoteKnotwork
from knotwork.adapters.http.common import Mem
from knotwork.service import Knotwork
from knotwork.service_api import ServiceApi
from knotwork.views.access import ScopedKnotwork

METHODS = sorted(n for n, v in vars(ServiceApi).items() if callable(v) and not n.startswith("_"))
VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def takes(impl: inspect.Signature, wanted: inspect.Parameter) -> str | None:
    """Why ``impl`` does not take ``wanted`` as the Protocol does (None: it does)."""
    have = impl.parameters.get(wanted.name)
    if have is None:
        keyword_only = wanted.kind is inspect.Parameter.KEYWORD_ONLY
        if keyword_only and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in impl.parameters.values()):
            return None  # passed on through **options, as the scoped view does
        if wanted.kind in VARIADIC and any(p.kind is wanted.kind for p in impl.parameters.values()):
            return None
        return "missing"
    if have.kind is not wanted.kind:
        return f"{have.kind.description}, not {wanted.kind.description}"
    if (have.default is inspect.Parameter.empty) != (wanted.default is inspect.Parameter.empty):
        return "required" if have.default is inspect.Parameter.empty else "optional"
    return None


@pytest.mark.parametrize("cls", [Knotwork, ScopedKnotwork, RemoteKnotwork], ids=lambda c: c.__name__)
def test_each_service_implements_every_method_of_the_protocol(cls: type) -> None:
    assert len(METHODS) >= 30 and "search" in METHODS and "add" in METHODS
    problems = []
    for name in METHODS:
        if not callable(getattr(cls, name, None)):
            problems.append(f"{name}: missing")
            continue
        impl = inspect.signature(getattr(cls, name))
        wanted = inspect.signature(getattr(ServiceApi, name))
        positional = [p.name for p in wanted.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        taken = [p.name for p in impl.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        if taken[: len(positional)] != positional:
            problems.append(f"{name}: positional parameters {taken} against {positional}")
        for param in wanted.parameters.values():
            why = takes(impl, param)
            if why:
                problems.append(f"{name}({param.name}): {why}")
        for param in impl.parameters.values():  # what the Protocol does not name must not be required
            if param.name not in wanted.parameters and param.kind not in VARIADIC and param.default is inspect.Parameter.empty:
                problems.append(f"{name}({param.name}): required, and not in the Protocol")
    assert problems == []


def test_the_protocol_names_what_every_service_has_in_common() -> None:
    """A public method that all three offer belongs in the Protocol (so the adapters can be typed against it)."""

    def public(cls: type) -> set[str]:
        return {n for n, v in inspect.getmembers(cls) if not n.startswith("_") and callable(v)}

    shared = public(Knotwork) & public(ScopedKnotwork) & public(RemoteKnotwork)
    assert shared - set(METHODS) == set()


# -- the adapters are typed against the Protocol -------------------------------------------------------------
SRC = Path(knotwork.__file__).parent
MEMBERS = set(METHODS) | set(ServiceApi.__annotations__)
#: The adapters that hold the facade itself, for what only the owner of a store opened in this process does:
#: back it up, check it, build the REST app and the MCP server over it (workers, warming, the enrichment worker),
#: help this process's enrichment worker read an import into the graph.
FACADE_ONLY = {
    "adapters/cli_hygiene.py:backup", "adapters/cli_hygiene.py:check", "adapters/http/app.py:create_app",
    "adapters/mcp.py:build_server", "adapters/cli.py:_read_into_graph",
}


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (SRC / folder).rglob("*.py"))


def _typed_as_service(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function types ``ServiceApi`` (``Mem`` is the REST routes' ``Annotated[ServiceApi, ...]``)."""
    args = node.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
             if a.annotation is not None and ast.unparse(a.annotation) in ("ServiceApi", "Mem")}
    names |= {n.target.id for n in ast.walk(node) if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
              and ast.unparse(n.annotation) == "ServiceApi"}
    return names


def _uses(node: ast.AST, names: set[str]) -> Iterator[tuple[str, int]]:
    """``name.attribute`` for each of ``names`` in ``node``, but inside ``if isinstance(name, ...)`` (narrowed)."""
    def narrowed(test: ast.AST) -> bool:
        return (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and isinstance(test.args[0], ast.Name) and test.args[0].id in names)

    if isinstance(node, (ast.If, ast.IfExp)) and narrowed(node.test):
        rest = node.orelse if isinstance(node.orelse, list) else [node.orelse]
        for child in rest:
            yield from _uses(child, names)
        return
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
        yield node.attr, node.lineno
    for child in ast.iter_child_nodes(node):
        yield from _uses(child, names)


def test_the_adapters_call_only_what_the_protocol_offers() -> None:
    """Every ``mem.X`` an adapter (or a view above the facade) calls on a service typed ``ServiceApi`` is an
    operation of the Protocol, so whichever of the three it is handed answers it."""
    assert typing.get_args(Mem)[0] is ServiceApi
    outside, typed = [], 0
    for path in _modules("adapters", "views"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (names := _typed_as_service(node)):
                typed += 1
                outside += [f"{path.relative_to(SRC)}:{line} {attr}" for attr, line in _uses(node, names) if attr not in MEMBERS]
    assert typed >= 60  # the CLI's commands, the REST routes, the MCP tools, the views
    assert outside == []


def test_no_adapter_takes_an_untyped_service() -> None:
    """An adapter's service (``mem``) is typed ``ServiceApi``; only the few that need what the owner alone does
    hold the facade (:data:`FACADE_ONLY`), and none takes ``Any``."""
    facade, loose = set(), []
    for path in _modules("adapters"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                if arg.arg != "mem":
                    continue
                kind = ast.unparse(arg.annotation) if arg.annotation is not None else "none"
                where = f"{path.relative_to(SRC)}:{node.name}"
                if kind == "Knotwork":
                    facade.add(where)
                elif kind not in ("ServiceApi", "Mem"):
                    loose.append(f"{where}: {kind}")
    assert loose == []
    assert facade == FACADE_ONLY
