"""What grows in a server over a soak: ``tracemalloc`` snapshots of ``knotwork serve``, diffed.

    .venv/bin/python bench/soak_trace.py DIR [--top 25] [--frames]

A diagnostic, not a measurement: tracing every allocation slows the server several times. ``bench/load.py
--soak --tracemalloc DIR`` starts the server through this file (``--record DIR serve ...``), which turns
``tracemalloc`` on before anything is imported and writes ``DIR/<minute>.snap`` each minute. Run alone,
this file compares the second snapshot (after the warm-up) with the last one and prints the places (file
and line, or whole tracebacks with ``--frames``) whose live Python allocations grew the most, with the
traced total of each snapshot. Memory allocated outside Python's allocator (onnxruntime's arena, SQLite's
page cache, glibc's free lists) is not traced: compare the traced total with the RSS ``bench/load.py`` reports.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import tracemalloc
from pathlib import Path

FRAMES = 12
EVERY_S = 60.0


def record(folder: Path, argv: list[str]) -> None:
    """Run the ``knotwork`` command ``argv`` with a snapshot written to ``folder`` every minute."""
    tracemalloc.start(FRAMES)
    started = time.monotonic()

    def dump() -> None:
        while True:
            time.sleep(EVERY_S)
            minute = round((time.monotonic() - started) / 60)
            snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
            snapshot.dump(str(folder / f"{minute:04d}.snap"))

    threading.Thread(target=dump, name="soak-trace", daemon=True).start()
    from knotwork.adapters.entry import main

    sys.argv = ["knotwork", *argv]
    main()


def compare(folder: Path, top: int, frames: bool) -> None:
    snaps = sorted(folder.glob("*.snap"))
    if len(snaps) < 2:
        raise SystemExit(f"{folder}: fewer than two snapshots")
    for snap in snaps:
        total = sum(s.size for s in tracemalloc.Snapshot.load(str(snap)).statistics("filename"))
        print(f"{snap.stem}: traced {total / 2**20:.1f} MB")
    base = snaps[1] if len(snaps) > 2 else snaps[0]  # the first minute is the warm-up
    first, last = tracemalloc.Snapshot.load(str(base)), tracemalloc.Snapshot.load(str(snaps[-1]))
    key = "traceback" if frames else "lineno"
    print(f"\ngrowth from minute {base.stem} to minute {snaps[-1].stem}, by {key}:")
    for stat in last.compare_to(first, key)[:top]:
        print(f"{stat.size_diff / 2**20:+8.2f} MB {stat.count_diff:+8d} blocks  now {stat.size / 2**20:7.2f} MB")
        for line in stat.traceback.format()[-(2 * FRAMES if frames else 2) :]:
            print("    " + line)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--record":
        record(Path(sys.argv[2]), sys.argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--frames", action="store_true", help="group by whole traceback, not by line")
    args = parser.parse_args()
    compare(args.folder, args.top, args.frames)


if __name__ == "__main__":
    main()
