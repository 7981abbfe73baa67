from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import knotwork
from knotwork import Knotwork


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "knotwork.db"


@pytest.fixture
def mem(db_path: Path) -> Iterator[Knotwork]:
    with knotwork.open(db_path) as m:
        yield m
