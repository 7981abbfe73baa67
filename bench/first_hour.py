"""A new user's first hour, from a wheel: run by CI (`make first-hour`, from .ci/run).

    python bench/first_hour.py dist/knotwork-0.1.0-py3-none-any.whl

1. a fresh virtualenv, the wheel installed into it with pip, on a PATH without Node.js or npm;
2. the README's CLI quick start as written (its console block: `source .venv/bin/activate`, then each command,
   its output matched against the README's), in a folder whose `.venv` is that virtualenv, timed: under 10 s;
3. a `--db` where no store is, refused by a command that only reads (exit 2, one line, nothing created);
   `knotwork` alone prints its grouped help and exits 0 (the README's Python and MCP examples are run, twice,
   by tests/test_docs.py: here they would add seconds of model loading);
4. `knotwork serve` from that virtualenv (with the documented search floor); through it, the README's miss (a search without `-w` names the
   workspace that would answer), a listing without `-w` that names it too, a nonsense query answered with
   nothing, and the README's curl example of the REST API as written (its address made the server's);
5. the web UI (`GET /`) and the API docs (`/docs`, `/redoc`) rendered in Chromium (/usr/bin/chromium, through
   Playwright from the running interpreter), every request recorded: one that leaves loopback fails the run.

Prints one line per step with its time and exits 1 on the first failure. Needs Chromium and Playwright (the
`test` extra) where it runs; the fresh virtualenv gets the wheel's own dependencies only.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from urllib.parse import urlsplit

QUICK_START_S = 10.0
STARTUP_DEADLINE_S = 180.0
CHROMIUM = os.environ.get("KNOTWORK_TEST_CHROMIUM") or "/usr/bin/chromium"
HOST = "127.0.0.1"
README = Path(__file__).resolve().parents[1] / "README.md"


class Failed(Exception):
    pass


def step(name: str, started: float) -> None:
    print(f"first-hour: {name}: {time.monotonic() - started:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)


def loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost", "::1")


def no_node_env(venv_dir: Path, home: Path) -> dict[str, str]:
    """The fresh virtualenv's bin/ and the system's bare essentials, none of which holds node or npm."""
    bare = home / "bin"
    bare.mkdir()
    for tool in ("sh", "bash", "env", "uname", "curl"):  # what pip, the CLI and the README's steps spawn; no node, no npm
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KNOTWORK_", "NODE", "NPM", "VIRTUAL_ENV"))}
    env.update(PATH=f"{venv_dir / 'bin'}:{bare}", HOME=str(home), KNOTWORK_HOME=str(home / ".knotwork"))
    for tool in ("node", "npm", "npx"):
        if shutil.which(tool, path=env["PATH"]):
            raise Failed(f"{tool} is on the fresh PATH")
    return env


def run(cmd: list[str], env: dict[str, str], **kw: object) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    if r.returncode != 0:
        raise Failed(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


def install(wheel: Path, venv_dir: Path, env: dict[str, str]) -> None:
    started = time.monotonic()
    venv.EnvBuilder(with_pip=True).create(venv_dir)
    run([str(venv_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], env)
    step("fresh virtualenv + pip install of the wheel", started)


def readme_block(kind: str) -> str:
    """The README's code block marked ``<!-- docs-test: KIND -->`` (tests/test_docs.py runs the same blocks)."""
    found = re.findall(rf"<!-- docs-test: {kind} -->\n```\w+\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    if len(found) != 1:
        raise Failed(f"README.md has {len(found)} blocks marked docs-test: {kind}")
    return found[0]


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` against the README's lines, where ``…`` stands for any text (a line of ``…`` alone: any lines)."""
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "…":
        return any(matches(rest, got[i:]) for i in range(len(got) + 1))
    pattern = ".*".join(re.escape(part) for part in head.split("…"))
    return bool(got) and re.fullmatch(pattern, got[0]) is not None and matches(rest, got[1:])


def console(block: str, cwd: Path, env: dict[str, str], address: str | None = None) -> None:
    """Each ``$ command`` of a README console block in bash, as a user types it in one terminal."""
    carried: list[str] = []
    for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
        command, *expected = part.rstrip("\n").split("\n")
        if address:
            command = command.replace("127.0.0.1:8765", address)
        script = " && ".join([*carried, command])
        if command.split()[0] in ("source", "cd"):
            carried.append(command)
        done = subprocess.run(["/bin/bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=300)
        got = done.stdout.rstrip("\n").split("\n")
        if done.returncode != 0 or (expected and not matches(expected, got)) or (not expected and done.stdout.strip()):
            raise Failed(f"README step {command!r} exited {done.returncode}; expected {expected}, got:\n{done.stdout}{done.stderr}")


def quick_start(venv_dir: Path, env: dict[str, str], home: Path) -> float:
    """The README's CLI quick start, as written, in a checkout-like folder whose ``.venv`` is the fresh one."""
    started = time.monotonic()
    checkout = home / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(venv_dir, target_is_directory=True)
    bare = {**env, "PATH": env["PATH"].split(":", 1)[1]}  # the second terminal: no venv on PATH until activated
    console(readme_block("console"), checkout, bare)
    elapsed = time.monotonic() - started
    step("README CLI quick start as written (activate, add, add, search, search)", started)
    return elapsed


def missing_store(knotwork: str, env: dict[str, str], home: Path) -> None:
    started = time.monotonic()
    target = home / "nowhere" / "misspelt.db"
    done = subprocess.run([knotwork, "list", "--db", str(target)], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    if done.returncode != 2 or done.stderr.count("\n") != 1 or str(target) not in done.stderr or target.parent.exists():
        raise Failed(f"a --db where no store is was not refused (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    step("a --db where no store is: refused, nothing created", started)


def alone(knotwork: str, env: dict[str, str]) -> None:
    """``knotwork`` alone: its help, grouped, and exit 0 (not ``error: Usage: …``)."""
    started = time.monotonic()
    said = run([knotwork], env).stdout
    if not said.startswith("Usage: knotwork") or "Memories:" not in said or "Server:" not in said:
        raise Failed(f"`knotwork` alone did not print the grouped help:\n{said}")
    step("`knotwork` alone: the grouped help, exit 0", started)


def through_server(knotwork: str, env: dict[str, str], base: str, home: Path) -> None:
    """The README's miss and a nonsense query through the running server, then the README's curl example."""
    started = time.monotonic()
    served = {**env, "KNOTWORK_PORT": base.rsplit(":", 1)[1]}
    miss = run([knotwork, "search", "where do we cache session tokens?"], served).stdout.strip()
    if miss != "No matching memories here; 1 match in workspace 'ledgerly'; pass -w ledgerly.":
        raise Failed(f"the miss through the server did not name the workspace:\n{miss}")
    listed = run([knotwork, "list"], served).stdout.strip()
    if not re.fullmatch(r"No memories here; \d+ memor(y|ies) in workspace 'ledgerly'; pass -w ledgerly\.", listed):
        raise Failed(f"a listing without -w through the server did not name the workspace:\n{listed}")
    nonsense = run([knotwork, "search", "zxqvbnm", "-w", "ledgerly"], served).stdout.strip()
    if nonsense != "No matching memories.":
        raise Failed(f"a nonsense query found something:\n{nonsense}")
    console(readme_block("curl"), home, env, address=base.removeprefix("http://"))
    step("through the server: the miss and the listing name ledgerly, nonsense finds nothing, the README's curl example", started)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def serve(knotwork: str, env: dict[str, str], home: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    started = time.monotonic()
    port = free_port()
    log = home / "serve.log"
    # Settings as a user gets them: a nonsense query finds nothing by the learned rule, on by default
    # (docs/concepts.md, "Knowing when nothing matches"), with no floor set.
    with log.open("wb") as out:
        proc = subprocess.Popen([knotwork, "serve", "--port", str(port)], env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT)
    while True:
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() - started > STARTUP_DEADLINE_S:
                proc.kill()
                raise Failed(f"knotwork serve did not start:\n{log.read_text(errors='replace')}") from None
            time.sleep(0.1)
    step("knotwork serve listening", started)
    return proc, f"http://{HOST}:{port}", log


def browse(base: str) -> None:
    """The UI's search view and both docs pages render; no request leaves loopback (they are aborted and fail)."""
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    seen: list[str] = []
    errors: list[str] = []

    def route(r: object) -> None:
        url = r.request.url  # type: ignore[attr-defined]
        seen.append(url)
        r.continue_() if loopback(url) else r.abort()  # type: ignore[attr-defined]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route("**/*", route)
            page.goto(f"{base}/#/search")
            page.wait_for_selector("#view[data-ready]")
            page.fill("input[name=query]", "where do we cache session tokens?")
            page.select_option("select[name=workspace]", "ledgerly")
            page.click("form.search button[type=submit]")
            first = page.locator("li.hit").first
            first.wait_for()
            if "Valkey" not in first.inner_text():
                raise Failed(f"the UI's first hit is not the Valkey memory: {first.inner_text()!r}")
            page.goto(f"{base}/docs")
            page.wait_for_selector(".opblock-summary-path[data-path='/memories']")
            page.goto(f"{base}/redoc")
            page.wait_for_selector("[data-section-id^='tag/memories']")
        finally:
            browser.close()
    away = [u for u in seen if not loopback(u)]
    if away:
        raise Failed(f"requests left the machine: {away}")
    if errors:
        raise Failed(f"JavaScript errors: {errors}")
    if not any(u.endswith("/ui/static/app.js") for u in seen):
        raise Failed(f"the UI's bundle was not loaded: {seen}")
    step(f"UI, /docs and /redoc rendered in Chromium ({len(seen)} requests, all to loopback)", started)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].endswith(".whl") or not Path(argv[0]).is_file():
        print("usage: python bench/first_hour.py dist/knotwork-<version>-py3-none-any.whl", file=sys.stderr)
        return 2
    wheel = Path(argv[0]).resolve()
    total = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="knotwork-first-hour-") as tmp:
        home = Path(tmp)
        venv_dir = home / "venv"
        proc = None
        try:
            env = no_node_env(venv_dir, home)
            install(wheel, venv_dir, env)
            knotwork = str(venv_dir / "bin" / "knotwork")
            took = quick_start(venv_dir, env, home)
            missing_store(knotwork, env, home)
            alone(knotwork, env)
            proc, base, log = serve(knotwork, env, home)
            through_server(knotwork, env, base, home)
            browse(base)
            if took > QUICK_START_S:  # checked last, so that one slow run still shows whether the rest works
                raise Failed(f"the CLI quick start took {took:.1f} s (target: under {QUICK_START_S:.0f} s; load {os.getloadavg()[0]:.1f})")
        except Failed as exc:
            print(f"first-hour: FAILED: {exc}", file=sys.stderr)
            return 1
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=20)
    step("all", total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
