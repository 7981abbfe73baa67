"""The REST tests' store (a SQLite file, no model) and a client of a real server over it, and the check of a JSON
error answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Knotwork, Settings

from ._http import serving

ABSENT = "00000000000000000000000000"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(tmp_path / "api.db", settings=Settings(embedder="none")) as m:
        yield m


@pytest.fixture
def http(mem: Knotwork) -> Iterator[httpx2.Client]:
    with serving(mem, default_workspace="shop") as client:
        yield client


def error_of(response: httpx2.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()["error"]
    assert body["message"]
    return body
