"""A new user's first hour, from a wheel: run by CI (`make first-hour`, from .ci/run).

    python bench/first_hour.py dist/knotwork-0.1.0-py3-none-any.whl

1. a fresh virtualenv, the wheel installed into it with pip, on a PATH without Node.js or npm;
2. the CLI quick start of the README (add, then search, from the installed `knotwork`), timed: under 10 s in all;
3. `knotwork serve` from that virtualenv; the web UI (`GET /`) and the API docs (`/docs`, `/redoc`) rendered in
   Chromium (/usr/bin/chromium, through Playwright from the running interpreter), every request recorded:
   one that leaves loopback fails the run.

Prints one line per step with its time and exits 1 on the first failure. Needs Chromium and Playwright (the
`test` extra) where it runs; the fresh virtualenv gets the wheel's own dependencies only.
"""

from __future__ import annotations

import os
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
    for tool in ("sh", "env", "uname"):  # what pip and the CLI may spawn; no node, no npm
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


def quick_start(knotwork: str, env: dict[str, str]) -> float:
    """The README's CLI quick start: two adds, then a search that finds the right one first."""
    started = time.monotonic()
    run([knotwork, "add", "Session tokens are cached in Valkey for 15 minutes.", "-w", "ledgerly", "-c", "decision"], env)
    run([knotwork, "add", "The billing export runs nightly at 02:00 UTC.", "-w", "ledgerly"], env)
    found = run([knotwork, "search", "where do we cache session tokens?", "-w", "ledgerly"], env).stdout
    elapsed = time.monotonic() - started
    step("CLI quick start (add, add, search)", started)
    first = next((line for line in found.splitlines() if "Valkey" in line or "billing" in line), "")
    if "Valkey" not in first:
        raise Failed(f"the search did not put the Valkey memory first:\n{found}")
    elsewhere = run([knotwork, "search", "where do we cache session tokens?"], env).stdout
    if "ledgerly" not in elsewhere:
        raise Failed(f"a search without -w did not say where the matches are:\n{elsewhere}")
    return elapsed


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def serve(knotwork: str, env: dict[str, str], home: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    started = time.monotonic()
    port = free_port()
    log = home / "serve.log"
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
            took = quick_start(knotwork, env)
            proc, base, log = serve(knotwork, env, home)
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
