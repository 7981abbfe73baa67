"""The facade, the scoped view and the remote client each implement the one service Protocol
(``knotwork.service_api.ServiceApi``): every method, taking every parameter the same way."""

from __future__ import annotations

import inspect

import pytest

from knotwork.adapters.client import RemoteKnotwork
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
