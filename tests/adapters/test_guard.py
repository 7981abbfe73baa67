"""The loopback guard against DNS rebinding, and the status of a refused caller, over real HTTP.

A server bound to loopback without a token answers a request only when its ``Host`` is a loopback IP literal,
``localhost`` or a name of ``KNOTWORK_ALLOWED_HOSTS``; a page of another site that points its own name at
127.0.0.1 (``127.0.0.1.nip.io``) must get nothing, on every route, ``/mcp`` and the web UI included. The
property tests build Host and Origin values of both kinds (served by construction, or hostile by
construction: prefixes, suffixes, ports, IPv6, case, trailing dots, punycode, numeric spellings) and send each
to one uvicorn server per backend.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import knotwork
from knotwork import Knotwork, Settings
from knotwork.adapters.credentials import TokenBook
from knotwork.adapters.http.guard import is_loopback_name, split_host
from knotwork.adapters.mcp import build_server
from tests.adapters._http import serving

ALLOWED = "knotwork.test"
#: Every kind of route: REST reads and writes, the export, the web UI's page and its data, the docs, MCP.
ROUTES = [("GET", "/memories"), ("GET", "/export"), ("GET", "/stats"), ("GET", "/"), ("GET", "/ui/api/choices"),
          ("GET", "/docs"), ("GET", "/openapi.json"), ("POST", "/memories"), ("POST", "/search"), ("POST", "/mcp"),
          ("DELETE", "/graph")]
MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


@pytest.fixture
def served(target: str, tmp_path: Path) -> Iterator[tuple[Knotwork, httpx2.Client]]:
    """A loopback server without a token, REST, web UI and MCP, over a store of one secret memory."""
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none", allowed_hosts=ALLOWED)) as mem:
        mem.add("The launch code is tangerine-42", workspace="w")
        with serving(mem, mcp_server=build_server(mem)) as http:
            yield mem, http


def _port(http: httpx2.Client) -> int:
    return int(http.base_url.port or 80)


def _send(http: httpx2.Client, method: str, path: str, host: str, origin: str | None = None) -> httpx2.Response:
    headers = {"Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if origin is not None:
        headers["Origin"] = origin
    body = {"/memories": {"content": "planted by a rebinding page", "workspace": "w"}, "/search": {"query": "launch code"},
            "/mcp": MCP_INIT}.get(path) if method == "POST" else None
    params = {"confirm": "true", "workspace": "w"} if method == "DELETE" else None
    return http.request(method, path, content=json.dumps(body) if body else None, headers=headers, params=params)


def _refused_as_rebinding(answer: httpx2.Response) -> bool:
    return answer.status_code == 403 and "Host" in answer.json()["error"]["message"]


# -- Host values, by construction --------------------------------------------------------------------------------
_octet = st.integers(0, 255)
_loopback_v4 = st.builds(lambda b, c, d: f"127.{b}.{c}.{d}", _octet, _octet, _octet)
_localhost = st.sampled_from(["localhost", "LOCALHOST", "LocalHost", "localHOST"])
_loopback_v6 = st.sampled_from(["[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::FFFF:127.9.8.7]"])
_own_name = st.one_of(st.just("127.0.0.1"), _loopback_v4, _localhost, _loopback_v6, st.sampled_from([ALLOWED, ALLOWED.upper()]))
_port_suffix = st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}"))
GOOD_HOSTS = st.builds(lambda n, p: n + p, _own_name, _port_suffix)

_label = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
_domain = st.one_of(st.sampled_from(["nip.io", "evil.example", "example.com", "sslip.io", "xn--80ak6aa92e.com",
                                     "localtest.me", "lvh.me"]), st.builds(lambda a, b: f"{a}.{b}", _label, _label))
_bare = st.one_of(st.just("127.0.0.1"), _loopback_v4, _localhost, st.just(ALLOWED))
_not_loopback_v4 = st.builds(lambda a, b, c, d: f"{a}.{b}.{c}.{d}", st.integers(0, 255).filter(lambda a: a != 127),
                             _octet, _octet, _octet)
HOSTILE_NAMES = st.one_of(
    st.builds(lambda n, d: f"{n}.{d}", _bare, _domain),  # 127.0.0.1.nip.io, localhost.evil.example
    st.builds(lambda lbl, n: f"{lbl}.{n}", _label, _bare),  # evil.localhost, a.127.0.0.1, x.knotwork.test
    st.builds(lambda lbl, n: f"{lbl}{n}", _label, _bare),  # evil127.0.0.1, xlocalhost
    st.builds(lambda n: f"{n}.", _bare),  # a trailing dot: a name a resolver may look up elsewhere
    st.builds(lambda n: f"{n}..", _bare),
    st.builds(lambda lbl: f"xn--{lbl}", _label),  # punycode
    st.builds(lambda lbl, n: f"xn--{lbl}.{n}", _label, _bare),
    st.builds(lambda b, c, d: f"127.{b}.{c}.{d}.example.com", _octet, _octet, _octet),
    _not_loopback_v4,
    st.sampled_from(["[::2]", "[fe80::1]", "[::ffff:10.0.0.1]", "[::]", "[::1%25lo]", "[2001:db8::1]", "0.0.0.0",
                     "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1", "::1",
                     "local host", "127.0.0.1@evil.example", "evil.example@localhost",
                     "localhost/", "localhost\\evil", "[::1", "::1]", "[]"]),
)
_bad_port = st.sampled_from([":abc", ":", ":-1", ":99999", ":65536", ":80:80", ":1e3", ":+80", ":0x50"])
HOSTILE_HOSTS = st.one_of(
    st.builds(lambda n, p: n + p, HOSTILE_NAMES, _port_suffix),
    st.builds(lambda n, p: n + p, _own_name, _bad_port),  # an own name with a port that is not one
)


def test_the_rule_by_example() -> None:
    assert split_host("[::1]:8765") == ("::1", "8765") and split_host("localhost") == ("localhost", None)
    for host in ["127.0.0.1", "127.0.0.1:8765", "localhost:80", "[::1]", "[::1]:8765", "127.255.0.9"]:
        assert is_loopback_name(host), host
    for host in ["127.0.0.1.nip.io:8765", "127.1.2.3.example.com", "localhost.", "", "[::1", "127.0.0.1:x"]:
        assert not is_loopback_name(host), host
    assert is_loopback_name("Knotwork.Test:9", frozenset({ALLOWED})) and not is_loopback_name("knotwork.test")


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(host=HOSTILE_HOSTS, route=st.sampled_from(ROUTES))
def test_every_rebinding_host_is_refused_on_every_route(served: tuple[Knotwork, httpx2.Client], host: str,
                                                         route: tuple[str, str]) -> None:
    mem, http = served
    answer = _send(http, *route, host=host, origin=f"http://{host}")
    assert _refused_as_rebinding(answer), (host, route, answer.status_code, answer.text[:200])
    assert "tangerine" not in answer.text


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(host=GOOD_HOSTS, route=st.sampled_from([r for r in ROUTES if r[1] not in ("/mcp", "/")]))
def test_the_servers_own_names_are_served(served: tuple[Knotwork, httpx2.Client], host: str, route: tuple[str, str]) -> None:
    mem, http = served
    answer = _send(http, *route, host=host, origin=f"http://{host}")
    assert answer.status_code < 400, (host, route, answer.status_code, answer.text[:200])


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(host=GOOD_HOSTS, origin=st.one_of(
    st.builds(lambda h: f"http://{h}", HOSTILE_HOSTS),
    st.builds(lambda h, p: f"http://{split_host(h)[0] if not h.startswith('[') else h.split(']')[0] + ']'}:{p}",  # type: ignore[index]
              GOOD_HOSTS, st.integers(1, 65535)),
    st.sampled_from(["null", "file://", "http://evil.example", "https://127.0.0.1.nip.io"]),
))
def test_a_write_from_another_origin_is_refused(served: tuple[Knotwork, httpx2.Client], host: str, origin: str) -> None:
    """A write is served only when its Origin is the address the request was sent to."""
    mem, http = served
    answer = _send(http, "POST", "/search", host=host, origin=origin)
    same = origin.lower() in (f"http://{host}".lower(), f"https://{host}".lower())
    assert (answer.status_code == 200) if same else (answer.status_code == 403), (host, origin, answer.status_code)


def test_the_probes_rebinding_empty_host_and_a_read_only_write(served: tuple[Knotwork, httpx2.Client], tmp_path: Path,
                                                               target: str) -> None:
    """The independent probe's cases, each as it was sent."""
    mem, http = served
    port = _port(http)
    export = http.get("/export", headers={"Host": f"127.0.0.1.nip.io:{port}"})
    assert export.status_code == 403 and "tangerine" not in export.text
    evil = f"127.0.0.1.evil.example:{port}"
    planted = http.post("/memories", json={"content": "planted", "workspace": "w"}, headers={"Host": evil, "Origin": f"http://{evil}"})
    assert planted.status_code == 403
    assert http.get("/memories", headers={"Host": f"127.1.2.3.example.com:{port}"}).status_code == 403
    mcp = _send(http, "POST", "/mcp", host=f"127.0.0.1.nip.io:{port}")
    assert _refused_as_rebinding(mcp)  # our guard's 403, not left to the MCP SDK's own check
    empty = http.get("/memories", params={"workspace": "w"}, headers={"Host": ""})
    assert empty.status_code == 400 and "Host" in empty.json()["error"]["message"]
    assert [m.content for m in mem.list(workspace="w")] == ["The launch code is tangerine-42"]  # nothing planted
    mcp_ok = _send(http, "POST", "/mcp", host=f"localhost:{port}", origin=f"http://localhost:{port}")
    assert mcp_ok.status_code == 200 and "serverInfo" in mcp_ok.text

    book = TokenBook(tmp_path / "tokens.json")
    reader = book.create("reader", ["*"], write=False)
    with serving(mem, tokens=book) as secured:
        auth = {"Authorization": f"Bearer {reader}"}
        write = secured.post("/memories", json={"content": "planted by a reader", "workspace": "w"}, headers=auth)
        read = secured.get("/memories", params={"workspace": "w"}, headers=auth)
        nobody = secured.get("/memories", params={"workspace": "w"})
    assert write.status_code == 403 and write.json()["error"]["type"] == "forbidden" and "read only" in write.text
    assert read.status_code == 200 and nobody.status_code == 401
    assert [m.content for m in mem.list(workspace="w")] == ["The launch code is tangerine-42"]
