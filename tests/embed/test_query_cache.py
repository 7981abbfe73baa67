"""embed_query: cached, read-only, and equal to embed()."""

from __future__ import annotations

import numpy as np
import pytest

from knotwork.embed._cache import QueryCache
from knotwork.embed.onnx_minilm import MiniLMEmbedder


def test_query_vector_equals_the_document_vector(minilm: MiniLMEmbedder) -> None:
    query = minilm.embed_query("where did I park the car?")
    assert query.shape == (384,)
    np.testing.assert_allclose(query, minilm.embed(["where did I park the car?"])[0], atol=1e-6)


def test_repeated_queries_hit_the_cache(minilm: MiniLMEmbedder) -> None:
    cache = minilm.query_cache
    hits, misses = cache.hits, cache.misses
    first = minilm.embed_query("what is the user's favourite colour? (cache test)")
    second = minilm.embed_query("what is the user's favourite colour? (cache test)")
    assert (cache.hits - hits, cache.misses - misses) == (1, 1)
    np.testing.assert_array_equal(first, second)


def test_callers_cannot_corrupt_the_cache(minilm: MiniLMEmbedder) -> None:
    vector = minilm.embed_query("a query someone will try to modify")
    original = vector.copy()
    with pytest.raises(ValueError):
        vector[0] = 42.0
    with pytest.raises(ValueError):
        vector.setflags(write=True)
    with pytest.raises(ValueError):
        vector *= 2
    np.testing.assert_array_equal(minilm.embed_query("a query someone will try to modify"), original)
    editable = np.array(vector)  # the documented way to get a private copy
    editable[0] = 1.0
    np.testing.assert_array_equal(minilm.embed_query("a query someone will try to modify"), original)


def test_least_recently_used_entries_are_evicted() -> None:
    cache = QueryCache(size=2)
    computed: list[str] = []

    def compute(text: str) -> np.ndarray:
        computed.append(text)
        return np.full(3, float(len(computed)), dtype=np.float32)

    for text in ["a", "b", "a", "c"]:  # "b" is the least recently used when "c" arrives
        cache.get_or_compute(text, compute)
    assert computed == ["a", "b", "c"] and len(cache) == 2
    cache.get_or_compute("a", compute)
    assert computed == ["a", "b", "c"]
    cache.get_or_compute("b", compute)
    assert computed == ["a", "b", "c", "b"]
    assert (cache.hits, cache.misses) == (2, 4)


def test_a_zero_size_cache_stores_nothing() -> None:
    cache = QueryCache(size=0)
    calls: list[str] = []
    first = cache.get_or_compute("same", lambda t: calls.append(t) or np.ones(3, dtype=np.float32))
    cache.get_or_compute("same", lambda t: calls.append(t) or np.ones(3, dtype=np.float32))
    assert calls == ["same", "same"] and len(cache) == 0
    assert not first.flags.writeable
    assert MiniLMEmbedder(query_cache_size=0).query_cache.size == 0
    with pytest.raises(ValueError):
        MiniLMEmbedder(query_cache_size=-1)


def test_queries_must_be_strings(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        minilm.embed_query(["a list"])  # type: ignore[arg-type]
