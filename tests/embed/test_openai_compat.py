"""OpenAICompatibleEmbedder against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import numpy as np
import pytest

from knotwork.embed import Embedder, EmbeddingError, make_embedder
from knotwork.embed._chunking import estimate_tokens
from knotwork.embed.openai_compat import OpenAICompatibleEmbedder

from ._server import DIM, EmbeddingServer, Reply, expected


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    running = EmbeddingServer().start()
    yield running
    running.stop()


def embedder(server: EmbeddingServer, **options: object) -> OpenAICompatibleEmbedder:
    settings: dict[str, object] = {"retries": 0, "timeout": 5.0, **options}
    return OpenAICompatibleEmbedder(server.base_url, "toy-embed", **settings)  # type: ignore[arg-type]


def test_batches_requests_and_restores_order(server: EmbeddingServer) -> None:
    texts = ["apple", "banana", "cabbage", "dad", "egg", "fig", "hedge"]
    vectors = embedder(server, batch_size=3).embed(texts)
    assert [len(r.body["input"]) for r in server.requests] == [3, 3, 1]
    assert {r.path for r in server.requests} == {"/v1/embeddings"}
    assert all(r.body["model"] == "toy-embed" for r in server.requests)
    assert vectors.dtype == np.float32 and vectors.shape == (7, DIM)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)  # normalised, in input order


def test_satisfies_the_protocol_and_learns_dim(server: EmbeddingServer) -> None:
    remote = embedder(server)
    assert remote.model_id == f"openai:{server.base_url}:toy-embed"
    assert remote.dim == DIM  # asked the server once
    assert len(server.requests) == 1
    assert isinstance(remote, Embedder)
    assert remote.embed([]).shape == (0, DIM)
    assert len(server.requests) == 1


def test_given_dim_needs_no_request_for_empty_input(server: EmbeddingServer) -> None:
    assert embedder(server, dim=DIM).embed([]).shape == (0, DIM)
    assert server.requests == []


def test_queries_are_cached(server: EmbeddingServer) -> None:
    remote = embedder(server)
    first = remote.embed_query("what did Ada say?")
    second = remote.embed_query("what did Ada say?")
    assert len(server.requests) == 1
    np.testing.assert_array_equal(first, second)
    assert not first.flags.writeable


def test_wrong_number_of_vectors_is_an_error(server: EmbeddingServer) -> None:
    body = json.dumps({"data": [{"index": 0, "embedding": [1.0] * DIM}]}).encode()
    server.replies.append(Reply(body=body))
    with pytest.raises(EmbeddingError) as caught:
        embedder(server).embed(["one", "two"])
    assert "returned 1 vectors for 2 texts" in str(caught.value)
    assert server.base_url + "/embeddings" in str(caught.value)
    assert (caught.value.url, caught.value.status) == (server.base_url + "/embeddings", 200)


def test_wrong_vector_size_is_an_error(server: EmbeddingServer) -> None:
    with pytest.raises(EmbeddingError, match=f"{DIM} dimensions, expected 16"):
        embedder(server, dim=16).embed(["hello"])


def test_vectors_of_mixed_sizes_are_an_error(server: EmbeddingServer) -> None:
    body = json.dumps({"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]}).encode()
    server.replies.append(Reply(body=body))
    with pytest.raises(EmbeddingError, match="different or zero sizes"):
        embedder(server).embed(["a", "b"])


def test_a_zero_vector_is_an_error(server: EmbeddingServer) -> None:
    server.replies.append(Reply(body=json.dumps({"data": [{"index": 0, "embedding": [0.0] * DIM}]}).encode()))
    with pytest.raises(EmbeddingError, match="all-zero vector"):
        embedder(server).embed(["nothing"])


def test_server_error_names_url_status_and_message(server: EmbeddingServer) -> None:
    server.replies.append(Reply(status=500, body=json.dumps({"error": {"message": "model not loaded"}}).encode()))
    with pytest.raises(EmbeddingError) as caught:
        embedder(server).embed(["x"])
    message = str(caught.value)
    assert "HTTP 500" in message and "model not loaded" in message and server.base_url in message
    assert caught.value.status == 500
    assert len(server.requests) == 1  # retries=0


def test_transient_errors_are_retried(server: EmbeddingServer) -> None:
    server.replies.append(Reply(status=503, body=b'{"error": "loading model"}'))
    vectors = embedder(server, retries=1, retry_backoff=0.0).embed(["retry me"])
    np.testing.assert_allclose(vectors, expected(["retry me"]), atol=1e-6)
    assert len(server.requests) == 2


def test_client_errors_are_not_retried(server: EmbeddingServer) -> None:
    server.replies.append(Reply(status=400, body=b'{"error": "input too long"}'))
    with pytest.raises(EmbeddingError, match="HTTP 400: input too long"):
        embedder(server, retries=3, retry_backoff=0.0).embed(["x"])
    assert len(server.requests) == 1


def test_wrong_base_url_gets_a_hint(server: EmbeddingServer) -> None:
    server.replies.append(Reply(status=404, body=b"404 page not found"))
    wrong = OpenAICompatibleEmbedder(server.base_url.removesuffix("/v1"), "toy-embed", retries=0)
    with pytest.raises(EmbeddingError, match=r"HTTP 404 \(is base_url the API root"):
        wrong.embed(["x"])
    assert server.requests[0].path == "/embeddings"


def test_non_json_answer_is_an_error(server: EmbeddingServer) -> None:
    server.replies.append(Reply(body=b"<html>proxy login</html>"))
    with pytest.raises(EmbeddingError, match="not JSON: <html>proxy login"):
        embedder(server).embed(["x"])


def test_unreachable_server_is_an_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    remote = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}/v1", "m", retries=0, timeout=2)
    with pytest.raises(EmbeddingError, match=rf"127\.0\.0\.1:{port}/v1/embeddings.*cannot be reached"):
        remote.embed(["x"])


def test_slow_server_times_out(server: EmbeddingServer) -> None:
    server.replies.append(Reply(delay=1.0))
    with pytest.raises(EmbeddingError, match=r"did not answer within 0\.2 s"):
        embedder(server, timeout=0.2).embed(["x"])


def test_api_key_is_sent_as_bearer(server: EmbeddingServer) -> None:
    embedder(server, api_key="sk-test").embed(["x"])
    assert server.requests[0].headers["Authorization"] == "Bearer sk-test"


def test_url_credentials_become_basic_auth_and_stay_out_of_the_model_id(server: EmbeddingServer) -> None:
    with_credentials = server.base_url.replace("http://", "http://ada:s3cret@")
    remote = OpenAICompatibleEmbedder(with_credentials, "toy-embed", retries=0)
    remote.embed(["x"])
    assert server.requests[0].headers["Authorization"] == "Basic YWRhOnMzY3JldA=="
    assert "s3cret" not in remote.model_id and "s3cret" not in remote.url


def test_factory_keys(server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """$OPENAI_API_KEY never leaves for another host; $KNOTWORK_EMBEDDER_API_KEY does."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-only")
    monkeypatch.delenv("KNOTWORK_EMBEDDER_API_KEY", raising=False)
    make_embedder(f"openai:toy-embed@{server.base_url}").embed(["x"])
    assert "Authorization" not in server.requests[-1].headers
    monkeypatch.setenv("KNOTWORK_EMBEDDER_API_KEY", "sk-local")
    local = make_embedder(f"openai:toy-embed@{server.base_url}")
    local.embed(["y"])
    assert server.requests[-1].headers["Authorization"] == "Bearer sk-local"
    assert server.requests[-1].body["model"] == "toy-embed"


def test_chunks_use_estimated_tokens(server: EmbeddingServer) -> None:
    remote = embedder(server, max_tokens=16, passage_words=1000)
    text = " ".join(f"sentence {i} about the weekly planning meeting." for i in range(100))
    chunks = remote.chunks(text)
    assert len(chunks) > 5
    assert all(c == c.strip() and c in text for c in chunks)
    assert all(sum(estimate_tokens(w) for w in c.split()) <= 16 for c in chunks)  # estimated, never counted remotely
    assert chunks[0].startswith("sentence 0 ") and text.endswith(chunks[-1])
    assert remote.chunks("short text") == ["short text"]
    assert server.requests == []  # chunking never calls the server


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAICompatibleEmbedder("localhost:11434", "m")
    with pytest.raises(ValueError, match="model"):
        OpenAICompatibleEmbedder("http://localhost:11434/v1", "")
