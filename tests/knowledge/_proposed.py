"""What the offline extraction proposes for one text, as the knowledge tests compare it: before the fact scorer
and the store floor, so that a reading is checked by itself."""

from __future__ import annotations

import pytest

from knotwork.knowledge.extract import candidates
from knotwork.knowledge.nlp import pipeline

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")


def proposed(text: str) -> set[tuple[str, str, str, bool]]:
    """(subject, predicate, object, stated as over) of every candidate fact of ``text``."""
    ((ex, _doc),) = candidates([text])
    return {(f.subject, f.predicate, f.object, f.past) for f in ex.facts}


def proposed_now(text: str) -> set[tuple[str, str, str]]:
    """(subject, predicate, object) of the candidate facts of ``text`` not stated as over."""
    return {(s, p, o) for s, p, o, past in proposed(text) if not past}
