"""bench/data/convo2/ holds together, build.py rebuilds it byte for byte, and bench/sweep.py runs it."""

from __future__ import annotations

import io
import json
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

import pytest

from tests._bench import BENCH, bench_module, check_conversation_set, stamp

DATA = BENCH / "data" / "convo2"
KINDS = {"fact", "speaker", "reply", "decision", "paraphrase", "time", "thread", "update", "none"}


@pytest.fixture(scope="module")
def convo():
    return bench_module("convo.py", "convo_runner")


@pytest.fixture(scope="module")
def build():
    return bench_module("data/convo2/build.py", "convo2_build")


def test_the_committed_set_holds_together(convo):
    data = check_conversation_set(convo, DATA, KINDS)
    assert 150 <= len(data.questions) <= 250
    half_of_store: dict[str, set[str]] = defaultdict(set)
    threads_of_store: dict[str, set[str]] = defaultdict(set)
    for t in data.turns:
        half_of_store[t.store].add(t.half)
        threads_of_store[t.store].add(t.thread)
    assert 6 <= len(half_of_store) <= 10
    assert all(len(h) == 1 for h in half_of_store.values()), "a store is in both halves"
    assert {h for (h,) in half_of_store.values()} == {"dev", "test"}
    assert all(len(threads) >= 4 for threads in threads_of_store.values())
    for q in data.questions:  # every store's meetings are days apart: a thread is one meeting
        assert all(g.split("#")[0] in threads_of_store[q.store] for g in q.gold), q.id
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 2_000_000


def test_turns_are_in_order_and_meetings_days_apart(convo):
    data = convo.load(DATA)
    spans: dict[str, tuple] = {}
    for t in data.turns:
        at = stamp(t.at)
        first, last = spans.get(t.thread, (at, at))
        spans[t.thread] = (min(first, at), max(last, at))
    assert all((last - first).total_seconds() < 30 * 60 for first, last in spans.values())
    by_store: dict[str, list] = defaultdict(list)
    for t in data.turns:
        by_store[t.store].append(spans[t.thread])
    for store, meetings in by_store.items():
        ordered = sorted(set(meetings))
        assert all((b[0] - a[1]).days >= 1 for a, b in zip(ordered, ordered[1:])), store


def test_build_reproduces_turns_byte_for_byte(build):
    rebuilt = build.render(build.build(build.read_sources(build.ARCHIVE)))
    assert rebuilt.encode("utf-8") == (DATA / "turns.jsonl").read_bytes()


def test_build_refuses_a_source_that_is_not_the_recorded_one(build, tmp_path):
    sources = build.read_sources(build.ARCHIVE)
    name = sorted(sources)[0]
    changed = tmp_path / "changed.tar"
    with tarfile.open(changed, "w") as tar:
        for path, raw in sources.items():
            if path == name:
                raw += b" "  # one byte more: still the same JSON, not the same file
            info = tarfile.TarInfo(path)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    with pytest.raises(SystemExit, match=f"{name}: sha256 differs"):
        build.read_sources(changed)
    missing = tmp_path / "missing"
    missing.mkdir()
    with pytest.raises(SystemExit, match="no data/ALL/"):
        build.read_sources(missing)


