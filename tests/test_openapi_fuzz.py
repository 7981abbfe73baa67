"""schemathesis over knotwork's OpenAPI spec, against the REST app in process: every operation gets generated
requests (valid and not); none may answer 5xx, and every answer's status and content type must be in the spec."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance
from schemathesis.checks import not_a_server_error

import knotwork
from knotwork import Settings
from knotwork.adapters.http import create_app

@schemathesis.serializer("application/x-ndjson")
def json_lines(context: object, value: object) -> dict[str, object]:
    """POST /import takes JSON lines as text: a generated string goes as it is."""
    return {"data": value if isinstance(value, str | bytes) else str(value)}


MEM = knotwork.open(":memory:", settings=Settings(embedder="none", kg_extract="none"))
MEM.add("The shop deploys with blue-green releases", workspace="shop", tags={"team": "ops"})
LOOPBACK = {"Host": "localhost"}  # a loopback server without a token answers loopback names only
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(MEM), headers=LOOPBACK)


@pytest.fixture(scope="module", autouse=True)
def _close() -> Iterator[None]:
    yield
    MEM.close()


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_5xx_and_answers_as_the_spec_says(case: schemathesis.Case) -> None:
    response = case.call(headers=LOOPBACK)
    case.validate_response(response, checks=(not_a_server_error, status_code_conformance, content_type_conformance))
