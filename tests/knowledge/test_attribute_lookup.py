"""The attribute ruler's one-token rules by lookup (knowledge/attribute_lookup.py) set exactly what spaCy's matcher sets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from knotwork.knowledge import nlp as nlp_module

pytest.importorskip(nlp_module.MODEL_PACKAGE)

from knotwork.knowledge.attribute_lookup import speed_up  # noqa: E402

BENCH = Path(__file__).resolve().parents[2] / "bench"

#: Shapes that the ruler's other rules read: contractions, two-token words, dependency-keyed pronouns, spaces.
HOSTILE = [
    "I ain't gonna do it, y'all know that; let's go.  Gotta run!",
    "C'mon, you got it: it gets better, and I gave it to you.",
    "There is a bug and there were two more.\n\n\tWe did it because we had to, but it's done.",
    "Does she have the keys? Do that. Had he done so, what would that be?",
    "   \n   ",
    "",
]


def corpus() -> list[str]:
    sys.path.insert(0, str(BENCH))
    import codemem

    texts = [m["content"] for m in codemem.load().memories][::4]
    for path in sorted((BENCH / "data" / "convo").rglob("*.jsonl"))[:2]:
        for line in path.read_text().splitlines()[:150]:
            row = json.loads(line)
            texts.extend(str(v) for k, v in row.items() if k in ("text", "content") and isinstance(v, str))
    labels = (BENCH / "data" / "extraction_labels.txt").read_text().splitlines()
    return HOSTILE + texts + [ln for ln in labels if ln and not ln.startswith("#")]


def signature(doc) -> list[tuple]:  # noqa: ANN001
    return [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i) for t in doc]


def test_the_lookup_sets_the_attributes_the_matcher_sets() -> None:
    import importlib

    package = importlib.import_module(nlp_module.MODEL_PACKAGE)
    stock = package.load(exclude=list(nlp_module.EXCLUDE))
    fast = package.load(exclude=list(nlp_module.EXCLUDE))
    assert speed_up(fast)
    texts = corpus()
    assert len(texts) > 500
    differ = [t for t, a, b in zip(texts, stock.pipe(texts), fast.pipe(texts)) if signature(a) != signature(b)]
    assert differ == []
    # the same matches, rule by rule, on the tokens as the tagger and parser leave them
    ruler_stock, ruler_fast = stock.get_pipe("attribute_ruler"), fast.get_pipe("attribute_ruler")
    for text in HOSTILE + texts[:200]:
        doc = stock.make_doc(text)
        for _, proc in stock.pipeline[:3]:  # tok2vec, tagger, parser
            doc = proc(doc)
        assert ruler_fast.match(doc) == ruler_stock.match(doc), text


def test_the_extraction_pipeline_uses_the_lookup() -> None:
    nlp = nlp_module.pipeline()
    if nlp is None:
        pytest.skip("the English pipeline is not usable here")
    ruler = nlp.get_pipe("attribute_ruler")
    assert "match" in vars(ruler), "the pipeline runs the attribute ruler's own matcher over every rule"
