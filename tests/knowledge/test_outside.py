"""Confidence on text unlike the fact scorer's training memories (``knowledge/outside.py``): lowered there,
toward the reading default and never under it, never raised anywhere, and memory-style text left exactly as
the scorer says."""

from __future__ import annotations

import json

import pytest

from knotwork.knowledge import outside, scorer
from knotwork.knowledge.extract import candidates, extract_many
from knotwork.knowledge.nlp import pipeline

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")

MEMORIES = [
    "The checkout service uses Stripe for payments.",
    "I live in Lisbon with my girlfriend Saga.",
    "Tomás wrote the migration tool in Elixir.",
]
#: a README line with inline code and a command, and one with code and a link
OUTSIDE = [
    "- `ruff` is a Python linter written in Rust; we run it in CI via `uvx ruff check .`",
    "`httpx` is written in Python and uses `httpcore` for transport, see https://www.python-httpx.org",
]


def _read(text: str) -> list[tuple[tuple[str, str, str], float, float, float]]:
    """Each candidate of ``text``: (triple, the scorer's probability alone, the outside probability, the
    confidence extraction gives it)."""
    model, cap = scorer.load(), outside.load()
    ((ex, doc),) = candidates([text])
    given = {(f.subject, f.predicate, f.object): f.confidence for f in extract_many([text])[0].facts}
    out = []
    for f in ex.facts:
        sentence, sent = scorer.sentence_of(doc, text, f)
        alone = model.probability(scorer.features(f, text, doc, len(ex.facts)))
        r = cap.probability(outside.features(text, sentence, sent, doc))
        out.append(((f.subject, f.predicate, f.object), alone, r, given[(f.subject, f.predicate, f.object)]))
    return out


@needs_parser
@pytest.mark.parametrize("text", MEMORIES)
def test_a_memory_style_fact_keeps_the_scorers_probability(text: str) -> None:
    read = _read(text)
    assert read
    for triple, alone, r, given in read:
        assert r < outside.load().low, (triple, r)
        assert given == round(alone, 3), triple


@needs_parser
@pytest.mark.parametrize("text", OUTSIDE)
def test_a_fact_read_from_outside_text_is_less_sure(text: str) -> None:
    cap = outside.load()
    read = _read(text)
    lowered = [(triple, alone, given) for triple, alone, r, given in read if alone > cap.keep + 0.05]
    assert lowered  # a candidate the scorer alone is sure of
    for triple, alone, r, given in read:
        assert r > cap.low, (triple, r)
        if alone > cap.keep:
            assert cap.keep <= given <= round(alone, 3), triple  # toward the default, never under it
        else:
            assert given == round(alone, 3), triple  # what the default already hides is left alone
    for triple, alone, given in lowered:
        assert given < round(alone, 3) - 0.05, (triple, alone, given)


def test_lowering_never_raises_and_grows_with_how_unlike_the_text_is() -> None:
    cap = outside.load()
    assert cap is not None and 0 < cap.low < cap.high <= 1 and cap.map_slope > 0
    ps = [i / 100 for i in range(1, 100)]
    rs = [i / 50 for i in range(51)]
    for p in ps:
        row = [cap.lower(p, r) for r in rs]
        assert all(x <= p for x in row)
        assert all(x == p for x, r in zip(row, rs) if r <= cap.low)  # memory-style: exactly the scorer's
        assert all(x >= cap.keep for x in row) if p > cap.keep else row == [p] * len(rs)
        assert all(a >= b - 1e-12 for a, b in zip(row, row[1:]))  # less sure as the text gets less familiar
    for r in rs:
        col = [cap.lower(p, r) for p in ps]
        assert all(a <= b + 1e-12 for a, b in zip(col, col[1:]))  # the scorer's order is kept


def test_the_register_is_read_from_the_text() -> None:
    feats = outside.features("- `ruff` check, see https://x.dev", "- `ruff` check, see https://x.dev")
    assert {"mode:rules", "reg:code", "reg:url", "reg:markdown", "reg:unpunct"} <= set(feats)
    assert "reg:chat" in outside.features("yeah lol", "yeah lol") and "reg:lower" in outside.features("yeah", "yeah")
    assert not {"reg:code", "reg:chat", "reg:unpunct"} & set(outside.features("We use Go.", "We use Go."))


def test_a_malformed_file_is_refused(tmp_path) -> None:
    data = json.loads(outside.WEIGHTS.read_text(encoding="utf-8"))
    bad = tmp_path / "o.json"
    bad.write_text(json.dumps(dict(data, ramp=[0.9, 0.5])))
    with pytest.raises(ValueError, match="ramp"):
        outside.load.__wrapped__(str(bad))
    bad.write_text(json.dumps(dict(data, keep=1.5)))
    with pytest.raises(ValueError, match="keep"):
        outside.load.__wrapped__(str(bad))
