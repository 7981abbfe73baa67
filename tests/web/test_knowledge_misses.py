"""The knowledge page finds entities and facts, and a find that matches nothing in the workspace shown offers the
workspaces that would answer: a real browser against a real ``knotwork serve``."""

from __future__ import annotations

from typing import Any

from .conftest import Seeded, open_view


def test_a_find_that_matches_nothing_here_offers_the_workspace_that_would(page: Any, served: Seeded) -> None:
    here = served.http.post("/search/entities", json={"query": "Alice"}).json()  # the server default: global
    assert here["entities"] == [] and set(here["elsewhere"]) == {"proj"}
    open_view(page, served.base_url, "/knowledge")
    page.fill("#find input[name=find]", "Alice")
    page.click("#find button[type=submit]")
    offer = page.locator("#elsewhere-entities button[data-workspace=proj]")
    offer.wait_for()
    n = here["elsewhere"]["proj"]
    assert offer.inner_text() == f"{n} match{'' if n == 1 else 'es'} in proj"
    assert page.locator("#found p.muted").all_inner_texts() == ['No entities found for "Alice" here.', 'No facts found for "Alice" here.']
    assert page.locator("#elsewhere-facts button[data-workspace=proj]").count() == 1
    offer.click()
    alice = page.locator("#found-entities button", has_text="Alice")
    alice.wait_for()
    assert page.locator("select[name=workspace]").input_value() == "proj"
    assert page.locator("#elsewhere-entities").count() == 0 and page.locator("#elsewhere-facts").count() == 0
    assert "tabs" in page.locator("#found-facts").inner_text()
    alice.click()
    page.locator("#entity ul.facts li").first.wait_for()
    assert "tabs" in page.locator("#entity ul.facts").inner_text()


def test_a_find_that_matches_nowhere_offers_nothing(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/knowledge?find=Zeppelin%20mooring")
    page.locator("#found h3").first.wait_for()
    assert page.locator("#found p.muted").all_inner_texts() == [
        'No entities found for "Zeppelin mooring".', 'No facts found for "Zeppelin mooring".'
    ]
    assert page.locator("#found .elsewhere").count() == 0
