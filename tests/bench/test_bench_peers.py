"""bench/peers: the adapter contract on knotwork's own MCP server, and a missing peer reported, not raised.

Peers themselves are never installed by the test suite (``make peers`` does that).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[2] / "bench" / "peers"
sys.path.insert(0, str(PEERS))

import systems  # noqa: E402

CORPUS = {
    "name": "tiny",
    "docs": [
        {"key": "s1#0", "text": "user: We chose PostgreSQL for the billing service because of row-level locking.", "part": "a"},
        {"key": "s1#1", "text": "assistant: The cat sleeps on the warm windowsill every afternoon.", "part": "a"},
        {"key": "s2#0", "text": "user: My sister Maria moved to Lisbon last spring.", "part": "b"},
        {"key": "s2#1", "text": "user: My sister Maria moved to Lisbon last spring.", "part": "b"},
    ],
    "questions": [
        {"id": "q1", "text": "Which database did we choose for billing?", "part": "a"},
        {"id": "q2", "text": "Where did Maria move?", "part": "b"},
    ],
}


def test_knotwork_over_mcp_maps_hits_back_to_keys(tmp_path: Path) -> None:
    out = systems.drive("knotwork", CORPUS, tmp_path / "kw", embed_url="", budget_s=120)
    assert out.error is None, out.error
    assert out.ingested == 4
    assert out.ranked["q1"][0] == "s1#0"
    assert "s2#0" not in out.ranked["q1"], "a question saw another part's memories"
    # knotwork stores identical text in one workspace once; a hit on it stands for both turns.
    assert out.ranked["q2"][:2] == ["s2#0", "s2#1"]
    assert set(out.latency_ms) == {"q1", "q2"} and all(ms > 0 for ms in out.latency_ms.values())
    assert "search_memory" in out.tools_list and out.store_bytes > 0
    assert "PostgreSQL" in out.answers["q1"]
    # the store is measured with its graph drained: nothing is left queued, and the size as left is kept beside
    import sqlite3

    assert out.graph["memories"] == 3 and 0 <= out.graph["queued_at_close"] <= 3
    for db in (tmp_path / "kw").rglob("knotwork.db"):
        conn = sqlite3.connect(db)
        assert conn.execute("SELECT count(*) FROM enrich_queue").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM entity_mentions").fetchone()[0] > 0
        conn.close()


def test_a_peer_that_is_not_installed_gets_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(systems, "CACHE", tmp_path / "empty")
    for name in ("mem0", "server-memory", "mcp-memory-service", "basic-memory"):
        out = systems.drive(name, CORPUS, tmp_path / name, embed_url="http://127.0.0.1:9/v1/embeddings", budget_s=5)
        assert out.error and out.error.startswith("not installed"), (name, out.error)
        assert out.ranked == {}


def test_knotwork_with_consolidation_maps_an_updated_turn_to_the_memory_that_took_it(tmp_path: Path) -> None:
    """With consolidation on, the second turn UPDATEs the first: its answer names the same id, so both keys map."""
    corpus = {
        "name": "tiny-consolidated",
        "docs": [
            {"key": "t#0", "text": "user: We chose PostgreSQL for the billing service.", "part": "a"},
            {"key": "t#1", "text": "user: We chose PostgreSQL for the billing service because of row-level locking.", "part": "a"},
            {"key": "t#2", "text": "user: The office plants get watered on Fridays.", "part": "a"},
        ],
        "questions": [{"id": "q1", "text": "Why did we choose PostgreSQL for billing?", "part": "a"}],
    }
    out = systems.drive("knotwork", corpus, tmp_path / "kw", embed_url="", budget_s=120, knotwork_consolidate=True)
    assert out.error is None, out.error
    assert out.ingested == 3
    assert out.ranked["q1"][:2] == ["t#0", "t#1"]  # one memory now holds both turns
    assert "row-level locking" in out.answers["q1"]
    plain = systems.drive("knotwork", corpus, tmp_path / "kw-off", embed_url="", budget_s=120)
    assert plain.error is None and plain.ingested == 3
    assert set(plain.ranked["q1"][:2]) == {"t#0", "t#1"}  # without consolidation each turn is its own memory


def test_the_embedding_server_counts_the_tokens_it_was_given_and_the_ones_the_model_ran() -> None:
    """A text longer than the model's window is cut to 256 tokens by ``embed()``: /stats tells the tokens given
    from the tokens run, which is how bench/peers shows what each peer's adds really put through the model."""
    import httpx
    import run

    long_text = " ".join(f"word{i}" for i in range(200))  # well over 256 WordPiece tokens
    with run.EmbedServer() as url:
        before = systems.embed_stats(url)
        got = httpx.post(url, json={"input": [long_text, "a short one"]}, timeout=60).json()
        after = systems.embed_stats(url)
    assert len(got["data"]) == 2
    spent = {k: after[k] - before.get(k, 0) for k in after}
    assert spent["requests"] == 1 and spent["texts"] == 2 and spent["truncated"] == 1
    from knotwork.embed.onnx_minilm import MiniLMEmbedder

    tok = MiniLMEmbedder()._tokenizer_ready()
    long_n, short_n = len(tok.encode(long_text).ids), len(tok.encode("a short one").ids)
    assert long_n > 256
    assert spent["tokens"] == long_n + short_n
    assert spent["tokens_run"] == 256 + short_n
    assert spent["model_cpu_s"] > 0


def test_knotwork_ingest_counts_its_own_cpu(tmp_path: Path) -> None:
    out = systems.drive("knotwork", CORPUS, tmp_path / "kw", embed_url="", budget_s=120)
    assert out.error is None, out.error
    assert out.ingest_cpu["system_cpu_s"] > 0  # the server processes' CPU during the adds (model runs included)
