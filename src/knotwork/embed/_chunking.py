"""What a memory is embedded as: itself, or for a long one, its passages.

An embedding model reads at most ``max_tokens`` tokens and silently drops
the rest; and even within its window, one vector for a long text is an
average in which a single remark ("by the way, my cousin Alex adopted a baby
in January") is drowned by everything around it. So a memory longer than one
*passage* is embedded as its passages: runs of whole sentences of at most
``max_words`` words and ``max_tokens`` tokens that together cover all of it.
Search scores a memory by its best passage. Measured on LongMemEval
(bench/README.md): dense-only session recall@5 0.670 with one vector per
turn, 0.772 with 40-word passages; a whole-text vector beside the passages
added nothing.

Passages are built from *spans*: runs of text that must not be split (a
tokenizer's words, or whitespace-separated words when no tokenizer is at
hand). Each passage is a slice of the original text, so it reads as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: Default longest passage, in words: about two sentences of chat.
DEFAULT_PASSAGE_WORDS = 40


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of text that a cut must not go through.

    ``start``/``end`` are character offsets into the text; ``tokens`` is how
    many model tokens the piece costs; ``gap_before`` is true when whitespace
    (or the start of the text) precedes it: a word starts there.
    """

    start: int
    end: int
    tokens: int
    gap_before: bool


def check_passage(max_tokens: int, max_words: int) -> None:
    """Reject passage settings that could not make progress through a text."""
    if max_tokens < 1:
        raise ValueError(f"passage tokens must be >= 1, got {max_tokens}")
    if max_words < 1:
        raise ValueError(f"passage words must be >= 1, got {max_words}")


_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_FULL_WIDTH_END = re.compile(r"[。！？][」』）]*$")  # CJK text puts no space after a sentence


def passages(text: str, spans: Sequence[Span], max_tokens: int, max_words: int) -> list[str]:
    """``[text]`` when it is one passage long; else its passages, in order.

    Every span lies in exactly one passage, so nothing of a long text goes unseen.
    """
    words = sum(s.gap_before for s in spans)
    if words <= max_words and sum(s.tokens for s in spans) <= max_tokens:
        return [text]
    return [text[spans[i].start : spans[j - 1].end] for i, j in windows(text, spans, max_tokens, max_words)]


def windows(text: str, spans: Sequence[Span], max_tokens: int, max_words: int) -> list[tuple[int, int]]:
    """Half-open ranges ``[i, j)`` of span indexes, one per passage, in order.

    Whole sentences are packed greedily; a sentence too long for one passage
    is cut between words (or between spans, when a word alone is too long).
    """
    out: list[tuple[int, int]] = []
    i, n = 0, len(spans)
    while i < n:
        j, tokens, words, last_end = i, 0, 0, None
        while j < n:
            span = spans[j]
            more_words = words + span.gap_before
            if j > i and (tokens + span.tokens > max_tokens or more_words > max_words):
                break
            tokens, words, j = tokens + span.tokens, more_words, j + 1
            if _ends_sentence(text, spans, j - 1):
                last_end = j
        if j < n and last_end is not None and last_end > i:
            j = last_end  # end on a sentence boundary when the passage holds one
        elif j < n:
            j = _word_start(spans, i, j)
        out.append((i, j))
        i = j
    return out


def _ends_sentence(text: str, spans: Sequence[Span], k: int) -> bool:
    """Whether span ``k`` closes a sentence: final punctuation, a line break, or the end of the text."""
    if k + 1 >= len(spans):
        return True
    piece = text[spans[k].start : spans[k].end]
    if _FULL_WIDTH_END.search(piece):
        return True
    nxt = spans[k + 1]
    if not nxt.gap_before:
        return False
    gap = text[spans[k].end : nxt.start]
    return "\n" in gap or bool(_SENTENCE_END.search(piece))


def _word_start(spans: Sequence[Span], i: int, j: int) -> int:
    """Move a cut back to the start of a word, unless that leaves nothing."""
    k = j
    while k > i + 1 and not spans[k].gap_before:
        k -= 1
    return k if spans[k].gap_before else j


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