def test_build_cleans_merges_and_times_a_meeting(build):
    utterances = [
        {"speaker": "A", "content": "Skipped before the topic ."},
        {"speaker": "A", "content": "So we 're {disfmarker} ready ."},
        {"speaker": "A", "content": "{vocalsound} Mm - hmm , I 'm sure ."},
        {"speaker": "B", "content": "{gap}"},
        {"speaker": "B", "content": "What 's next ?"},
        {"speaker": "A", "content": "@ @ Lunch ."},
    ]
    raw = json.dumps({"topic_list": [{"relevant_text_span": [["1", "5"]]}], "meeting_transcripts": utterances}).encode()
    rows = build.build({"data/ALL/test/XY1234a.json": raw}, {"z1": ("dev", [("XY1234a", "2024-01-01 10:00")])})
    assert [(r["id"], r["speaker"], r["role"], r["text"]) for r in rows] == [
        ("xy1234a#0", "Ava", "A", "So we're ready. Mm-hmm, I'm sure."),
        ("xy1234a#1", "Ben", "B", "What's next?"),
        ("xy1234a#2", "Ava", "A", "Lunch."),
    ]
    # 1 s plus 0.35 s a word (as transcribed, markup included), from the meeting's first utterance:
    # 2.75 s before utterance 1, then 3.1 + 4.15 + 1.35 = 8.6 s more before utterance 4, then 2.4 s
    assert [r["at"] for r in rows] == ["2024-01-01T10:00:03Z", "2024-01-01T10:00:11Z", "2024-01-01T10:00:14Z"]
    assert [r["source_id"] for r in rows] == ["XY1234a:1", "XY1234a:4", "XY1234a:5"]
    assert all(r["store"] == "z1" and r["half"] == "dev" and r["thread"] == "xy1234a" for r in rows)


def test_thread_hits_ranks_threads_by_their_best_turn(convo):
    thread_of = {"a#0": "a", "a#1": "a", "b#0": "b", "b#1": "b"}
    assert convo.thread_hits(["b#0", "a#1"], ["a#1"], ["a"], thread_of) == {"thread#1": False, "thread_only": False}
    assert convo.thread_hits(["a#0", "b#0", "b#1"], ["a#1"], ["a"], thread_of) == {"thread#1": True, "thread_only": True}
    assert convo.thread_hits(["a#0", "a#1"], ["a#1"], ["a"], thread_of) == {"thread#1": True, "thread_only": False}
    far = ["a#0", "b#0", "b#1", "x", "y", "a#1"]  # the gold turn sixth: the right thread, not the turn
    assert convo.thread_hits(far, ["a#1"], ["a"], {**thread_of, "x": "b", "y": "b"})["thread_only"] is True
    assert convo.thread_hits([], ["a#1"], ["a"], thread_of) == {"thread#1": False, "thread_only": False}


def test_sweep_reads_the_set_named_by_convo_data(convo, tmp_path, monkeypatch, capsys):
    data = convo.load(DATA)
    store, threads = "m3", {"es2002a", "es2002b"}
    questions = [q for q in data.questions if q.store == store and q.gold and set(q.gold_threads) <= threads]
    assert len(questions) >= 5
    folder = tmp_path / "slice"
    folder.mkdir()
    keep_t = {t.id for t in data.turns if t.store == store and t.thread in threads}
    keep_q = {q.id for q in questions}
    for name, keep in (("turns.jsonl", keep_t), ("questions.jsonl", keep_q)):
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        (folder / name).write_text("".join(line + "\n" for line in lines if json.loads(line)["id"] in keep), encoding="utf-8")
    sweep = bench_module("sweep.py", "sweep_runner")
    argv = ["sweep.py", "--convo", "dev", "--convo-data", str(folder), "--store", str(tmp_path / "s.db"),
            "--variant", "default=memory_hybrid", "--variant", "bm25=memory_bm25"]
    monkeypatch.setattr(sys, "argv", argv)
    sweep.main()
    out = capsys.readouterr().out
    assert f"slice dev: {len(questions)} answerable questions" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split() and line.split()[0] in ("default", "bm25")}
    assert set(rows) == {"default", "bm25"}
    for cells in rows.values():
        r1, r5, r10, thr5, thr1, only = (float(c) for c in cells[1:7])
        assert 0 <= r1 <= r5 <= r10 <= 1 and 0 <= only <= thr1 <= 1 and thr5 >= r5
    assert rows["default"][8] == "+0/-0"  # the first variant against itself
    gained, lost = (int(n) for n in rows["bm25"][8].lstrip("+").split("/-"))
    r5_default, r5_bm25 = float(rows["default"][2]), float(rows["bm25"][2])
    assert (gained - lost) == round((r5_bm25 - r5_default) * len(questions))  # the paired counts add up to the R@5 change
    assert float(rows["default"][3]) >= 0.5  # two meetings: a search that works finds most answers in its top 10
    assert (tmp_path / "s.db").exists()
