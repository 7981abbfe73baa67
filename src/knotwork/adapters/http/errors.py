"""knotwork errors as HTTP answers, mapped once: a 4xx (or 503) with a JSON body naming the problem.

Body: ``{"error": {"type": "not_found", "message": "...", ...}}``; invalid input
also names its ``field``, an ambiguous id its ``candidates``.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, Forbidden, InvalidInput, KnotworkError, NotFound, quote
from knotwork.limits import ERRORS_SHOWN, QUOTE_CHARS

# Most specific first: AmbiguousId and NotFound are both LookupErrors, InvalidInput a ValueError.
STATUS: tuple[tuple[type[KnotworkError], int, str], ...] = (
    (Forbidden, 403, "forbidden"),
    (InvalidInput, 400, "invalid_input"),
    (AmbiguousId, 400, "ambiguous_id"),
    (NotFound, 404, "not_found"),
    (Conflict, 409, "conflict"),
    (BackendUnavailable, 503, "backend_unavailable"),
    (KnotworkError, 400, "error"),
)


def error_body(kind: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message, **extra}}


def status_of(exc: KnotworkError) -> tuple[int, str]:
    for cls, code, kind in STATUS:
        if isinstance(exc, cls):
            return code, kind
    return 400, "error"


async def _knotwork_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, KnotworkError)
    code, kind = status_of(exc)
    extra: dict[str, Any] = {}
    if isinstance(exc, InvalidInput):
        extra["field"] = exc.field
    if isinstance(exc, AmbiguousId):
        extra["candidates"] = exc.candidates
    elif isinstance(exc, NotFound) and getattr(exc, "by", None):  # what a client needs to word the miss its own way
        extra.update(record=exc.kind, ref=exc.ref, by=exc.by, elsewhere=exc.elsewhere)
    return JSONResponse(error_body(kind, str(exc), **extra), status_code=code)


def _location(loc: tuple[Any, ...]) -> str:
    """The field a validation error names: its location without the leading source (body, query, path…),
    so a body field that happens to be called ``query`` keeps its name."""
    if loc and loc[0] in ("body", "query", "path", "header", "cookie"):
        loc = loc[1:]
    text = ".".join(p if isinstance(p, str) and len(p) <= QUOTE_CHARS else quote(p) for p in map(_part, loc))
    return text or "request"


def _part(p: Any) -> str:
    return p if isinstance(p, str) else str(p)


def validation_summary(errors: list[Any]) -> tuple[str, str]:
    """The first few problems of a validation (field: message) and a count of the rest, and the first field:
    a request with 100,000 bad items gets a one-line answer, not one line per item."""
    problems = [f"{_location(tuple(e.get('loc', ())))}: {str(e.get('msg', 'invalid'))[: 2 * QUOTE_CHARS]}" for e in errors[:ERRORS_SHOWN]]
    more = f"; and {len(errors) - ERRORS_SHOWN:,} more" if len(errors) > ERRORS_SHOWN else ""
    first = _location(tuple(errors[0].get("loc", ()))) if errors else "request"
    return "; ".join(problems) + more or "invalid request", first


def body_problem(cause: BaseException | None) -> str | None:
    """What is wrong with a body that could not be read as JSON, in the sender's terms: where the JSON breaks
    (line and column), or which byte is not UTF-8 (its offset); None for anything else."""
    if isinstance(cause, json.JSONDecodeError):
        return f"body: is not valid JSON: {cause.msg} at line {cause.lineno}, column {cause.colno} (character {cause.pos + 1})"
    if isinstance(cause, UnicodeDecodeError):
        return (f"body: is not valid UTF-8: byte 0x{cause.object[cause.start]:02x} at byte offset {cause.start} cannot be"
                " decoded; send the body in UTF-8")
    return None


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problem = body_problem(exc.__cause__)
    if problem is not None:
        return JSONResponse(error_body("invalid_request", problem, field="body"), status_code=422)
    message, field = validation_summary(list(exc.errors()))
    return JSONResponse(error_body("invalid_request", message, field=field), status_code=422)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    problem = body_problem(exc.__cause__)  # FastAPI's "There was an error parsing the body"
    if exc.status_code == 400 and problem is not None:
        return JSONResponse(error_body("invalid_request", problem, field="body"), status_code=400)
    kinds = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 413: "request_too_large"}
    return JSONResponse(
        error_body(kinds.get(exc.status_code, "http_error"), str(exc.detail)), status_code=exc.status_code, headers=exc.headers
    )


def install(app: FastAPI) -> None:
    """Register the one mapping on ``app``."""
    app.add_exception_handler(KnotworkError, _knotwork_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
