"""chunks(): a long text is embedded as readable passages of whole sentences that lose nothing."""

from __future__ import annotations

import re

import numpy as np
import pytest

from knotwork.embed._chunking import Span, estimated_spans, passages
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
    for text in ["", "   ", "  a short memory, with spaces kept  ", "word " * 40]:
        assert minilm.chunks(text) == [text]


def test_long_text_becomes_passages_that_fit(minilm: MiniLMEmbedder) -> None:
    passages = minilm.chunks(LONG)
    assert len(passages) >= len(LONG.split()) // minilm.passage_words
    assert all(len(p.split()) <= minilm.passage_words for p in passages)
    assert all(token_count(minilm, p) <= minilm.chunk_tokens for p in passages)
    assert min(len(p.split()) for p in passages[:-1]) >= minilm.passage_words // 2  # packed, not one sentence each


def test_passages_cover_the_whole_text_in_order(minilm: MiniLMEmbedder) -> None:
    passages = minilm.chunks(LONG)
    spans = positions(LONG, passages)
    assert spans[0][0] == 0 and spans[-1][1] == len(LONG)  # nothing lost at either end
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert LONG[end:start].strip() == ""  # no gap, no overlap
    assert " ".join(passages).split() == LONG.split()


def test_passages_end_on_sentence_boundaries(minilm: MiniLMEmbedder) -> None:
    for passage in minilm.chunks(LONG):
        assert passage.startswith("Entry ") and passage.endswith(".")
        assert passage == passage.strip()


def test_a_sentence_longer_than_a_passage_is_cut_between_words() -> None:
    embedder = MiniLMEmbedder(passage_words=5, threads=1)
    text = "one two three four five six seven eight nine ten eleven twelve, and Orion's thirteen"
    passages = embedder.chunks(text)
    assert [len(p.split()) for p in passages] == [5, 5, 5]
    assert " ".join(passages) == text


def test_passage_size_is_configurable() -> None:
    embedder = MiniLMEmbedder(chunk_tokens=32, passage_words=1000, threads=1)
    passages = embedder.chunks(LONG)
    assert all(token_count(embedder, p) <= 32 for p in passages)
    assert len(passages) > len(MiniLMEmbedder().chunks(LONG))
    with pytest.raises(ValueError, match="passage words"):
        MiniLMEmbedder(passage_words=0)
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


def test_passages_make_progress_on_oversized_spans() -> None:
    text = "aaaa bbbb cccc"
    spans = [Span(0, 4, 10, True), Span(5, 9, 10, True), Span(10, 14, 10, True)]
    assert passages(text, spans, max_tokens=5, max_words=40) == ["aaaa", "bbbb", "cccc"]


TRICKY = [
    "Don't split \"quoted\" words — or état, naïve, CAFÉ.\tTabs\u00a0and\u200bzero-width; emoji 🎉🎉 here. " * 6,
    "日本語の文章です。句読点で区切ります！次の文。" * 20,
    "See https://example.com/a/very/long/path?with=query&and=more#fragment and C:\\Users\\x\\file.py. " * 8,
    "x" * 300 + " then words after a very long run of one character. " * 5,
    "Line one\nLine two\r\nLine three\u2028and a control \x07 char. " * 10,
    "short text",
    "   ",
]


@pytest.mark.parametrize("text", TRICKY)
def test_passages_carry_the_token_ids_their_own_tokenizer_run_gives(minilm: MiniLMEmbedder, text: str) -> None:
    """chunks() keeps each passage's slice of the text's token ids for the embed() that follows; they must be the
    ids a tokenizer run over the passage alone gives, so that the vectors do not depend on which path made them."""
    tokenizer = minilm._tokenizer_ready()
    passages = minilm.chunks(text)
    kept = {p: minilm._known.get(p) for p in passages}
    for passage in passages:
        if kept[passage] is not None:  # a text of no words is tokenized when embedded
            assert kept[passage] == tokenizer.encode(passage).ids, passage[:60]
    via_chunks = minilm.embed(passages)
    assert not any(p in minilm._known for p in passages)  # taken by the embed
    again = minilm.embed(passages)  # tokenized afresh
    np.testing.assert_array_equal(via_chunks, again)
