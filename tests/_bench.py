"""A script of bench/ imported as a module, for the tests of its loader and its metrics; checks shared by the
tests of the conversational data sets."""

from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(script: str, name: str) -> ModuleType:
    """``bench/<script>`` as the module ``name``: bench/ is on the path while it loads (the scripts import one
    another), and the module stays in ``sys.modules`` (dataclasses look their module up there)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / script)
        assert spec is not None and spec.loader is not None, script
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def stamp(text: str) -> datetime:
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert when.tzinfo is not None, f"{text}: no time zone"
    return when


def check_conversation_set(convo: ModuleType, folder: Path, kinds: Iterable[str]) -> Any:
    """A bench/data/<set>/ folder read by bench/convo.py holds together: unique turn ids, every gold turn in its
    question's store and half (``load`` raises otherwise), no thread in both halves, time never going backwards in
    a thread, gold threads that are the gold turns' threads, questions asked after their store's last turn, and
    every kind of ``kinds`` in each half. Returns the loaded data set."""
    data = convo.load(folder)
    halves_of_thread: dict[str, set[str]] = defaultdict(set)
    times: dict[str, list[datetime]] = defaultdict(list)
    for t in data.turns:
        halves_of_thread[t.thread].add(t.half)
        times[t.thread].append(stamp(t.at))
        assert t.text.strip() and t.speaker
    assert len({t.id for t in data.turns}) == len(data.turns), "turn ids are not unique"
    assert all(len(h) == 1 for h in halves_of_thread.values()), "a thread is in both halves"
    assert all(ts == sorted(ts) for ts in times.values()), "time goes backwards inside a thread"
    assert len({q.id for q in data.questions}) == len(data.questions), "question ids are not unique"
    thread_of = {t.id: t.thread for t in data.turns}
    for q in data.questions:
        assert q.kind in convo.KINDS, q.id
        assert (q.kind == "none") == (not q.gold), q.id
        assert set(q.gold_threads) == {thread_of[g] for g in q.gold}, q.id
        assert stamp(q.asked_at) >= max(stamp(t.at) for t in data.turns if t.store == q.store), q.id
    for half in ("dev", "test"):
        assert set(kinds) <= {q.kind for q in data.half(half).questions}, half
    return data
