"""The sentence gate: how likely a sentence states a fact at all, read by the fact scorer as a feature."""

from __future__ import annotations

import importlib.util
import json

import pytest

from knotwork.knowledge import gate, scorer
from knotwork.knowledge.extract import candidates
from knotwork.knowledge.nlp import pipeline

from tests._bench import bench_module

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")

STATES = [
    "The checkout service uses Stripe for payments.",
    "Tomás wrote the migration tool in Elixir.",
    "uv is an extremely fast Python package and project manager written in Rust.",
]
STATES_NOTHING = [
    "Use `uv` for all dependency operations; do not invoke `pip` directly.",
    "If you change `ConfigToml`, run `just write-config-schema`.",
    "Should we move the search index to Meilisearch?",
    "To create a virtual environment:",
]


def _parsed(texts: list[str]) -> list[tuple[str, object]]:
    return [(s.text, s) for _, doc in candidates(texts) for s in doc.sents]


@needs_parser
def test_statements_score_above_instructions_conditions_questions_and_headings() -> None:
    assert gate.load() is not None
    said = [gate.probability(t, s) for t, s in _parsed(STATES)]
    nothing = [gate.probability(t, s) for t, s in _parsed(STATES_NOTHING)]
    assert all(p is not None and 0.0 <= p <= 1.0 for p in said + nothing)
    assert min(said) > max(nothing), (said, nothing)


def test_without_a_parse_the_gate_reads_the_text_alone() -> None:
    feats = gate.features("Should we move the search index to Meilisearch?")
    assert "mode:rules" in feats and "cue:question" in feats and "end:question" in feats
    assert not any(f.startswith(("root:", "subj:", "imperative")) for f in feats)
    assert gate.probability("The checkout service uses Stripe for payments.") > gate.probability(
        "Should we move the search index to Meilisearch?")


@needs_parser
def test_the_parse_marks_mood_subject_and_modals() -> None:
    ((text, sent),) = _parsed(["Run the tests before you commit."])
    assert "imperative" in gate.features(text, sent) and "nosubj" in gate.features(text, sent)
    ((text, sent),) = _parsed(["We might move to Postgres."])
    feats = gate.features(text, sent)
    assert "subj:we" in feats and "modal:might" in feats and "imperative" not in feats


@needs_parser
def test_a_candidate_in_a_sentence_that_states_nothing_loses_confidence() -> None:
    text = "The checkout service uses Stripe for payments."
    ((ex, doc),) = candidates([text])
    (f,) = ex.facts
    model = scorer.load()

    def sure(p: float) -> float:
        return model.probability(scorer.features(f, text, doc, 1, lambda sentence, span: p))

    assert any(x.startswith("gate:") for x in scorer.features(f, text, doc, 1))  # the shipped gate is read
    assert sure(0.15) < sure(0.7)
    assert not any(x.startswith("gate:") for x in scorer.features(f, text, doc, 1, lambda sentence, span: None))


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn (the bench extra) is not installed")
@needs_parser
def test_the_training_script_rebuilds_the_shipped_gate_byte_for_byte() -> None:
    train = bench_module("train_sentence_gate.py", "train_sentence_gate")
    _, feats, labels, groups, read = train.rows()
    shipped = gate.WEIGHTS.read_text(encoding="utf-8")
    if sorted(read) != sorted(json.loads(shipped)["trained_on"]):
        pytest.skip("the labelled dev halves changed since the gate was fitted: run bench/train_sentence_gate.py")
    data, _ = train.fit(feats, labels, groups)
    assert train.render(data, read) == shipped
