"""The web UI in a real browser (Debian's Chromium through Playwright) against a real ``knotwork serve``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx2

import knotwork
from knotwork import Knotwork, Settings
from tests.adapters._http import serving
from tests.adapters._scoped import FAST, LAB_TEXT, OWNER, seed
from tests.adapters.conftest import HttpLauncher

from .conftest import ARTIFACTS, Seeded, open_view


def ready(page: Any, view: str) -> None:
    page.wait_for_selector(f'#view[data-ready="{view}"]')


def confirm(page: Any, answer: str = "ok") -> None:
    page.wait_for_selector("dialog#confirm[open]")
    page.click("#confirm-ok" if answer == "ok" else "#confirm-cancel")


def test_search_lists_hits_with_score_and_age_and_expands_with_explain(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/search")
    page.fill("input[name=query]", "which database for the team server")
    page.select_option("select[name=workspace]", "proj")
    page.check("input[name=explain]")
    page.click("form.search button[type=submit]")
    first = page.locator("li.hit").first
    first.wait_for()
    assert first.get_attribute("data-id") == served.ids["postgres"]
    assert float(first.locator(".score").inner_text()) > 0
    assert first.locator(".age").inner_text() != ""
    first.locator(".line").click()
    stages = page.locator("li.hit").first.locator("table.explain td:first-child").all_inner_texts()
    assert "fused" in stages
    assert "ADR-014" in first.locator("dl.fields").inner_text()


def test_search_filters_by_category(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/search")
    page.fill("input[name=query]", "default embedded store, tabs in the Makefile")
    page.select_option("select[name=workspace]", "proj")
    page.select_option("select[name=agent_id]", "*")  # the tabs memory is in alice's partition, not the shared pool
    page.click("form.search button[type=submit]")
    page.wait_for_selector("#result-count")
    shown = page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)")
    assert served.ids["tabs"] in shown
    page.select_option("select[name=category]", "decision")
    page.click("form.search button[type=submit]")
    page.wait_for_function("!document.querySelector('li.hit[data-id=\"%s\"]')" % served.ids["tabs"])
    shown = page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)")
    assert served.ids["tabs"] not in shown
    assert served.ids["sqlite"] in shown


def test_list_pages_through_a_workspace(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/list?workspace=bulk")
    assert page.locator("li.hit").count() == 25
    first_page = set(page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)"))
    page.click("#next")
    page.wait_for_selector("#prev")
    second_page = set(page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)"))
    assert len(second_page) == 5
    assert not first_page & second_page


def test_memory_page_shows_fields_links_relations_and_facts(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, f"/memory/{served.ids['postgres']}")
    body = page.locator("#view").inner_text()
    assert "We chose PostgreSQL with pgvector" in body
    assert "src/store/postgres.py" in body
    assert "knotwork uses PostgreSQL" in body  # a fact it gave
    assert page.locator("ul.facts li .badge.stated").first.inner_text() == "caller 1"  # who stated it, how sure
    links = page.locator("ul.links li").all_inner_texts()
    assert any("relates_to" in x and served.ids["sqlite"][-8:] in x for x in links)
    assert "similar" in page.locator("dl.meta").inner_text()


def test_a_memory_that_does_not_exist_shows_the_apis_message(page: Any, served: Seeded) -> None:
    missing = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"
    expected = served.http.get(f"/memories/{missing}").json()["error"]["message"]
    open_view(page, served.base_url, f"/memory/{missing}")
    assert page.locator(".error").inner_text() == expected


def test_edit_is_confirmed_saved_and_diffed(page: Any, served: Seeded) -> None:
    mid = served.add("The cache expires after ten minutes.", category="fact")
    open_view(page, served.base_url, f"/memory/{mid}")
    page.click("#edit")
    page.fill("textarea[name=content]", "The cache expires after thirty minutes.")
    page.click("#save")
    confirm(page)
    page.wait_for_selector("ol.history li:nth-child(2)")
    assert "thirty minutes" in page.locator("p.content.big").inner_text()
    assert page.locator("ol.history ins").first.inner_text().strip() == "thirty"
    assert served.http.get(f"/memories/{mid}").json()["content"] == "The cache expires after thirty minutes."


def test_edit_shows_the_apis_own_error(page: Any, served: Seeded) -> None:
    mid = served.add("Importance is a number from 0 to 1.")
    expected = served.http.patch(f"/memories/{mid}", json={"importance": 7}).json()["error"]["message"]
    open_view(page, served.base_url, f"/memory/{mid}")
    page.click("#edit")
    page.fill("input[name=importance]", "7")
    page.click("#save")
    confirm(page)
    assert page.locator(".error").inner_text() == expected
    assert served.http.get(f"/memories/{mid}").json()["importance"] == 0.5


def test_link_and_unlink_with_confirmation(page: Any, served: Seeded) -> None:
    a = served.add("Service A calls service B over gRPC.")
    b = served.add("Service B exposes a gRPC health check.")
    open_view(page, served.base_url, f"/memory/{a}")
    page.select_option("#link-form select[name=type]", "references")
    page.fill("#link-form input[name=to_id]", b)
    page.click("#link-form button[type=submit]")
    confirm(page)
    page.wait_for_selector("ul.links li")
    assert [r["type"] for r in served.http.get(f"/memories/{a}/relationships").json()["relationships"]] == ["references"]
    page.click("[data-unlink]")
    confirm(page)
    page.wait_for_selector("text=No links.")
    assert served.http.get(f"/memories/{a}/relationships").json()["relationships"] == []


def test_delete_asks_first_and_cancel_keeps_the_memory(page: Any, served: Seeded) -> None:
    mid = served.add("A memory about to be forgotten.")
    open_view(page, served.base_url, f"/memory/{mid}")
    page.click("#delete")
    confirm(page, "cancel")
    assert served.http.get(f"/memories/{mid}").status_code == 200
    page.click("#delete")
    confirm(page)
    ready(page, "list")
    assert "Deleted memory" in page.locator(".flash").inner_text()
    assert served.http.get(f"/memories/{mid}").status_code == 404


def test_memory_graph_draws_its_nodes_and_a_click_opens_one(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, f"/graph/{served.ids['postgres']}?depth=2")
    page.wait_for_selector("#graph canvas")
    nodes = page.evaluate("window.knotworkGraph.nodes().map(n => n.id())")
    assert set(nodes) == set(served.ids.values())
    assert page.evaluate("window.knotworkGraph.edges().length") == 2
    # Click where the graph drew the SQLite memory: the page opens it.
    box = page.locator("#graph").bounding_box()
    pos = page.evaluate(f"window.knotworkGraph.$id('{served.ids['sqlite']}').renderedPosition()")
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
    ready(page, "memory")
    assert served.ids["sqlite"] in page.url


def test_memory_graph_follows_type_and_direction(page: Any, served: Seeded) -> None:
    ids = served.ids
    drawn = "window.knotworkGraph.nodes().map(n => n.id())"
    open_view(page, served.base_url, f"/graph/{ids['sqlite']}?depth=1&type=references")
    page.wait_for_selector("#graph canvas")
    assert set(page.evaluate(drawn)) == {ids["sqlite"], ids["tabs"]}
    assert page.locator("input[name=type][value=references]").is_checked()
    page.select_option("select[name=direction]", "incoming")
    page.uncheck("input[name=type][value=references]")
    page.click("form.filters button[type=submit]")
    page.wait_for_function(f"window.knotworkGraph && window.knotworkGraph.$id('{ids['postgres']}').length === 1")
    assert set(page.evaluate(drawn)) == {ids["sqlite"], ids["postgres"]}


def test_knowledge_graph_draws_entities_and_the_slider_goes_back_in_time(page: Any, served: Seeded) -> None:
    open_view(page, served.base_url, "/knowledge?workspace=proj")
    page.wait_for_selector("#graph canvas")
    names = set(page.evaluate("window.knotworkGraph.nodes().map(n => n.data('label'))"))
    assert {"knotwork", "PostgreSQL", "Alice", "tabs"} <= names
    # Clicking an entity shows its facts, each with the memories it came from.
    box = page.locator("#graph").bounding_box()
    pos = page.evaluate("window.knotworkGraph.nodes().filter(n => n.data('label') === 'knotwork')[0].renderedPosition()")
    page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
    page.wait_for_selector("#entity ul.facts li")
    assert "knotwork uses PostgreSQL" in page.locator("#entity").inner_text()
    # Each fact says who stated it and how sure it was.
    assert page.locator("#entity ul.facts li .badge.stated").first.inner_text() == "caller 1"
    assert page.locator(f'#entity a[href="#/memory/{served.ids["postgres"]}"]').count() == 1
    # Halfway between the first fact (2025-01-10) and now, Alice's preference (2026-03-01) was not true yet.
    before = page.evaluate("window.knotworkGraph.edges().length")
    page.locator("#as-of").evaluate("el => { el.value = '1'; el.dispatchEvent(new Event('input')); }")
    page.wait_for_function("document.querySelector('#as-of-text').textContent !== 'now'")
    page.wait_for_function(f"window.knotworkGraph.edges().length < {before}")
    labels = page.evaluate("window.knotworkGraph.edges().map(e => e.data('label'))")
    assert "prefers" not in labels and "uses" in labels
    # A floor on confidence reopens the view with it; every fact here was a caller's (1.0), so all stay.
    page.locator("select[name=min_confidence]").select_option("1")
    page.wait_for_function("location.hash.includes('min_confidence=1')")
    page.wait_for_function("window.knotworkGraph && window.knotworkGraph.edges().map(e => e.data('label')).includes('prefers')")


def test_dashboard_draws_counts_and_charts(page: Any, served: Seeded) -> None:
    served.http.post("/search", json={"query": "postgres", "workspace": "proj"})
    open_view(page, served.base_url, "/dashboard")
    stats = served.http.get("/stats").json()
    assert page.locator(".stat .value").first.inner_text() == str(stats["memories"])
    charts = page.locator("figure.chart-card")
    assert charts.count() == 4
    for i in range(4):
        assert charts.nth(i).locator("rect.bar").count() >= 1
    assert "bulk" in page.locator('[data-chart="by workspace"] .legend').inner_text()
    search_row = page.locator("#latency tr", has_text="search").inner_text()
    assert " ms" in search_row


def test_a_server_with_a_token_asks_for_it_once_and_then_answers(browser_context: Any, mem: Knotwork) -> None:
    mem.add("Only the token holder may read this.", workspace="w")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept("s3cret")

    with serving(mem, api_token="s3cret") as http:
        tab = browser_context.new_page()
        try:
            tab.on("dialog", answer)
            open_view(tab, str(http.base_url).rstrip("/"), "/list?workspace=w")
            assert "Only the token holder may read this." in tab.locator("ul.hits").inner_text()
            assert len(asked) == 1 and "token" in asked[0]
            ARTIFACTS.mkdir(exist_ok=True)
            tab.screenshot(path=str(ARTIFACTS / "token-list.png"))
        finally:
            tab.close()


def options(page: Any, selector: str, field: str = "value") -> list[str]:
    return page.locator(selector).evaluate_all(f"els => els.map(e => e.{field})")


def test_a_token_limited_to_one_workspace_sees_that_workspace_alone(page: Any, tmp_path: Path) -> None:
    """``knotwork serve`` with a tokens file; the browser gives lab's token when asked. The list and search show
    lab's memories (and the global ones), never shop's; the pickers, tag keys and dashboard name nothing of shop's;
    shop's memory opened by id is not found, in the words the API uses for an id that names nothing."""
    db = tmp_path / "scoped.db"
    s = seed(db, tmp_path / "tokens.json")
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        mem.add("The shop's tagged note", workspace="shop", category="shopcategory", agent_id="shopagent",
                tags={"shoptag": "yes"})
        lab_note = mem.add("The lab's tagged note", workspace="lab", category="labcategory", agent_id="labagent",
                           tags={"labtag": "yes"}).id
    assert s.book is not None
    launcher = HttpLauncher(tmp_path / "home")
    try:
        url = launcher.start(db, env={**FAST, "KNOTWORK_API_TOKEN": OWNER, "KNOTWORK_TOKENS_FILE": str(s.book.path)}).base_url
        assert url is not None
        with httpx2.Client(base_url=url, timeout=30, headers={"authorization": f"Bearer {s.tokens['lab']}"}) as lab:
            missing = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"
            nothing = lab.get(f"/memories/{missing}")
            hidden = lab.get(f"/memories/{s.shop}")
            stats = lab.get("/stats")
            status = lab.get("/status").json()
        assert stats.status_code == 403 and stats.json()["error"]["field"] == "token"  # the whole store's: the owner's
        assert nothing.status_code == hidden.status_code == 404
        not_found = nothing.json()["error"]["message"]  # for an id that names nothing
        assert hidden.json()["error"]["message"] == not_found.replace(missing, s.shop)
        asked: list[str] = []

        def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept(s.tokens["lab"])

        page.on("dialog", answer)
        shown: list[tuple[str, str]] = []  # (what the view was asked for, the page it drew)

        def look(view: str) -> None:
            shown.append((view, page.content()))

        # Browse: lab's memories, its pickers offering lab's names alone; "every workspace" is refused.
        open_view(page, url, "/list?workspace=lab")
        listed = set(page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)"))
        assert {s.lab, *s.lab_bucket} <= listed and s.shop not in listed
        assert LAB_TEXT in page.locator("ul.hits").inner_text()
        assert options(page, "select[name=workspace] option") == ["", "*", "lab"]
        assert options(page, "select[name=agent_id] option") == ["", "*", "labagent"]
        assert options(page, "select[name=category] option") == ["", "labcategory"]
        page.wait_for_selector("#tag-keys option", state="attached")
        assert options(page, "#tag-keys option") == ["labtag"]
        look("/list?workspace=lab")
        open_view(page, url, "/list?workspace=lab&agent_id=*&tag=labtag")
        assert page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)") == [lab_note]
        look("/list?workspace=lab&agent_id=*&tag=labtag")
        open_view(page, url, "/list")  # the server's default
        look("/list")
        open_view(page, url, "/list?workspace=*")
        assert "its scope is lab" in page.locator(".error").inner_text()
        look("/list?workspace=*")

        # Search: a query shop's memory answers best finds lab's and the global ones only.
        open_view(page, url, "/search")
        page.fill("input[name=query]", "who deploys with releases")  # "releases": shop's text alone has it
        page.select_option("select[name=workspace]", "lab")
        page.select_option("select[name=agent_id]", "*")
        page.click("form.search button[type=submit]")
        page.wait_for_selector("#result-count")
        hits = set(page.locator("li.hit").evaluate_all("els => els.map(e => e.dataset.id)"))
        assert s.lab in hits and s.glob in hits and not hits & {s.shop, *s.shop_bucket}
        assert options(page, "select[name=workspace] option") == ["", "*", "lab"]
        assert options(page, "select[name=category] option") == ["", "labcategory"]
        look("/search lab")
        page.select_option("select[name=workspace]", "")
        page.evaluate("document.getElementById('results').replaceChildren()")
        page.click("form.search button[type=submit]")
        page.wait_for_selector("#result-count")
        look("/search default")

        # Dashboard and knowledge graph: nothing of shop's counted, charted or drawn.
        # The dashboard of a limited token: its workspaces' counts (from /status), its charts, and a word on
        # what the owner's token alone sees, not an error.
        open_view(page, url, "/dashboard")
        page.wait_for_selector(".stat .value")
        assert page.locator(".stat .value").first.inner_text() == str(status["memories"])
        assert status["memories"] < sqlite3.connect(db).execute("SELECT count(*) FROM memories").fetchone()[0]
        assert "lab" in page.locator('[data-chart="by workspace"] .legend').inner_text()
        assert "owner's token" in page.locator("#health").inner_text()
        assert page.locator(".error").count() == 0
        look("/dashboard")
        open_view(page, url, "/knowledge?workspace=lab")
        page.wait_for_selector("#graph canvas")
        names = set(page.evaluate("window.knotworkGraph.nodes().map(n => n.data('label'))"))
        assert "Labrunner" in names and "Shopfront" not in names
        assert options(page, "select[name=workspace] option") == ["", "*", "lab"]
        look("/knowledge?workspace=lab")

        # Shop's memory by its id, or the end of it: not found, as an id that names nothing.
        for view, ref in ((f"/memory/{s.shop}", s.shop), (f"/memory/{s.shop[-10:]}", s.shop[-10:]), (f"/graph/{s.shop}", s.shop)):
            open_view(page, url, view)
            page.wait_for_selector(".error")
            error = page.locator(".error").inner_text()
            assert error == not_found.replace(missing, ref) and "forbidden" not in error.lower(), error
            look(view)
        assert len(asked) == 1 and "token" in asked[0]  # asked once, kept for the tab
    finally:
        launcher.stop_all()
    assert s.leaked(shown) == []
    assert [view for view, html in shown if "shop" in html.lower()] == []


