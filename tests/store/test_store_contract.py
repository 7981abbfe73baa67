"""The store contract is written down whole: every store method the layers above call is declared by a part of
``knotwork.store.protocol.Store``, and both backends implement every declared method with its parameters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from knotwork.store.postgres.store import PostgresStore
from knotwork.store.protocol import Store
from knotwork.store.sqlite.store import SQLiteStore

SRC = Path(__file__).resolve().parents[2] / "src" / "knotwork"
BACKENDS = [SQLiteStore, PostgresStore]


def declared() -> set[str]:
    names = {n for n in dir(Store) if not n.startswith("_")}
    for part in Store.__mro__:
        names |= {n for n in getattr(part, "__annotations__", {}) if not n.startswith("_")}
    return names - {n for n in dir(object)}


def _is_store(node: ast.expr) -> bool:
    """``store``, ``_store``, ``x.store`` or ``x._store``, but not the package path ``knotwork.store``."""
    if isinstance(node, ast.Name):
        return node.id in ("store", "_store")
    if isinstance(node, ast.Attribute) and node.attr in ("store", "_store"):
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return not (isinstance(root, ast.Name) and root.id == "knotwork")
    return False


def called_outside_store() -> dict[str, list[str]]:
    """Store method name -> where code outside ``store/`` reads it (file:line)."""
    out: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if "store" in path.relative_to(SRC).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _is_store(node.value) and not node.attr.startswith("__"):
                out.setdefault(node.attr, []).append(f"{path.relative_to(SRC)}:{node.lineno}")
    return out


def test_every_store_method_called_above_the_store_is_declared() -> None:
    calls = called_outside_store()
    assert len(calls) > 100  # the scan sees the layers' calls (it is not passing by finding none)
    undeclared = {name: where[:3] for name, where in calls.items() if name not in declared()}
    assert undeclared == {}, f"declare these in a part of store/contract/: {undeclared}"


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
def test_each_backend_implements_every_declared_method_with_its_parameters(backend: type) -> None:
    missing, differing = [], []
    for name in sorted(declared()):
        wanted = getattr(Store, name, None)
        if not callable(wanted):
            continue
        got = getattr(backend, name, None)
        if got is None:
            missing.append(name)
            continue
        params = [p for p in inspect.signature(wanted).parameters if p != "self"]
        have = [p for p in inspect.signature(got).parameters if p != "self"]
        if have[: len(params)] != params:
            differing.append(f"{name}: declared {params}, implemented {have}")
    assert missing == [] and differing == []
