from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork

BACKENDS = ("sqlite", "postgres")

# Tests read the knowledge graph right after an add: each add reads its memories in itself. The tests of
# background enrichment (tests/services/test_enrichment.py) ask for it by name.
os.environ.setdefault("KNOTWORK_ENRICH", "inline")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "knotwork.db"


@pytest.fixture(scope="session")
def postgres_database():
    """One PostgreSQL database for the whole session (per xdist worker), emptied for each test."""
    from tests._postgres import Database, server_url, start_server

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    server = start_server()
    database = Database(server_url(server), f"knotwork_test_{worker}_{os.getpid()}")
    yield database
    database.close()
    if server is not None:
        server.cleanup()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The name of the backend a conformance test runs on: every such test runs on each."""
    return request.param


@pytest.fixture
def target(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """Where a conformance test's store lives: a SQLite file, or a fresh PostgreSQL database (as a URL)."""
    if backend == "sqlite":
        yield str(tmp_path / "knotwork.db")
        return
    yield request.getfixturevalue("postgres_database").fresh()


@pytest.fixture
def mem(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target) as m:
        yield m
