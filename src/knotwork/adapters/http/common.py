"""What every router shares: the service of the running app, the default workspace, and rendering."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response

from knotwork.render import render
from knotwork.service import Knotwork

Format = Annotated[Literal["json", "compact"], Query(description="json (default) or compact text, as agents read it")]


def _mem(request: Request) -> Knotwork:
    return request.app.state.mem


Mem = Annotated[Knotwork, Depends(_mem)]


def default_workspace(request: Request, given: str | None) -> str | None:
    """The workspace a call names, else the one the server was started with."""
    return given if given is not None else request.app.state.default_workspace


def reply(operation: str, result: Any, fmt: str = "json", status_code: int = 200) -> Response:
    """The one way routers answer: rendered by ``render`` as JSON or compact text."""
    if fmt == "compact":
        return PlainTextResponse(render(operation, result, "compact"), status_code=status_code)
    return Response(render(operation, result, "json"), status_code=status_code, media_type="application/json")
