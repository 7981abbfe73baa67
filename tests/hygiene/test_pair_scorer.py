"""The supersession pair scorer: its shipped weights, order-free features, a malformed file refused, and its
gate over the rules' proposals (a proposal it finds more likely wrong than right retires nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knotwork.hygiene import consolidate as c
from knotwork.hygiene import pair_scorer as ps

# A rule proposal the shipped model drops (a pair in the dev half of bench/data/supersession_memory_pairs.jsonl,
# labelled ADD: two dependencies, each with its floor, both hold), at its MiniLM cosine.
BOTH_HOLD = ("The MCP Python SDK needs typing-inspection 0.4.1 or newer.",
             "The MCP Python SDK needs python-multipart 0.0.9 or newer.", 0.8)


def test_the_shipped_scorer_loads_and_gates_the_rules_only() -> None:
    model = ps.load()
    assert model is not None and model.weights and model.slope > 0
    assert model.threshold("frame") == 0.5
    assert model.threshold(None) == float("inf")  # the looser one-span reading proposes nothing on its own


@pytest.mark.parametrize(("old", "new"), [
    ("Harbor's primary database is MySQL 5.7.", "Harbor's primary database is PostgreSQL 16."),
    ("The public API rate limit is 100 requests per minute per key.",
     "The public API rate limit is 300 requests per minute per key."),
    ("Default is a 3 minute delay.", "Default is a three minute delay."),
])
def test_features_read_a_pair_the_same_in_either_order(old: str, new: str) -> None:
    """An older value may arrive after the newer one: the pair must score alike whichever text is "new"."""
    forward, backward = ps.swap(old, new), ps.swap(new, old)
    assert forward is not None and backward is not None
    assert sorted(ps.features(old, new, 0.9, forward, "frame")) == sorted(ps.features(new, old, 0.9, backward, "frame"))


def test_a_number_rewritten_as_a_word_is_a_reformat() -> None:
    found = ps.swap("Default is a 3 minute delay.", "Default is a three minute delay.")
    assert found is not None and {"reformat", "numbers:same"} <= set(ps.features("a", "b", 0.99, found, "frame"))


@pytest.mark.parametrize(("old", "new"), [
    ("We merged PR 123 into the billing service today", "We merged PR 124 into the billing service today"),
    ("Celery 5.4 supports Django 2.2 LTS or newer.", "Celery 5.5 supports Django 2.2 LTS or newer."),
    ("Run it twice.", "Run it twice."),
    ("The service is up.", "The service is not up."),
])
def test_no_candidate_where_a_number_says_which_one_or_nothing_changed(old: str, new: str) -> None:
    assert ps.swap(old, new) is None


def test_the_scorer_drops_a_rule_proposal_it_finds_unlikely(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new, cosine = BOTH_HOLD
    assert c.proposed(old, new, cosine)[0] is not None  # the rules alone would retire the older text
    assert c.supersedes(old, new, cosine) is None
    assert c.decide(new, [("m1", old, cosine)]).kind == "ADD"
    # Without the weights file the rules decide alone.
    monkeypatch.setattr(ps, "WEIGHTS", tmp_path / "absent.json")
    ps.load.cache_clear()
    try:
        assert c.decide(new, [("m1", old, cosine)]).kind == "SUPERSEDE"
    finally:
        monkeypatch.undo()
        ps.load.cache_clear()
    assert ps.load() is not None


@pytest.mark.parametrize("change", [{"calibration": {"platt": [-1.0, 0.0]}}, {"threshold": {"rule": 1.5}}])
def test_a_malformed_weights_file_is_refused(tmp_path: Path, change: dict) -> None:
    data = json.loads(ps.WEIGHTS.read_text(encoding="utf-8")) | change
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="supersession_scorer.json"):
        ps.Scorer(json.loads(bad.read_text(encoding="utf-8")))


def test_the_check_reads_a_change_marked_with_now_as_the_rule_does() -> None:
    # "now" and "an" / "a" aside, one span differs: the check scores the rule's proposal instead of missing it
    found = ps.swap("Dana Reyes is an active member of the Docs team.",
                    "Dana Reyes is now an emeritus member of the Docs team.")
    assert found is not None and (found.gone, found.came) == (["active"], ["emeritus"])
    assert c.proposed("Dana Reyes is an active member of the Docs team.",
                      "Dana Reyes is now an emeritus member of the Docs team.", 0.9)[0] is not None
    # two spans still differ: no candidate
    assert ps.swap("Dana Reyes is an active member of the Docs team.",
                   "Omar Haddad is now an emeritus member of the Docs team.") is None



def test_a_standing_given_is_the_frame_rules_to_decide() -> None:
    # "is a chair of" -> "is now an emeritus lead of": the shipped check scores it under 0.5 (a word swapped for
    # a word, as "chair" -> "tech lead" is), so the standing reading decides alone, as a role's new holder does
    old, new = "Dana Reyes is a chair of the Docs team.", "Dana Reyes is now an emeritus lead of the Docs team."
    found = ps.swap(old, new)
    assert found is not None
    model = ps.load()
    assert model.probability(ps.features(old, new, 0.92, found, "frame")) < model.threshold("frame")
    assert c.supersedes(old, new, 0.92) == "chair -> emeritus lead"
    # a role beside a role, no standing: the check still decides, and retires nothing
    assert c.supersedes("Dana Reyes is a chair of the Docs team.", "Dana Reyes is a tech lead of the Docs team.",
                        0.92) is None