def test_a_hits_age_is_since_it_became_true_with_the_stored_time_beside_it(page: Any, served: Seeded) -> None:
    """The rule of src/knotwork/text/ages.py, in the browser: the CLI prints the same for this memory."""
    from datetime import datetime, timedelta, timezone

    became_true = (datetime.now(timezone.utc) - timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ")
    told_late = served.add("The quarterly archive moved to the cold bucket in Leeds.", valid_at=became_true)
    open_view(page, served.base_url, "/search")
    page.fill("input[name=query]", "quarterly archive cold bucket Leeds")
    page.select_option("select[name=workspace]", "proj")
    page.click("form.search button[type=submit]")
    hit = page.locator(f'li.hit[data-id="{told_late}"]')
    hit.wait_for()
    assert hit.locator(".age").inner_text() in ("1y ago (stored now)", "1y ago (stored 1m ago)")


def test_dashboard_counts_by_when_memories_became_true_and_shows_the_whole_store_path(browser_context: Any, tmp_path: Path) -> None:
    """The activity charts count a memory in the period it became true (the age every view shows), or, when
    asked, in the one it was stored; the health card shows the store's whole path, wrapped, and names it in a
    tooltip."""
    folder = tmp_path / "a-store-kept-in-a-folder-whose-name-goes-on-and-on-past-the-width-of-a-card" / "nested"
    folder.mkdir(parents=True)
    with knotwork.open(folder / "knotwork.db", settings=Settings(embedder="none")) as mem:
        stored = mem.add("We moved the billing service to Postgres.", workspace="w", valid_at="2019-03-01T00:00:00Z")
        with serving(mem) as http:
            tab = browser_context.new_page()
            try:
                open_view(tab, str(http.base_url).rstrip("/"), "/dashboard?bucket=year")
                bars = '[data-chart="by workspace"] rect.bar title'
                assert options(tab, bars, "textContent") == ["2019 · w: 1"]
                tab.locator("select#by").select_option("created")
                tab.wait_for_function("location.hash.includes('by=created')")
                tab.wait_for_selector('#view[data-ready] [data-chart="by workspace"] rect.bar')
                assert options(tab, bars, "textContent") == [f"{stored.created_at.year} · w: 1"]
                where = tab.locator("#health .store-path")
                assert str(folder) in where.inner_text() and str(folder) in (where.get_attribute("title") or "")
                assert where.evaluate("e => e.scrollWidth <= e.clientWidth && e.closest('.card').scrollWidth <= e.closest('.card').clientWidth")
            finally:
                tab.close()
