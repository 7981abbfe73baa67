"""bench/data/convo/ holds together, and bench/convo.py loads a slice into knotwork and scores it as documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._bench import BENCH, bench_module, check_conversation_set, stamp

DATA = BENCH / "data" / "convo"


@pytest.fixture(scope="module")
def convo():
    return bench_module("convo.py", "convo_runner")


def test_the_committed_set_holds_together(convo):
    check_conversation_set(convo, DATA, {"fact", "speaker", "paraphrase", "time", "thread", "update", "none"})


def test_evaluate_turn_thread_and_reciprocal_rank(convo):
    thread_of = {"a#0": "a", "a#1": "a", "b#0": "b", "c#0": "c"}
    hits = convo.evaluate(["b#0", "c#0", "a#0", "a#1"], ["a#1"], ["a"], thread_of, [1, 3, 4])
    assert hits["turn@1"] is False and hits["turn@3"] is False and hits["turn@4"] is True
    assert hits["thread@5"] is True  # a#0 is from the gold thread though not the gold turn
    assert hits["rr"] == pytest.approx(0.25)
    miss = convo.evaluate(["b#0"], ["a#1"], ["a"], thread_of, [1])
    assert miss["thread@5"] is False and miss["rr"] == 0.0 and miss["empty"] is False
    none = convo.evaluate([], [], [], thread_of, [1])
    assert none["turn@1"] is None and none["rr"] is None and none["empty"] is True


def slice_of(convo, tmp_path: Path) -> Path:
    """Two threads of one dev store and the questions whose evidence is in them, as a data folder."""
    data = convo.load(DATA)
    store = "p1"
    threads = ["ff735623", "5a11be9f"]
    turns = [t for t in data.turns if t.store == store and t.thread in threads]
    questions = [q for q in data.questions if q.store == store and q.gold and set(q.gold_threads) <= set(threads)]
    assert len(questions) >= 3
    out = tmp_path / "slice"
    out.mkdir()
    raw_turns = [json.loads(line) for line in (DATA / "turns.jsonl").read_text(encoding="utf-8").splitlines()]
    raw_questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    keep_t = {t.id for t in turns}
    keep_q = {q.id for q in questions}
    (out / "turns.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw_turns if r["id"] in keep_t), encoding="utf-8")
    (out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw_questions if r["id"] in keep_q), encoding="utf-8")
    return out


def test_loader_stores_each_turn_with_its_time_and_thread(convo, tmp_path):
    data = convo.load(slice_of(convo, tmp_path))
    for thread in (True, False):
        kw = convo.KnotworkStore(data.turns, tmp_path / f"kw-{thread}.db", thread=thread)
        try:
            memories = {m.metadata["convo_turn"]: m for m in kw.mem.store.iter_memories()}
            assert kw.stored == len(memories) == len(data.turns) - kw.merged
            for t in data.turns:
                m = memories.get(t.id)
                if m is None:  # an identical turn earlier in the store took it
                    assert any(t.id in ids for ids in kw.turns_of.values())
                    continue
                assert m.content == f"{t.speaker}: {t.text}" and m.workspace == "convo-p1"
                assert stamp(m.valid_at.isoformat() if hasattr(m.valid_at, "isoformat") else m.valid_at) == stamp(t.at)
                assert ("thread" in m.metadata) is thread
                if thread:
                    assert m.metadata["thread"] == t.thread
        finally:
            kw.close()


def test_scorer_runs_knotwork_and_bm25_on_a_slice(convo, tmp_path, capsys):
    folder = slice_of(convo, tmp_path)
    out = tmp_path / "out.json"
    convo.main(["--data", str(folder), "--half", "dev", "--baselines", "bm25", "--json", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    data = convo.load(folder)
    assert set(report["questions"]) == {"knotwork (default)", "BM25 (bm25s)"}
    for name, per_q in report["questions"].items():
        assert set(per_q) == {q.id for q in data.questions}
        for q in data.questions:
            ranked = per_q[q.id]["ranked"]
            assert 0 < len(ranked) <= 10 and set(ranked) <= {t.id for t in data.turns}
            assert per_q[q.id]["hits"]["turn@10"] == any(g in ranked for g in q.gold)
        recall = report["figures"][name]["summary"]["turn@10"]
        assert recall == pytest.approx(sum(per_q[q.id]["hits"]["turn@10"] for q in data.questions) / len(data.questions))
    # On two threads, a search that works finds most answers in its top 10.
    assert report["figures"]["knotwork (default)"]["summary"]["turn@10"] >= 0.5
    printed = capsys.readouterr().out
    assert "turn R@5" in printed and "By question kind" in printed


def test_a_gold_turn_outside_its_store_is_refused_by_name(convo, tmp_path):
    folder = slice_of(convo, tmp_path)
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["gold"] = ["nosuch#0"]
    (folder / "questions.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="nosuch#0"):
        convo.load(folder)
    with pytest.raises(SystemExit) as exit_info:
        convo.main(["--data", str(folder), "--baselines", "none"])
    assert exit_info.value.code == 2
