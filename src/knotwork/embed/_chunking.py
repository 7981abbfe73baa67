"""Splitting long texts into overlapping windows that a model can see whole.

An embedding model reads at most ``max_tokens`` tokens and silently drops
the rest, so a long memory embedded in one piece would be unfindable by
anything said in its tail. Instead it is cut into windows of at most
``window`` tokens, each repeating about ``overlap`` tokens of the previous
one so that a sentence cut at a boundary is still seen whole once.

Windows are built from *spans*: runs of text that must not be split (a
tokenizer's words, or whitespace-separated words when no tokenizer is at
hand). Cuts are made only between spans and, where possible, where
whitespace separates them, so each chunk is a readable slice of the
original text, not a detokenised approximation of it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

#: Default number of tokens repeated between consecutive windows.
DEFAULT_OVERLAP = 32


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of text that a cut must not go through.

    ``start``/``end`` are character offsets into the text; ``tokens`` is how
    many model tokens the piece costs; ``gap_before`` is true when whitespace
    (or the start of the text) precedes it, which makes it a clean place to
    start a chunk.
    """

    start: int
    end: int
    tokens: int
    gap_before: bool


def check_window(window: int, overlap: int, reserved: int = 0) -> None:
    """Reject window settings that could not make progress through a text."""
    if overlap < 0:
        raise ValueError(f"chunk overlap must be >= 0, got {overlap}")
    if window - reserved <= overlap:
        raise ValueError(
            f"chunk window ({window} tokens, {reserved} reserved for special tokens) "
            f"must be larger than the overlap ({overlap} tokens)"
        )


def chunk_text(text: str, spans: Sequence[Span], budget: int, overlap: int) -> list[str]:
    """Slices of ``text`` of at most ``budget`` tokens each, covering every span.

    ``[text]`` (unchanged, whitespace and all) when the spans fit the budget.
    A single span larger than the budget becomes a chunk of its own (the
    model truncates it; there is nowhere clean to cut it).
    """
    if sum(s.tokens for s in spans) <= budget:
        return [text]
    return [text[spans[i].start : spans[j - 1].end] for i, j in windows(spans, budget, overlap)]


def windows(spans: Sequence[Span], budget: int, overlap: int) -> list[tuple[int, int]]:
    """Half-open ranges ``[i, j)`` of span indexes, one per chunk, in order."""
    n = len(spans)
    prefix = [0, *accumulate(s.tokens for s in spans)]
    out: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j = i
        while j < n and prefix[j + 1] - prefix[i] <= budget:
            j += 1
        if j == i:
            j = i + 1
        elif j < n:
            j = _clean_end(spans, prefix, i, j, budget)
        out.append((i, j))
        if j >= n:
            break
        i = _next_start(spans, prefix, i, j, overlap)
    return out


def _clean_end(spans: Sequence[Span], prefix: list[int], i: int, j: int, budget: int) -> int:
    """Move the end back to a whitespace boundary unless that halves the chunk."""
    k = j
    while k > i + 1 and not spans[k].gap_before:
        k -= 1
    if spans[k].gap_before and prefix[k] - prefix[i] >= budget // 2:
        return k
    return j


def _next_start(spans: Sequence[Span], prefix: list[int], i: int, j: int, overlap: int) -> int:
    """Where the next chunk starts: about ``overlap`` tokens before ``j``,
    nudged forward to a whitespace boundary when there is one before ``j``.

    Always greater than ``i``, so the walk through the text terminates.
    """
    k = j
    while k - 1 > i and prefix[j] - prefix[k - 1] <= overlap:
        k -= 1
    for s in range(k, j + 1):
        if s < len(spans) and spans[s].gap_before:
            return s
    return k


_WORD = re.compile(r"\S+")
#: Longest run of characters treated as one span by :func:`estimated_spans`;
#: longer runs (URLs, base64, text without spaces) are cut into pieces this long.
_MAX_SPAN_CHARS = 64


def estimate_tokens(piece: str) -> int:
    """A deliberately high token estimate for models whose tokenizer is not
    at hand: a token per 4 ASCII characters (the usual English rate for BPE
    vocabularies) and one per other character (CJK and most symbols cost at
    least that), at least 1."""
    ascii_chars = len(piece.encode("ascii", "ignore"))
    return max(1, math.ceil(ascii_chars / 4) + (len(piece) - ascii_chars))


def estimated_spans(text: str) -> Iterator[Span]:
    """Whitespace-separated words of ``text`` with estimated token counts."""
    for match in _WORD.finditer(text):
        start, end = match.span()
        for a in range(start, end, _MAX_SPAN_CHARS):
            b = min(a + _MAX_SPAN_CHARS, end)
            yield Span(a, b, estimate_tokens(text[a:b]), gap_before=a == start)
