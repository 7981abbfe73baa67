"""Fixtures for the web UI: a real ``knotwork serve`` on a seeded SQLite file, and Debian's Chromium
driven by Playwright.

The browser tests need ``/usr/bin/chromium`` (``apt-get install chromium``; Playwright's own browser
download is not used) and the built bundle (``make``, or ``cd web && npm ci && npm run build``);
without either they are skipped, saying which is missing. Screenshots go to ``tests/web/artifacts/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

import knotwork
from knotwork.adapters.http.routers import ui
from tests.adapters.conftest import HOST, KNOTWORK, clean_env, free_port

ARTIFACTS = Path(__file__).parent / "artifacts"
STARTUP_DEADLINE_S = 120.0  # the server loads the model before it listens; two workers on two busy cores are slow
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    found = os.environ.get("KNOTWORK_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return found if Path(found).is_file() else None


def skip_reason() -> str | None:
    if chromium_path() is None:
        return "browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install -y chromium)"
    if not ui.built():
        return "browser tests skipped: the web UI is not built (make, or: cd web && npm ci && npm run build)"
    return None


@dataclass
class Seeded:
    """A served store and the ids of what the tests look for."""

    base_url: str
    http: httpx2.Client
    ids: dict[str, str]

    def add(self, content: str, **fields: Any) -> str:
        r = self.http.post("/memories", json={"content": content, "workspace": "proj", **fields})
        assert r.status_code == 201, r.text
        return r.json()["id"]


def seed(db: Path) -> dict[str, str]:
    """A small store: a few memories with links, tags, facts, and 30 more in a workspace to page through."""
    with knotwork.open(db) as mem:
        pg = mem.add(
            "We chose PostgreSQL with pgvector for the team server because HNSW indexes scale.",
            workspace="proj", category="decision", tags={"area": "storage"}, artifacts=["src/store/postgres.py"],
            evidence=["ADR-014"], facts=[{"subject": "knotwork", "predicate": "uses", "object": "PostgreSQL",
                                          "valid_at": "2025-01-10T00:00:00Z"}],
        )
        lite = mem.add("SQLite in WAL mode is the default embedded store of knotwork.", workspace="proj",
                       category="decision", tags={"area": "storage"})
        tabs = mem.add("Alice prefers tabs over spaces in every Makefile.", workspace="proj", agent_id="alice",
                       category="preference", facts=[{"subject": "Alice", "predicate": "prefers", "object": "tabs",
                                                      "valid_at": "2026-03-01T00:00:00Z"}])
        mem.link(pg.id, lite.id, "relates_to")
        mem.link(lite.id, tabs.id, "references")
        mem.add_many([{"content": f"Release note {i:02d}: the nightly build {i} passed on the runner.", "workspace": "bulk",
                       "category": "log"} for i in range(30)])
        return {"postgres": pg.id, "sqlite": lite.id, "tabs": tabs.id}


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """``knotwork serve`` (the installed command, its own process) on a seeded store, until the session ends."""
    home = tmp_path_factory.mktemp("web-home")
    db = home / "web.db"
    ids = seed(db)
    port = free_port()
    log = home / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([KNOTWORK, "serve", "--db", str(db), "--port", str(port)], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, env=clean_env(home))
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while True:
            try:
                socket.create_connection((HOST, port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"knotwork serve did not start on port {port}; log:\n{log.read_text(errors='replace')}")
                time.sleep(0.1)
        base_url = f"http://{HOST}:{port}"
        with httpx2.Client(base_url=base_url, timeout=60) as http:
            yield Seeded(base_url, http, ids)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="package")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # Package scope, not session: Playwright's sync API keeps an event loop running in this thread while
    # the browser is open, so a test outside tests/web that a worker runs after these (``asyncio.run`` of an
    # MCP client) would fail with "cannot be called from a running event loop".
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=chromium_path(), args=CHROMIUM_FLAGS, headless=True,
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(60_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser_context: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh tab; its JavaScript errors fail the test; a screenshot is saved when the test ends."""
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    yield tab
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    tab.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def open_view(page: Any, base_url: str, hash_: str) -> None:
    """Go to ``/#<hash_>`` and wait until the view has drawn itself."""
    page.goto(f"{base_url}/#{hash_}")
    page.wait_for_selector("#view[data-ready]")
