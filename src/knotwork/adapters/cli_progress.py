"""Progress of the CLI's long commands (import, re-embed), one line per step of the work, and what an
interruption kept.

Trigger: an import of 6,000 records showed ``0/6000`` for 24 s (every text was embedded in one model run
before the first record was counted), an ETA of 5:06:02 at 1/1500 (tqdm's smoothed rate of the first,
slow, step), then 13 s of silence after 100 % (the graph and the commit); Ctrl-C said ``aborted``, not
what was kept. Outcome: a line per step (``read``, ``embedded``, ``stored``, ``graph``) that moves as the
step does, its ETA the step's average rate so far (``smoothing=0``), and a step without a count (the graph,
the commit) shows its time passing. :func:`interrupted` words what Ctrl-C left.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

TICK_S = 0.5  # how often a step without a count redraws its elapsed time


class Stages:
    """A progress line per step: ``stage(name, total)`` starts one (closing the last), ``update(n)`` counts
    ``n`` more done in it. Shown when ``show`` (None: when stderr is a terminal)."""

    def __init__(self, show: bool | None, unit: str = " records", marks: frozenset[str] = frozenset({"committed"})) -> None:
        self.show = show
        self.marks = marks  # steps only noted (in ``names``), not drawn: the end of the work
        self.unit = unit
        self.bar: Any = None
        self.names: list[str] = []  # the steps started, in order
        self.done = 0  # counted in the current step (shown or not)
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def stage(self, name: str, total: int | None, counts: bool = False) -> None:
        """Start step ``name`` of ``total`` items (None: unknown; then ``counts`` says whether it counts them
        or only takes time, such as the graph's reading)."""
        from tqdm import tqdm

        self.close()
        self.names.append(name)
        self.done = 0
        if name in self.marks:
            return
        self.bar = tqdm(total=total, desc=name, unit=self.unit, file=sys.stderr, smoothing=0, mininterval=0.2,
                        disable=None if self.show is None else not self.show,
                        bar_format=None if total is not None else "{desc}: {n_fmt}{unit} [{elapsed}]" if counts else "{desc}: {elapsed}")
        if total is None and not self.bar.disable:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, args=(self.bar,), daemon=True)
            self._ticker.start()

    def _tick(self, bar: Any) -> None:
        while not self._stop.wait(TICK_S):
            bar.refresh()

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Stages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Interrupted(SystemExit):
    """Exit 130, as a shell reports SIGINT; ``kept``: whether the store holds what the command wrote (a new
    store made for it is then kept, adapters/newstore.py)."""

    def __init__(self, kept: bool) -> None:
        super().__init__(130)
        self.kept = kept


def interrupted(what: str, kept: bool = False) -> Interrupted:
    """The exit of a command that Ctrl-C stopped, once one line on stderr has said what it kept."""
    import click

    click.echo(f"\ninterrupted: {what}", err=True)
    return Interrupted(kept)
