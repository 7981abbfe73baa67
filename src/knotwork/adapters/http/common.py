"""What every router shares: the service of the running app, the default workspace, and rendering."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response

from knotwork.render.respond import Responder
from knotwork.service_api import ServiceApi
from knotwork.views.access import scoped

def ranged(low: float, high: float) -> dict[str, Any]:
    """A number's range, for the spec: the service checks it (400 outside), so FastAPI is not asked to (422)."""
    return {"json_schema_extra": {"minimum": low, "maximum": high}}


Format = Annotated[Literal["json", "compact"], Query(description="json (default) or compact text, as agents read it")]


def _scoped(request: Request) -> ServiceApi:
    """The service as this request's caller may use it (the scope :class:`~knotwork.adapters.http.app.Access` found)."""
    return scoped(request.app.state.mem, getattr(request.state, "knotwork_caller", None))


# The dependencies are coroutines on purpose: they do no I/O, and FastAPI runs a plain function dependency in
# the thread pool, so each request would pay two more hand-offs between the event loop and a thread (and the
# GIL) before its endpoint even starts.
async def _mem(request: Request) -> ServiceApi:
    return _scoped(request)


#: The service a route calls: the facade for the owner, the scoped view for a token or ``serve -w`` (views/access.py).
Mem = Annotated[ServiceApi, Depends(_mem)]


def default_workspace(request: Request, given: str | None) -> str | None:
    """The workspace a call names, else the one the server was started with."""
    return given if given is not None else request.app.state.default_workspace


async def _reply(request: Request) -> Callable[..., Response]:
    respond: Responder = request.app.state.respond.as_caller(_scoped(request))

    def reply(operation: str, result: Any, fmt: str = "json", status_code: int = 200) -> Response:
        """Rendered by the adapters' one ``Responder``: JSON, or the compact text agents read."""
        text = respond(operation, result, fmt)
        if fmt == "compact":
            return PlainTextResponse(text, status_code=status_code)
        return Response(text, status_code=status_code, media_type="application/json")

    return reply


Reply = Annotated[Callable[..., Response], Depends(_reply)]
