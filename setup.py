"""The build hook that puts the web UI into every wheel and sdist (everything else is in pyproject.toml).

The UI's bundle (``src/knotwork/adapters/http/static/``) is built from ``web/`` by ``npm ci && npm run build``
and is not committed: a wheel or sdist built from a clean clone runs that build first, so that
``pip install knotwork-*.whl`` serves the UI on a machine without Node. Building a wheel from an sdist uses the
bundle the sdist carries. An editable install (``pip install -e .``, what ``make`` does) leaves the bundle to
``make ui``, so that a machine without Node can still run the server from a checkout (``GET /`` then answers
503 and says how to build it).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
STATIC = ROOT / "src" / "knotwork" / "adapters" / "http" / "static"
BUNDLE = ("index.html", "app.js", "app.css", "favicon.svg")


def _sources() -> list[Path]:
    return [p for p in [*WEB.glob("src/*"), *(WEB / n for n in ("package.json", "package-lock.json", "build.mjs", "tsconfig.json"))] if p.is_file()]


def _stale() -> bool:
    """True when a file of the bundle is missing or older than a source of it."""
    built = [STATIC / name for name in BUNDLE]
    if not all(p.is_file() for p in built):
        return True
    return max(p.stat().st_mtime for p in _sources()) > min(p.stat().st_mtime for p in built)


def build_ui() -> None:
    """Build the web UI's bundle from web/ when it is missing or stale; refuse to package without it."""
    if not WEB.is_dir():  # an sdist: it carries the bundle it was made with
        if not (STATIC / "app.js").is_file():
            raise SystemExit("knotwork: this source tree has neither web/ nor a built web UI bundle")
        return
    if not _stale():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "knotwork: building a wheel or sdist needs the web UI's bundle, and building it needs Node.js and npm "
            "(not found on PATH); install them, or run `cd web && npm ci && npm run build` elsewhere first"
        )
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=WEB, check=True)
    subprocess.run([npm, "run", "build"], cwd=WEB, check=True)


class BuildPyWithUI(build_py):
    def run(self) -> None:
        if not self.editable_mode:
            build_ui()
            self.data_files = self._get_data_files()  # found again: the bundle may be new since they were listed
        super().run()


class SdistWithUI(sdist):
    def run(self) -> None:
        build_ui()
        super().run()


setup(cmdclass={"build_py": BuildPyWithUI, "sdist": SdistWithUI})
