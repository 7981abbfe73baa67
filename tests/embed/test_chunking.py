"""chunks(): long texts become overlapping, readable windows that lose nothing."""

from __future__ import annotations

import re

import pytest

from knotwork.embed._chunking import Span, chunk_text, estimated_spans
from knotwork.embed.onnx_minilm import MiniLMEmbedder

LONG = " ".join(
    f"Entry {i}: the user asked about project Orion's deadline, and we agreed it's week {i % 9}." for i in range(60)
)


def token_count(embedder: MiniLMEmbedder, text: str) -> int:
    return len(embedder._tokenizer_ready().encode(text).ids)  # [CLS] and [SEP] included


def positions(text: str, chunks: list[str]) -> list[tuple[int, int]]:
    """Where each chunk sits in ``text``, searching forward from the previous one."""
    out, start = [], 0
    for chunk in chunks:
        at = text.find(chunk, start)
        assert at >= 0, f"chunk is not a slice of the text: {chunk[:60]!r}"
        out.append((at, at + len(chunk)))
        start = at + 1
    return out


def test_short_text_is_returned_unchanged(minilm: MiniLMEmbedder) -> None:
    for text in ["", "   ", "  a short memory, with spaces kept  ", "word " * 200]:
        assert minilm.chunks(text) == [text]


def test_long_text_is_split_into_windows_that_fit(minilm: MiniLMEmbedder) -> None:
    assert token_count(minilm, LONG) > 3 * minilm.max_tokens
    chunks = minilm.chunks(LONG)
    assert len(chunks) >= 4
    counts = [token_count(minilm, c) for c in chunks]
    assert max(counts) <= minilm.max_tokens
    assert min(counts[:-1]) >= minilm.max_tokens // 2  # windows are used, not wasted


def test_windows_cover_the_whole_text_with_overlap(minilm: MiniLMEmbedder) -> None:
    chunks = minilm.chunks(LONG)
    spans = positions(LONG, chunks)
    assert spans[0][0] == 0 and spans[-1][1] == len(LONG)  # nothing lost at either end
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start < end, "consecutive chunks must overlap"
        shared = token_count(minilm, LONG[start:end]) - 2
        assert 0 < shared <= minilm.chunk_overlap + 2
    assert "week 5." in chunks[-1] or LONG.endswith(chunks[-1])


def test_cuts_fall_between_words(minilm: MiniLMEmbedder) -> None:
    chunks = minilm.chunks(LONG)
    for chunk in chunks:
        assert chunk == chunk.strip()
    for (start, end) in positions(LONG, chunks):
        assert start == 0 or LONG[start - 1] == " "
        assert end == len(LONG) or LONG[end] == " "
    assert not any(re.search(r"(^'s)|(^s )", c) for c in chunks)  # never cut inside "Orion's"


def test_overlap_and_window_are_configurable() -> None:
    embedder = MiniLMEmbedder(chunk_tokens=64, chunk_overlap=0, threads=1)
    chunks = embedder.chunks(LONG)
    assert all(token_count(embedder, c) <= 64 for c in chunks)
    spans = positions(LONG, chunks)
    assert all(nxt[0] >= prev[1] for prev, nxt in zip(spans, spans[1:]))  # no overlap
    assert len(chunks) > len(MiniLMEmbedder().chunks(LONG))
    with pytest.raises(ValueError, match="overlap"):
        MiniLMEmbedder(chunk_tokens=40, chunk_overlap=38)
    with pytest.raises(ValueError, match="chunk_tokens"):
        MiniLMEmbedder(chunk_tokens=300)


def test_text_without_spaces_is_still_chunked(minilm: MiniLMEmbedder) -> None:
    chinese = "".join(f"第{i}条记忆是智能体的重要能力之一。" for i in range(60))  # no whitespace
    chunks = minilm.chunks(chinese)
    assert len(chunks) > 1
    assert all(token_count(minilm, c) <= minilm.max_tokens for c in chunks)
    spans = positions(chinese, chunks)
    assert spans[0][0] == 0 and spans[-1][1] == len(chinese)


def test_the_tail_of_a_long_memory_stays_findable(minilm: MiniLMEmbedder) -> None:
    filler = " ".join(f"Day {i} in the garden: watered the tomatoes and pulled weeds by the fence." for i in range(40))
    text = filler + " The wifi password for the lake house is written in the blue notebook."
    query = minilm.embed_query("where is the wifi password for the lake house?")
    chunks = minilm.chunks(text)
    scores = minilm.embed(chunks) @ query
    assert scores.argmax() == len(chunks) - 1
    whole = float(minilm.embed([text])[0] @ query)  # truncated: the tail is cut off
    assert scores.max() > whole + 0.1


def test_estimated_spans_for_models_without_a_tokenizer() -> None:
    text = "alpha beta,  gamma " + "x" * 150
    spans = list(estimated_spans(text))
    assert [text[s.start : s.end] for s in spans[:3]] == ["alpha", "beta,", "gamma"]
    long_word = spans[3:]
    assert len(long_word) == 3 and long_word[0].gap_before and not long_word[1].gap_before
    assert all(s.tokens >= 1 for s in spans)
    assert next(estimated_spans("日本語")).tokens == 3  # non-ASCII characters cost a token each


def test_chunk_text_makes_progress_on_oversized_spans() -> None:
    text = "aaaa bbbb cccc"
    spans = [Span(0, 4, 10, True), Span(5, 9, 10, True), Span(10, 14, 10, True)]
    assert chunk_text(text, spans, budget=5, overlap=2) == ["aaaa", "bbbb", "cccc"]
