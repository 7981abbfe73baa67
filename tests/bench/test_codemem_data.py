"""bench/codemem/: the committed data set holds together, and the runner scores ranked lists as documented."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime

import pytest

from knotwork.domain.models import LINK_TYPES
from tests._bench import BENCH, bench_module

DATA = BENCH / "codemem"
TYPES = {"decision", "rationale", "current", "artifact", "multi_hop", "time", "identifier"}
LICENCES = {"MIT", "Apache-2.0", "BSD-3-Clause", "MIT OR Apache-2.0"}


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def data() -> tuple[dict[str, dict], list[dict], list[dict]]:
    memories = rows("memories.jsonl")
    by_id = {m["id"]: m for m in memories}
    assert len(by_id) == len(memories), "memory ids are not unique"
    return by_id, rows("links.jsonl"), rows("questions.jsonl")


def parse(stamp: str) -> datetime:
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert when.tzinfo is not None, f"{stamp}: no time zone"
    return when


def test_sizes_and_workspaces(data):
    memories, _, questions = data
    assert len(memories) >= 1500
    assert len(questions) >= 250
    per_ws = Counter(m["workspace"] for m in memories.values())
    assert 8 <= len(per_ws) <= 20
    assert {q["workspace"] for q in questions} <= set(per_ws)


def test_memories_are_complete(data):
    memories, _, _ = data
    seen: set[tuple[str, str]] = set()
    for m in memories.values():
        assert m["content"].strip() and len(m["content"].split()) <= 230, m["id"]
        assert (m["workspace"], m["content"]) not in seen, f"{m['id']}: same content twice in one workspace"
        seen.add((m["workspace"], m["content"]))
        assert parse(m["valid_at"]).year >= 2000, m["id"]
        assert m["category"] and m["tags"]["project"] == m["workspace"], m["id"]
        assert all(isinstance(a, str) and a for a in m["artifacts"] + m["evidence"]), m["id"]
        src = m["source"]
        assert src["licence"] in LICENCES, m["id"]
        assert src["path"] and (src.get("repo") and src.get("commit") or src.get("package") and src.get("version")), m["id"]


def test_links_point_inside_one_workspace(data):
    memories, links, _ = data
    assert links
    for link in links:
        assert link["type"] in LINK_TYPES, link
        src, dst = memories[link["source"]], memories[link["target"]]
        assert src["workspace"] == dst["workspace"], link
        assert link["source"] != link["target"], link


def test_questions_are_answerable_in_their_workspace(data):
    memories, links, questions = data
    assert len({q["id"] for q in questions}) == len(questions), "question ids are not unique"
    supersedes = defaultdict(set)
    for link in links:
        if link["type"] == "supersedes":
            supersedes[link["source"]].add(link["target"])

    def retired_by(mid: str) -> set[str]:
        out, todo = set(), [mid]
        while todo:
            for t in supersedes[todo.pop()] - out:
                out.add(t)
                todo.append(t)
        return out

    for q in questions:
        assert q["type"] in TYPES and q["half"] in {"dev", "test"}, q["id"]
        assert q["question"].strip() and q["gold"], q["id"]
        for mid in q["gold"] + q["stale"]:
            assert memories[mid]["workspace"] == q["workspace"], (q["id"], mid)
        assert not set(q["gold"]) & set(q["stale"]), q["id"]
        if q["asked_at"] is not None:
            parse(q["asked_at"])
        if q["type"] == "current":
            # every stale memory is retired, directly or down a chain, by a gold one
            assert q["stale"] and set(q["stale"]) <= set().union(*(retired_by(g) for g in q["gold"])), q["id"]
        else:
            assert not q["stale"], q["id"]
        if q["type"] == "multi_hop":
            assert len(q["gold"]) >= 2, q["id"]
        if q["type"] == "time":
            month = parse(q["asked_at"]) if q["asked_at"] else None
            assert month is not None, q["id"]
            assert all(parse(memories[g]["valid_at"]) <= month for g in q["gold"]), q["id"]


def test_every_type_is_in_both_halves(data):
    _, _, questions = data
    halves = {(q["type"], q["half"]) for q in questions}
    assert {(t, h) for t in TYPES for h in ("dev", "test")} <= halves
    counts = Counter(q["half"] for q in questions)
    assert abs(counts["dev"] - counts["test"]) <= len(TYPES)


@pytest.fixture(scope="module")
def runner():
    return bench_module("codemem.py", "codemem_runner")


def test_evaluate_counts_any_gold_all_gold_and_stale_first(runner):
    hits = runner.evaluate(["old", "a", "x", "b"], ["a", "b"], ["old"], [1, 2, 4])
    assert hits["hit@1"] is False and hits["hit@2"] is True
    assert hits["all@2"] is False and hits["all@4"] is True
    assert hits["stale_first"] is True
    assert runner.evaluate(["a", "old"], ["a"], ["old"], [1])["stale_first"] is False
    assert runner.evaluate([], ["a"], [], [1]) == {"hit@1": False, "all@1": False, "stale_first": None}


def test_score_file_contract_accepts_json_object_and_jsonl(runner, tmp_path):
    q = runner.load(DATA).questions[0]
    as_object = tmp_path / "ranked.json"
    as_object.write_text(json.dumps({q.id: list(q.gold)}), encoding="utf-8")
    as_lines = tmp_path / "ranked.jsonl"
    as_lines.write_text(json.dumps({"id": q.id, "ranked": list(q.gold)}) + "\n", encoding="utf-8")
    for path in (as_object, as_lines):
        retrieve, answered = runner.scored_file(path)
        assert answered == {q.id} and retrieve(q) == list(q.gold)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "ranked": []}\n{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="line 2"):
        runner.scored_file(bad)
    bad.write_text('{"a": "m1"}', encoding="utf-8")
    with pytest.raises(SystemExit, match="not a list"):
        runner.scored_file(bad)
