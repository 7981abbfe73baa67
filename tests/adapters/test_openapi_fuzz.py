"""schemathesis over knotwork's OpenAPI spec, against the REST app in process: every operation gets generated
requests (valid and not); none may answer 5xx, and every answer's status and content type must be in the spec."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance
from schemathesis.checks import not_a_server_error

import tempfile
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.adapters.credentials import TokenBook
from knotwork.adapters.http import create_app

@schemathesis.serializer("application/x-ndjson")
def json_lines(context: object, value: object) -> dict[str, object]:
    """POST /import takes JSON lines as text: a generated string goes as it is."""
    return {"data": value if isinstance(value, str | bytes) else str(value)}


MEM = knotwork.open(":memory:", settings=Settings(embedder="none", kg_extract="none"))
MEM.add("The shop deploys with blue-green releases", workspace="shop", tags={"team": "ops"})
LOOPBACK = {"Host": "localhost"}  # a loopback server without a token answers loopback names only
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(MEM), headers=LOOPBACK)
# The same operations as a caller with a token that may only read workspace lab: every write, every other
# workspace and every operation of the owner's is refused (403), and each refusal must be in the spec too.
_BOOK = TokenBook(Path(tempfile.mkdtemp()) / "tokens.json")
READER = {**LOOPBACK, "Authorization": f"Bearer {_BOOK.create('lab-reader', ['lab'], write=False)}"}
scoped = schemathesis.openapi.from_asgi("/openapi.json", create_app(MEM, tokens=_BOOK), headers=READER)


#: POST operations that only read (a search's query is a body): a read-only caller may use them.
READS_BY_POST = {"/search", "/search/entities", "/search/facts", "/tools/ambient_recall"}


@pytest.fixture(scope="module", autouse=True)
def _close() -> Iterator[None]:
    yield
    MEM.close()


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_5xx_and_answers_as_the_spec_says(case: schemathesis.Case) -> None:
    response = case.call(headers=LOOPBACK)
    case.validate_response(response, checks=(not_a_server_error, status_code_conformance, content_type_conformance))


@scoped.parametrize()
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_a_read_only_scoped_caller_gets_documented_answers(case: schemathesis.Case) -> None:
    response = case.call(headers=READER)
    case.validate_response(response, checks=(not_a_server_error, status_code_conformance, content_type_conformance))
    if case.method.upper() in ("POST", "PUT", "PATCH", "DELETE") and case.path not in READS_BY_POST:
        assert response.status_code >= 400, (case.method, case.path, response.status_code)  # a reader changes nothing
