"""/docs (Swagger UI) and /redoc (ReDoc) render the API's operations from files the server itself serves:
no request of the page, its scripts or its fonts leaves this machine."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from knotwork.adapters.http.app import is_loopback
from tests.web.conftest import Seeded


def record_requests(page: Any) -> list[str]:
    """Every URL the tab asks for; a request to another host is aborted (the test fails on it below)."""
    seen: list[str] = []

    def route(r: Any) -> None:
        seen.append(r.request.url)
        host = urlsplit(r.request.url).hostname or ""
        r.continue_() if is_loopback(host) or r.request.url.startswith("data:") else r.abort()

    page.route("**/*", route)
    return seen


def outside(urls: list[str]) -> list[str]:
    return [u for u in urls if not u.startswith("data:") and not is_loopback(urlsplit(u).hostname or "")]


@pytest.mark.parametrize(
    ("path", "operation"),
    [("/docs", ".opblock-summary-path[data-path='/memories']"), ("/redoc", "[data-section-id^='tag/memories']")],
)
def test_api_docs_render_the_operations_with_no_request_leaving_the_machine(
    page: Any, served: Seeded, path: str, operation: str
) -> None:
    seen = record_requests(page)
    page.goto(f"{served.base_url}{path}")
    page.wait_for_selector(operation, timeout=60_000)
    text = page.inner_text("body")
    assert "knotwork" in text
    assert "/search" in text or "search" in text.lower()
    assert any("/ui/docs-assets/" in u for u in seen), seen  # the scripts came from this server's package
    assert any(u.endswith("/openapi.json") for u in seen), seen
    assert not outside(seen), f"{path} asked another host for: {outside(seen)}"


def test_the_docs_assets_need_no_token_and_the_spec_still_does(served: Seeded) -> None:
    r = served.http.get("/ui/docs-assets/swagger-ui-bundle.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    page = served.http.get("/docs").text
    assert "/ui/docs-assets/swagger-ui-bundle.js" in page and "cdn.jsdelivr" not in page
    redoc = served.http.get("/redoc").text
    assert "/ui/docs-assets/redoc.standalone.js" in redoc and "fonts.googleapis" not in redoc
