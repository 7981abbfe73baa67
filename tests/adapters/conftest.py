"""Fixtures for the adapter tests: real SQLite files, real ``knotwork`` processes.

Every server or CLI run here is the installed console script
(``<venv>/bin/knotwork``) in its own process, with an environment scrubbed
of the caller's ``KNOTWORK_*`` settings and ``KNOTWORK_HOME`` pointed into
``tmp_path``, so no test can touch ``~/.knotwork``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest
from mcp import Client, StdioServerParameters

import knotwork
from knotwork import Knotwork

KNOTWORK = str(Path(sys.executable).parent / "knotwork")
HOST = "127.0.0.1"
STARTUP_DEADLINE_S = 30.0  # two workers on two cores: a cold start can be slow
CALL_TIMEOUT_S = 30.0


def clean_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without KNOTWORK_* settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    env["KNOTWORK_HOME"] = str(home)
    # The tests read the graph right after an add: each add reads its memories in itself (``extra`` may say
    # KNOTWORK_ENRICH=background, as tests/adapters/test_enrichment_adapters.py does).
    env["KNOTWORK_ENRICH"] = "inline"
    env.update(extra or {})
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Endpoint:
    """One way to reach an MCP server on ``db``: ``client()`` gives a fresh SDK client."""

    db: Path
    transport: str
    make_client: Callable[[], Client]
    log: Path | None = None  # the server's output (HTTP only; a stdio server's stderr is the test's)
    base_url: str | None = None  # http://HOST:PORT of a `knotwork serve` (HTTP only)

    def client(self) -> Client:
        return self.make_client()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Path of a database file (not created yet)."""
    return tmp_path / "memory.db"


@pytest.fixture
def api(db: Path) -> Iterator[Knotwork]:
    """The Python API on ``db`` (opening it creates the file)."""
    with knotwork.open(db) as mem:
        yield mem


class StdioLauncher:
    """``start(db, *args, env=None)``: each ``client()`` launches ``knotwork mcp --db db *args``.

    The SDK's stdio transport owns the process: leaving ``async with client``
    closes its stdin, then terminates and kills it if it lingers.
    """

    def __init__(self, home: Path) -> None:
        self.home = home

    def start(self, db: Path, *args: str, env: Mapping[str, str] | None = None) -> Endpoint:
        # The SDK passes on only HOME, PATH and a few more; give the server the same environment as the CLI.
        params = StdioServerParameters(command=KNOTWORK, args=["mcp", "--db", str(db), *args], env=clean_env(self.home, env))
        return Endpoint(db, "stdio", lambda: Client(params, read_timeout_seconds=CALL_TIMEOUT_S))

    def stop_all(self) -> None:
        pass


