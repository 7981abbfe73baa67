"""The bundled MiniLM embedder: correct vectors, in order, loaded once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from knotwork.embed import Embedder, EmbeddingError
from knotwork.embed.onnx_minilm import DIM, MODEL_ID, MiniLMEmbedder

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_fp32_reference.json").read_text())


def test_satisfies_the_protocol_without_loading() -> None:
    embedder = MiniLMEmbedder()
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dim, embedder.max_tokens) == (MODEL_ID, 384, 256)
    assert not embedder.loaded


def test_vectors_are_unit_float32_rows(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["hello world", "a memory about coffee", "x"])
    assert vectors.shape == (3, DIM)
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input_gives_zero_rows(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed([])
    assert vectors.shape == (0, DIM)
    assert vectors.dtype == np.float32


def test_a_bare_string_is_refused(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="sequence of str"):
        minilm.embed("hello")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="item 1"):
        minilm.embed(["ok", 3])  # type: ignore[list-item]


def test_matches_the_fp32_reference_model(minilm: MiniLMEmbedder) -> None:
    """Within cosine 0.999 of sentence-transformers' fp32 vectors, truncation included."""
    vectors = minilm.embed(REFERENCE["sentences"])
    reference = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    cosines = (vectors * reference).sum(axis=1) / np.linalg.norm(reference, axis=1)
    assert cosines.min() > 0.999, cosines


def test_reproduces_the_published_similarity_matrix(minilm: MiniLMEmbedder) -> None:
    """The matrix sentence-transformers documents for this model (fp32: 0.6660, 0.1046, 0.1411)."""
    vectors = minilm.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    published = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    np.testing.assert_allclose(vectors @ vectors.T, published, atol=0.01)


def test_similar_sentences_score_higher(minilm: MiniLMEmbedder) -> None:
    cat, rug, stocks, dog = minilm.embed(
        ["The cat sits on the mat", "A cat is sitting on a rug", "Stock markets fell sharply", "A dog plays in the park"]
    )
    assert cat @ rug > cat @ dog > cat @ stocks
    assert cat @ rug > 0.6 and cat @ stocks < 0.2


def test_deterministic_and_independent_of_batching(minilm: MiniLMEmbedder) -> None:
    """Sorting by length and padding must not change any vector or the order."""
    texts = [f"note {i}: " + "the meeting moved to Thursday " * (i % 7) for i in range(24)]
    together = minilm.embed(texts)
    alone = np.stack([minilm.embed([t])[0] for t in texts[:8]])
    np.testing.assert_allclose(together[:8], alone, atol=1e-5)
    np.testing.assert_array_equal(minilm.embed(texts), together)
    reversed_rows = minilm.embed(texts[::-1])[::-1]
    np.testing.assert_allclose(reversed_rows, together, atol=1e-5)


def test_small_batches_give_the_same_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about the garden", "mid length text here"] * 3
    tiny = MiniLMEmbedder(batch_size=2, max_batch_tokens=8, threads=1)
    np.testing.assert_allclose(tiny.embed(texts), minilm.embed(texts), atol=1e-5)


def test_long_texts_are_truncated_to_the_window(minilm: MiniLMEmbedder) -> None:
    head = "The deployment checklist starts with backups. " * 40
    tail_a, tail_b = " Then we celebrate with cake." * 20, " Then the database is dropped." * 20
    assert len(minilm.chunks(head)) > 1  # the head alone overflows the window
    a, b = minilm.embed([head + tail_a, head + tail_b])
    assert a @ b > 0.9999  # the differing tails are past the window


def test_a_512_token_window_sees_further() -> None:
    head = "The deployment checklist starts with backups. " * 30  # ~270 tokens
    texts = [head + "Then we celebrate with cake and music.", head + "Then the production database is dropped."]
    wide = MiniLMEmbedder(max_tokens=512, threads=1)
    assert wide.max_tokens == 512
    a, b = wide.embed(texts)
    assert a @ b < 0.9999
    with pytest.raises(ValueError, match="max_tokens"):
        MiniLMEmbedder(max_tokens=513)


def test_loads_once_even_under_concurrent_first_use() -> None:
    embedder = MiniLMEmbedder(threads=1)
    sessions = []

    def first_use() -> None:
        embedder.embed(["warm"])
        sessions.append(id(embedder._session))

    threads = [threading.Thread(target=first_use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(sessions)) == 1 and len(sessions) == 4
    first = embedder._session
    embedder.load()
    assert embedder._session is first
    assert embedder.load_seconds is not None and 0 < embedder.load_seconds < 30


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    embedder = MiniLMEmbedder(model_path=tmp_path / "absent.onnx")
    with pytest.raises(EmbeddingError, match="absent.onnx"):
        embedder.embed(["x"])
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(EmbeddingError, match="cannot load"):
        MiniLMEmbedder(model_path=broken).embed(["x"])


def _live_sessions() -> int:
    import gc

    import onnxruntime as ort

    gc.collect()
    return sum(isinstance(o, ort.InferenceSession) for o in gc.get_objects())


def test_queries_and_batches_share_one_session_even_with_two_threads() -> None:
    """One copy of the model per embedder: a query does not open a second session beside the batches' one."""
    before = _live_sessions()
    embedder = MiniLMEmbedder(threads=2, query_cache_size=0)
    texts = [f"the deploy of service {i} waits for the smoke tests" for i in range(24)]
    alone = embedder.embed(texts)
    queries = ["when do deploys go out", "which database does billing use", "who owns the smoke tests"]
    alone_q = [embedder.embed_query(q) for q in queries]
    assert _live_sessions() == before + 1
    errors: list[BaseException] = []
    got: dict[str, np.ndarray] = {}

    def ask(q: str) -> None:
        try:
            for _ in range(5):
                got[q] = embedder.embed_query(q)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    askers = [threading.Thread(target=ask, args=(q,)) for q in queries]
    for t in askers:
        t.start()
    together = embedder.embed(texts)  # a batch running while the queries run on the same session
    for t in askers:
        t.join()
    assert not errors
    np.testing.assert_allclose(together, alone, atol=1e-5)
    for q, vector in zip(queries, alone_q):
        np.testing.assert_allclose(got[q], vector, atol=1e-5)
    assert _live_sessions() == before + 1
