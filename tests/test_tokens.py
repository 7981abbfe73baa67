"""Exact o200k counts: the line-by-line count equals the count of the joined text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from knotwork import tokens

PIECES = ["- ", "## ", "word", "Word", "WORD", "'s", "'LL", " ", "  ", "\t", ")", "…", ".", "/", "-->", "1234567", "//", "\\", "<", "*", "#",
          "é", "日本語", "🙂", "\u00a0", "\u2028", "\x85", "\r", "x\r", ":", "(3d ago, 1a2b3c4d)", "[directive]"]
line_st = st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=12).map("".join)


@settings(max_examples=1500, deadline=None)
@given(st.lists(line_st, max_size=8))
def test_count_lines_is_the_count_of_the_joined_text(lines: list[str]) -> None:
    assert tokens.count_lines(lines) == tokens.count("\n".join(lines))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["- ", "## "]), line_st).map("".join), min_size=1, max_size=8))
def test_count_lines_of_recall_shaped_lines(lines: list[str]) -> None:
    assert tokens.count_lines(lines) == tokens.count("\n".join(lines))


def test_count_lines_examples() -> None:
    assert tokens.count_lines([]) == 0 == tokens.count("")
    for lines in (["## now", "- a (1a2b)"], ["a)", "- b"], ["a  ", "- b"], ["a", "", "- b"], ["a", " b"], ["a\r", "\rb"],
                  ["<", "/- "], ["a)", "//b"], ["x:", "/"]):
        assert tokens.count_lines(lines) == tokens.count("\n".join(lines)), lines