class HttpLauncher:
    """``start(db, *args, env=None)``: run ``knotwork serve`` on a free port until ``stop_all()``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, db: Path, *args: str, env: Mapping[str, str] | None = None) -> Endpoint:
        full_env = clean_env(self.home, env)
        failures: list[str] = []
        for attempt in range(3):  # a port picked by bind(0) can be taken again before the server binds it
            port = free_port()
            log = self.home / f"serve-{port}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [KNOTWORK, "serve", "--db", str(db), "--port", str(port), *args],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=full_env,
                )
            self.procs.append(proc)
            deadline = time.monotonic() + STARTUP_DEADLINE_S
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    socket.create_connection((HOST, port), timeout=0.5).close()
                except OSError:
                    time.sleep(0.05)
                    continue
                url = f"http://{HOST}:{port}/mcp"
                return Endpoint(db, "http", lambda: Client(url, read_timeout_seconds=CALL_TIMEOUT_S), log, f"http://{HOST}:{port}")
            if proc.poll() is None:
                _stop(proc)
                pytest.fail(
                    f"knotwork serve did not accept connections on port {port} within {STARTUP_DEADLINE_S:.0f} s;"
                    f" log:\n{log.read_text(errors='replace')}"
                )
            output = log.read_text(errors="replace")
            failures.append(f"attempt {attempt + 1}, port {port}, exit {proc.returncode}:\n{output}")
            if "address already in use" not in output.lower():
                break
        pytest.fail("knotwork serve exited before accepting connections:\n" + "\n".join(failures))

    def stop_all(self) -> None:
        for proc in self.procs:
            _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[HttpLauncher]:
    """An :class:`HttpLauncher` whose servers keep their files in ``tmp_path/home``; stopped after the test."""
    served = HttpLauncher(tmp_path / "home")
    yield served
    served.stop_all()


def port_env(served: Endpoint, **extra: str) -> dict[str, str]:
    """The environment of a CLI process that finds ``served`` at the default address (``KNOTWORK_PORT``)."""
    assert served.base_url is not None
    return {"KNOTWORK_PORT": served.base_url.rsplit(":", 1)[1], **extra}


#: The environment of a CLI process that works in-process, whatever server runs (the control of a test).
LOCAL = {"KNOTWORK_URL": "none"}
#: ``python -c PROBE ARGS`` runs ``knotwork ARGS``, then writes on stderr whether the model's runtime was loaded.
PROBE = (
    "import sys, atexit; atexit.register(lambda: sys.stderr.write('\\nORT=%d\\n' % ('onnxruntime' in sys.modules)));"
    " from knotwork.adapters.entry import main; main(sys.argv[1:])"
)


class Ran(NamedTuple):
    code: int
    out: str  # stdout, stripped
    err: str  # stderr without the probe's line, stripped
    loaded: bool  # whether the embedding model's runtime was imported


def probed_cli(home: Path, env: Mapping[str, str], *args: str, stdin: str | None = None) -> Ran:
    """Run ``knotwork ARGS`` in its own process (``KNOTWORK_HOME=home``, ``env`` added) under :data:`PROBE`."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=clean_env(home, env), capture_output=True, text=True,
                          timeout=120, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    lines = done.stderr.strip().splitlines()
    return Ran(done.returncode, done.stdout.strip(), "\n".join(lines[:-1]).strip(), lines[-1] == "ORT=1")


@pytest.fixture
def start_stdio(tmp_path: Path) -> Callable[..., Endpoint]:
    return StdioLauncher(tmp_path / "home").start


@pytest.fixture(scope="class")
def start_stdio_shared(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Endpoint]:
    return StdioLauncher(tmp_path_factory.mktemp("home")).start


@pytest.fixture
def start_http(tmp_path: Path) -> Iterator[Callable[..., Endpoint]]:
    launcher = HttpLauncher(tmp_path / "home")
    yield launcher.start
    launcher.stop_all()


@pytest.fixture(scope="class")
def start_http_shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Endpoint]]:
    launcher = HttpLauncher(tmp_path_factory.mktemp("home"))
    yield launcher.start
    launcher.stop_all()


@pytest.fixture
def run_cli_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_cli`` without the process: ``run_cli_here(*args, env=None, cwd=None)`` calls the console script's
    entry point in this process, with the environment and home ``run_cli`` gives its process, and returns the
    same exit status, stdout and stderr. For tests of a command's parsing and output, where a process per call
    costs a second of start-up and checks nothing more; each such test keeps a real process for some call."""
    from knotwork.adapters.entry import main

    def run(*args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        capfd.readouterr()  # what the test printed before is not this command's
        with monkeypatch.context() as patched:
            for name in [n for n in os.environ if n.startswith("KNOTWORK_")]:
                patched.delenv(name)
            for name, value in clean_env(tmp_path / "home", env).items():
                if name.startswith("KNOTWORK_"):
                    patched.setenv(name, value)
            if cwd is not None:
                patched.chdir(cwd)
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_cli(*args, input=None, env=None)``: run the ``knotwork`` command and capture its output."""

    def run(*args: str, input: str | None = None, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [KNOTWORK, *args],
            input=input,
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=clean_env(tmp_path / "home", env),
            timeout=60,
            stdin=None if input is not None else subprocess.DEVNULL,
        )

    return run
