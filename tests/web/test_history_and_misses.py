"""The web UI shows what changed between versions and what is retired, points a search that found nothing to the
workspaces that would answer, and has a favicon: a real browser against a real ``knotwork serve``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from .conftest import Seeded, open_view


def past(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def retire(served: Seeded, mid: str) -> None:
    r = served.http.patch(f"/memories/{mid}", json={"invalid_at": past(0)})
    assert r.status_code == 200, r.text


def test_a_change_of_validity_alone_shows_in_the_history_and_the_header(page: Any, served: Seeded) -> None:
    mid = served.add("The staging cluster runs in eu-west-3 for the pilot.", valid_at=past(3))
    retire(served, mid)
    served.http.patch(f"/memories/{mid}", json={"tags": {"pilot": "done"}, "importance": 0.9})
    open_view(page, served.base_url, f"/memory/{mid}")
    badge = page.locator("h1 #retired")
    assert badge.inner_text().startswith("retired ")
    assert page.locator(".head.retired").count() == 1
    items = page.locator("ol.history > li")
    assert items.count() == 3  # newest first
    newest, middle = items.nth(0), items.nth(1)
    assert middle.locator("li[data-field=invalid_at]").inner_text().startswith("invalid_at: none → ")
    assert "(retired)" in middle.locator("li[data-field=invalid_at]").inner_text()
    assert middle.locator("p.diff").count() == 0  # the text did not change: no diff repeats it
    assert sorted(newest.locator("li[data-field]").evaluate_all("els => els.map(e => e.dataset.field)")) == ["importance", "tags"]
    assert "pilot" in newest.locator("li[data-field=tags]").inner_text()


def test_a_current_memory_has_no_retired_badge(page: Any, served: Seeded) -> None:
    mid = served.add("The pilot dashboard refreshes every five minutes.")
    open_view(page, served.base_url, f"/memory/{mid}")
    assert page.locator("#retired").count() == 0 and page.locator(".head.retired").count() == 0


def test_the_memory_graph_fades_a_retired_memory_and_counts_one_link(page: Any, served: Seeded) -> None:
    a = served.add("The pilot's ingest job writes to the bronze bucket.")
    b = served.add("The pilot's ingest job wrote to the legacy bucket.", valid_at=past(5))
    r = served.http.post("/links", json={"from_id": a, "to_id": b, "type": "relates_to"})
    assert r.status_code == 201, r.text
    retire(served, b)
    open_view(page, served.base_url, f"/graph/{a}?depth=1")
    page.wait_for_selector("#graph canvas")
    assert page.evaluate(f"window.knotworkGraph.$id('{b}').hasClass('retired')")
    assert not page.evaluate(f"window.knotworkGraph.$id('{a}').hasClass('retired')")
    assert page.evaluate(f"window.knotworkGraph.$id('{b}').style('border-style')") == "dashed"
    info = page.locator("#graph-info").inner_text()
    assert info.startswith("2 memories, 1 link (1 retired")
    # Edge labels sit above their line and over a background, node labels over one too.
    assert page.evaluate("window.knotworkGraph.edges()[0].style('text-background-opacity')") == "0.85"
    assert page.evaluate("window.knotworkGraph.nodes()[0].style('text-background-opacity')") == "0.85"


def test_a_search_that_finds_nothing_here_offers_the_workspaces_that_would(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/search")
    page.fill("input[name=query]", "nightly build passed on the runner")
    page.select_option("select[name=workspace]", "")  # the global scope: nothing there
    page.click("form.search button[type=submit]")
    offer = page.locator("#elsewhere button[data-workspace=bulk]")
    offer.wait_for()
    assert offer.inner_text().endswith("in bulk") and page.locator("li.hit").count() == 0
    assert page.locator("#result-count").inner_text().startswith("Nothing matched this query here")
    offer.click()
    page.locator("li.hit").first.wait_for()
    assert page.locator("select[name=workspace]").input_value() == "bulk"
    assert "nightly build" in page.locator("li.hit").first.inner_text()
    assert page.locator("#elsewhere").count() == 0


def test_an_empty_browse_page_offers_the_workspaces_that_hold_such_memories(page: Any, served: Seeded) -> None:
    """Browse without a workspace (the global scope) finds no log entries there: it says so and offers the
    workspace that holds them, with the same filter; one click lists them."""
    open_view(page, served.base_url, "/list?category=log")
    assert page.locator("#nothing-listed").inner_text() == "No memories here."
    offer = page.locator("#elsewhere button[data-workspace=bulk]")
    assert offer.inner_text().endswith("memories in bulk") and page.locator("li.hit").count() == 0
    offer.click()
    page.locator("li.hit").first.wait_for()
    assert page.locator("select[name=workspace]").input_value() == "bulk"
    assert page.locator("select[name=category]").input_value() == "log"
    assert "nightly build" in page.locator("li.hit").first.inner_text()
    assert page.locator("#elsewhere").count() == 0 and page.locator("#nothing-listed").count() == 0


def test_browse_keeps_a_workspace_that_does_not_exist_chosen(page: Any, served: Seeded) -> None:
    """A workspace named in the URL that holds nothing stays the picker's choice (it said "server default",
    under a text naming that workspace), and showing the page again keeps asking about it."""
    open_view(page, served.base_url, "/list?workspace=no-such-ws")
    page.locator("#nothing-listed").wait_for()
    assert page.locator("#nothing-listed").inner_text().startswith('No memories: workspace "no-such-ws" does not exist')
    assert page.locator("select[name=workspace]").input_value() == "no-such-ws"
    page.locator("form.filters button[type=submit]").click()  # "Show" sets the hash from the form's choices
    assert page.evaluate("location.hash") == "#/list?workspace=no-such-ws"  # not "#/list", the server's default


def test_the_page_has_a_favicon_and_asks_for_nothing_missing(page: Any, served: Seeded) -> None:
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    open_view(page, served.base_url, "/search")
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert icon == "/ui/static/favicon.svg"
    got = served.http.get(icon)
    assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")
    assert missing == []
