"""The predicate vocabulary: every predicate documented, every phrase naming a known predicate."""

from __future__ import annotations

import re
from pathlib import Path

from knotwork.config import Settings
from knotwork.knowledge import vocabulary as V

DOC = Path(__file__).resolve().parents[2] / "docs" / "predicates.md"


def documented() -> set[str]:
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    return {re.match(r"\| `([^`]+)`", row).group(1) for row in rows}


def test_every_predicate_is_documented_and_every_documented_one_exists() -> None:
    assert documented() == set(V.PREDICATES)


def test_phrases_name_known_predicates() -> None:
    named = {p for p, _ in V.PHRASES.values()} | {p for pair in V.BY_SUBJECT.values() for p in pair if p}
    assert named <= set(V.PREDICATES)
    assert all(key in V.PHRASES for key in V.BY_SUBJECT)


def test_single_valued_flags_agree_with_the_setting() -> None:
    setting = set(Settings().kg_single_valued)
    for predicate, single in V.PREDICATES.items():
        if predicate == "<relative>_of":
            continue
        assert (re.sub(r"<[a-z]+>", "*", predicate) in setting) == single, predicate  # favorite_<thing>: favorite_*
