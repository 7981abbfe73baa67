"""``KNOTWORK_EMBED_THREADS``: onnxruntime threads per run of the bundled model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import knotwork
from knotwork import Settings
from knotwork.embed import make_embedder
from knotwork.embed.onnx_minilm import MiniLMEmbedder, default_threads
from knotwork.embed.openai_compat import OpenAICompatibleEmbedder

TEXTS = [
    "which cache does the api warm on start",
    "deploy",
    "load 3-17: the web service keeps its sessions in redis and rotates the signing key every ninety days.",
]


def test_the_setting_reaches_the_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBED_THREADS", "1")  # as `knotwork serve` and its worker processes read it
    with knotwork.open(tmp_path / "one.db", settings=Settings()) as mem:
        assert isinstance(mem.embedder, MiniLMEmbedder)
        mem.embedder.embed(["load the session"])
        assert mem.embedder.threads == 1
        assert mem.embedder._session.get_session_options().intra_op_num_threads == 1


def test_unset_means_one_per_core(tmp_path: Path) -> None:
    with knotwork.open(tmp_path / "default.db", settings=Settings()) as mem:
        assert isinstance(mem.embedder, MiniLMEmbedder)
        assert mem.embedder.threads == default_threads()


def test_one_thread_computes_the_same_vectors_as_two() -> None:
    """What lets a server run the model on one thread without changing a single answer: the vectors are
    equal to the last bit, for queries and for memories, one at a time and in a batch."""
    one, two = make_embedder("minilm", threads=1), make_embedder("minilm", threads=2)
    for text in TEXTS:
        assert np.array_equal(one._embed_raw([text]), two._embed_raw([text]))
    assert np.array_equal(one._embed_raw(TEXTS), two._embed_raw(TEXTS))
    assert one._session.get_session_options().intra_op_num_threads == 1
    assert two._session.get_session_options().intra_op_num_threads == 2


def test_a_remote_embedder_takes_no_threads() -> None:
    embedder = make_embedder("openai:nomic-embed-text@http://127.0.0.1:9/v1", threads=1)
    assert isinstance(embedder, OpenAICompatibleEmbedder)


@pytest.mark.parametrize("value", [0, -1, 65])
def test_embed_threads_out_of_range_is_refused(value: int) -> None:
    with pytest.raises(ValueError, match="embed_threads"):
        Settings(embed_threads=value)
