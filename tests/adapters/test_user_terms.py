"""Errors in the user's terms: where a JSON body breaks as a line and a column, a body that is not UTF-8 named
as such with its byte offset, a command-line argument that is not UTF-8 named as such, and one unit per limit.
Real HTTP (uvicorn on loopback) over a real SQLite file; the CLI as the installed console script."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

import knotwork
from knotwork import Knotwork, Settings

from ._http import serving
from .conftest import KNOTWORK, clean_env


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Knotwork]:
    with knotwork.open(tmp_path_factory.mktemp("terms") / "api.db", settings=Settings(embedder="none")) as m:
        yield m


@pytest.fixture(scope="module")
def http(mem: Knotwork) -> Iterator[httpx2.Client]:
    with serving(mem) as client:
        yield client


def error(r: httpx2.Response, status: int) -> dict:
    assert r.status_code == status, r.text
    return r.json()["error"]


def test_a_json_error_is_placed_by_line_and_column(http: httpx2.Client, mem: Knotwork) -> None:
    body = b'{"content": "a note",\n  "workspace": }'
    e = error(http.post("/memories", content=body, headers={"content-type": "application/json"}), 422)
    assert e["field"] == "body"
    assert e["message"] == "body: is not valid JSON: Expecting value at line 2, column 16 (character 38)"
    assert body.decode()[37] == "}"  # character 38, counted from 1, is where the value should have been
    assert mem.list(workspace="*").__len__() == 0


def test_a_body_that_is_not_utf8_is_named_with_its_byte_offset(http: httpx2.Client, mem: Knotwork) -> None:
    body = '{"content": "café au lait"}'.encode("latin-1")
    e = error(http.post("/memories", content=body, headers={"content-type": "application/json"}), 400)
    assert e["field"] == "body" and e["type"] == "invalid_request"
    assert e["message"].startswith("body: is not valid UTF-8: byte 0xe9 at byte offset 16 cannot be decoded")
    assert body[16] == 0xE9
    assert mem.list(workspace="*").__len__() == 0


def test_a_content_over_the_limit_is_said_in_bytes_alone(http: httpx2.Client, mem: Knotwork) -> None:
    limit = mem.settings.max_content_bytes
    far = error(http.post("/memories", json={"content": "a" * 200 * 1024}), 400)["message"]
    assert far == f"content: is at least 204800 bytes in UTF-8; the limit is {limit} bytes"
    near = error(http.post("/memories", json={"content": "é" * (limit // 2 + 1)}), 400)["message"]
    assert near == f"content: is {2 * (limit // 2 + 1)} bytes in UTF-8; the limit is {limit} bytes"
    assert "characters" not in far + near


def test_a_cli_argument_that_is_not_utf8_is_named_as_such(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    latin1 = "café au lait".encode("latin-1")
    r = subprocess.run([os.fsencode(KNOTWORK), b"add", latin1, b"--db", os.fsencode(db)], capture_output=True,
                       env=clean_env(tmp_path / "home", {"KNOTWORK_EMBEDDER": "none"}), timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    said = r.stderr.decode()
    assert said.strip() == ("error: argument 2 ('caf\\\\xe9 au lait') is not valid UTF-8: byte 0xe9 at byte offset 3;"
                            " give text in UTF-8 (the terminal's encoding may be Latin-1)")
    assert "surrogate" not in said
    assert not db.exists()  # refused before the store was opened


def test_a_long_content_from_the_cli_is_said_in_bytes(run_cli: Callable, tmp_path: Path) -> None:
    r = run_cli("add", "-", "--db", str(tmp_path / "cli.db"), input="a" * 200 * 1024, env={"KNOTWORK_EMBEDDER": "none"})
    assert r.returncode == 2
    assert r.stderr.strip() == "error: content: is at least 204800 bytes in UTF-8; the limit is 65536 bytes"
