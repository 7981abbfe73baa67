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


def test_an_empty_graph_says_why_and_offers_what_would_draw_something(page: Any, served: Seeded) -> None:
    """The page opens on the server's default (global here, whose graph is empty): it offers the workspaces that
    hold memories. A workspace whose only fact is less sure than the default shows offers to show it."""
    open_view(page, served.base_url, "/knowledge")
    offer = page.locator("#graph-elsewhere button[data-workspace=proj]")
    offer.wait_for()
    assert page.locator("#graph-elsewhere").inner_text().startswith("Nothing drawn here. Workspaces with memories:")
    assert page.locator("#show-less-sure").count() == 0  # global holds no fact, sure or not
    offer.click()
    page.wait_for_function("document.querySelector('#graph-info').textContent.includes('facts true now') && "
                           "!document.querySelector('#graph-info').textContent.startsWith('0 entities')")
    assert page.locator("select[name=workspace]").input_value() == "proj"
    assert page.locator("#graph-elsewhere").is_hidden()

    served.add("Session tokens are cached in Valkey for 15 minutes.", workspace="unsure")
    shown = served.http.get("/ui/api/knowledge", params={"workspace": "unsure"}).json()["facts"]
    stored = served.http.get("/ui/api/knowledge", params={"workspace": "unsure", "min_confidence": 0}).json()["facts"]
    assert shown == [] and len(stored) >= 1  # extracted, and less sure than the default shows
    open_view(page, served.base_url, "/knowledge?workspace=unsure")
    more = page.locator("#show-less-sure")
    more.wait_for()
    more.click()
    page.wait_for_function("location.hash.includes('min_confidence=0')")
    page.wait_for_function(f"document.querySelector('#graph-info').textContent.includes('{len(stored)} facts true now')")
    assert page.locator("select[name=min_confidence]").input_value() == "0"
