"""The CLI in process, through the entry point the console script uses: its exit code, stdout and stderr."""

from __future__ import annotations

import pytest

from knotwork.adapters.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io

        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err
