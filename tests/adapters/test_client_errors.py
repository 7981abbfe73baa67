"""Every knotwork error a server answers with comes back to the client as the same type, with the same message.

The server side is the HTTP adapter's own mapping (adapters/http/errors.py) run on each error; the client
side reads the body it produced (adapters/client.py).
"""

from __future__ import annotations

import json

import anyio
import pytest

from knotwork.adapters.client import error_from
from knotwork.adapters.http.errors import _knotwork_error
from knotwork.errors import AmbiguousId, BackendUnavailable, Conflict, InvalidInput, KnotworkError, NotFound


def _answer(exc: KnotworkError) -> tuple[int, dict]:
    response = anyio.run(_knotwork_error, None, exc)
    return response.status_code, json.loads(response.body)


@pytest.mark.parametrize(
    "raised",
    [
        InvalidInput("importance", "must be between 0 and 1, got 7.0"),
        AmbiguousId("memory", "01M8ABCD", ["01M8ABCDAAAAAAAAAAAAAAAAAA", "01M8ABCDBBBBBBBBBBBBBBBBBB"]),
        NotFound("memory", "01M8ZZZZZZZZZZZZZZZZZZZZZZ"),
        Conflict("memory 01M8X already holds this content in the same workspace and partition"),
        BackendUnavailable("db: cannot open as a knotwork database"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_server_error_comes_back_as_its_type(raised: KnotworkError) -> None:
    status, body = _answer(raised)
    back = error_from(status, body, "http://127.0.0.1:1")
    assert type(back) is type(raised)
    assert str(back) == str(raised)
    if isinstance(raised, InvalidInput):
        assert (back.field, back.problem) == (raised.field, raised.problem)
    if isinstance(raised, AmbiguousId):
        assert back.candidates == raised.candidates


def test_an_answer_without_a_knotwork_error_is_the_server_being_unavailable() -> None:
    back = error_from(502, {"detail": "bad gateway"}, "http://127.0.0.1:1")
    assert isinstance(back, BackendUnavailable) and "HTTP 502" in str(back)
