"""Settings: the only place that reads the environment (prefix ``KNOTWORK_``)."""

from __future__ import annotations

import os

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything knotwork can be configured with.

    Each field can be set by an environment variable of the same name with the
    ``KNOTWORK_`` prefix, e.g. ``KNOTWORK_HOME=/data/knotwork``.
    """

    model_config = SettingsConfigDict(env_prefix="KNOTWORK_", extra="ignore")

    home: Path = Field(default=Path("~/.knotwork"), description="Folder that holds the default database.")
    db: str | None = Field(default=None, description="Database path or URL; overrides home/knotwork.db.")
    search_floor: float = Field(
        default=0.0, ge=0.0, le=1.0,
        description="A memory search whose best hit scores below this answers with nothing (0: off); see docs/concepts.md.",
    )
    search_answerable: bool = Field(
        default=True,
        description="A memory search whose best hit a learned rule judges no answer answers with nothing (false: "
        "every search keeps its hits); see docs/concepts.md.",
    )
    max_content_bytes: int = Field(default=64 * 1024, gt=0, description="Largest memory content, in UTF-8 bytes.")
    busy_timeout_ms: int = Field(default=30_000, ge=0, description="How long a writer waits for another process's lock.")
    pool_size: int = Field(
        default=8, ge=2, le=1000, description="Most connections one process holds to a PostgreSQL database (its pool)."
    )
    synchronous: Literal["full", "normal"] = Field(
        default="full",
        description="SQLite durability. full: a write acknowledged is on disk, through a power loss or an OS crash "
        "(one fsync per commit). normal: faster commits; a power loss may lose the last transactions, never the "
        "database's integrity (a crash of knotwork alone loses nothing either way).",
    )
    metrics_file: Path | None = Field(
        default=None, description="JSONL file that gets one line of token metrics per rendered call (off when unset)."
    )
    embedder: str = Field(
        default="minilm",
        description="Embedding model: minilm (bundled, offline), openai:<model>@<base_url>, fastembed:<name>, or none.",
    )
    embed_threads: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="onnxruntime threads per run of a local embedding model (minilm, fastembed); unset: one per core. "
        "1 spends 10-20% less CPU per text (same vectors to the last bit) but a run no longer spreads over two cores: "
        "worth trying for `knotwork serve` on a machine of its own (bench/RESULTS.md, \"Serve, round 5\").",
    )
    blas_threads: int = Field(
        default=1,
        ge=0,
        description="Threads NumPy's BLAS may use in this process (0: leave as found). One, because the "
        "products knotwork runs are small, and idle OpenBLAS threads spin: with two, each search burned ~25 ms "
        "more CPU on another core, slowing the search itself.",
    )
    vector_ann_min_rows: int = Field(
        default=50_000,
        ge=0,
        description="SQLite: from this many vectors in the searched scope on, vector search asks an HNSW graph kept in "
        "a file beside the database (<db>.hnsw), built in the background (the exact scan answers until it is "
        "ready); 0: always the exact scan. Needs hnswlib (knotwork[ann]); without it the default falls back to "
        "the exact scan, and a value set by hand is refused.",
    )
    workspace: str | None = Field(default=None, description="Default workspace for the MCP server and CLI.")
    url: str | None = Field(
        default=None,
        description="A running `knotwork serve` (http://host:port) that `knotwork mcp` goes through instead of opening "
        "the store itself; none: never. Unset: the default address, when it answers for the same database.",
    )
    host: str = Field(default="127.0.0.1", description="Address `knotwork serve` binds to.")
    port: int = Field(default=8765, ge=1, le=65535, description="Port `knotwork serve` listens on.")
    serve_threads: int = Field(
        # bench/RESULTS.md, "Serve threads": on 2 cores, 2 threads served the most requests (99-106/s against 90-93
        # with 4, 80 with 8, 87 with 1); the Python part of a request holds the GIL, so threads past the cores contend
        default_factory=lambda: min(4, os.cpu_count() or 1), ge=1, le=1000,
        description="Requests one `knotwork serve` process works on at once (its thread pool; default: the "
        "machine's cores, at most 4); the others wait their turn in its event loop, costing no CPU.",
    )
    serve_malloc_arenas: int = Field(
        default=2, ge=0, le=1024, description="glibc malloc arenas one `knotwork serve` process may use (0: glibc's "
        "default, eight per core); fewer arenas fragment less over a long run.",
    )
    serve_trim_interval: float = Field(
        default=60.0, ge=0, description="Seconds between the times `knotwork serve` gives the free memory of its C "
        "heap back to the OS (glibc malloc_trim); 0: never.",
    )
    # -- knowledge graph --------------------------------------------------------
    kg_extract: str = Field(
        default="rules", description="Offline extraction of entities and facts on add: rules (deterministic) or none."
    )
    kg_min_store: float = Field(
        default=0.6, ge=0, le=1,
        description="Offline extraction: a candidate fact the scorer gives a lower confidence is not stored (0: all).",
    )
    kg_proposer: bool = Field(
        default=False,
        description="Offline extraction: also read the learned proposer's facts (knowledge/proposer.py) for pairs of "
        "names the rules leave unrelated, at its shipped threshold and the store floor. Out of fold on the dev halves "
        "it adds three right facts and no wrong one, and it makes reading a memory in 1.4x as costly: off by default "
        "(bench/RESULTS.md, issue 36 round 6).",
    )
    kg_min_confidence: float = Field(
        default=0.7, ge=0, le=1,
        description="Facts shown by default (search_facts, entity facts, the web UI's graph, ambient recall): those "
        "at least this sure; a reader's min_confidence overrides it (0: every stored fact).",
    )
    kg_single_valued: list[str] = Field(
        default=[
            "prefers", "uses_version", "lives_in", "status", "works_at", "located_in", "written_in", "reports_to",
            "name", "role", "job_title", "age", "favorite_*", "has_*",
        ],
        description="Predicates a subject has one value of at a time (a trailing * matches a prefix); "
        "a new value retires the old one. JSON list in the environment.",
    )
    enrich: Literal["background", "thread", "process", "inline"] = Field(
        default="background",
        description="When and where a new memory is read into the knowledge graph (parse, entities, facts, entity "
        "vectors). An add answers once its memory and vectors are committed, and a worker reads the queued memories "
        "in soon after (Knotwork.wait_for_extraction waits for it): thread: a worker thread of the process, which "
        "waits while a search or add of its process runs; process: one worker process per store for all the "
        "processes that open it, at a lower CPU priority, chosen by a lock on the store; background: a process for "
        "`knotwork serve` and `knotwork mcp`, a thread in a library process. inline: within the add, as scripts and "
        "tests that read the graph at once may want.",
    )
    enrich_batch: int = Field(
        default=32, ge=1, le=1000, description="Memories the enrichment worker reads into the graph per transaction."
    )
    enrich_interval: float = Field(
        default=2.0, gt=0, description="Seconds the idle enrichment worker waits before it looks at the queue again "
        "(work queued by this process wakes it at once)."
    )
    enrich_gather: float = Field(
        default=0.5, ge=0, le=60, description="Seconds the enrichment worker lets newly queued memories gather before "
        "it reads in less than a full batch: per memory, batches of a few dozen cost about half the CPU of batches "
        "of one or two (0: read each in at once).",
    )
    enrich_quiet: float = Field(
        default=0.5, ge=0, description="Seconds without an add of this process the enrichment worker waits for "
        "before it reads a batch in, so that adds streaming in have the cores to themselves; 0: at once.",
    )
    enrich_max_backlog: int = Field(
        default=1000, ge=0, description="Memories queued for the graph before the enrichment worker reads batches "
        "in between streaming adds: past it, it takes a share of the time that grows with the backlog, all of it at "
        "twice this, so the graph is never further behind than twice this while adds go on (0: never defer).",
    )
    enrich_claim_timeout: float = Field(
        default=300.0, gt=0, description="Seconds after which a queued memory claimed by a worker that has not "
        "finished it (a process killed on another machine) is taken over by another worker.",
    )
    enrich_timeout: float = Field(
        default=300.0, gt=0, description="Seconds a worker process may take over one batch before it is ended: its "
        "memories are tried again, one at a time, and one that keeps timing out is marked failed with its reason "
        "(KNOTWORK_ENRICH=process; a thread cannot be ended).",
    )
    enrich_close_wait: float = Field(
        default=30.0, ge=0, description="Seconds closing a store waits for the enrichment of the memories it added; "
        "what is left stays queued for the next process that holds the store.",
    )
    kg_embed_entities: bool = Field(
        default=True, description="Embed entity names for resolution and node search (needs an embedder)."
    )
    kg_llm_url: str | None = Field(
        default=None,
        description="OpenAI-compatible API root (e.g. http://localhost:11434/v1) of an LLM that also extracts "
        "entities and facts from each new memory, through a durable queue; off when unset.",
    )
    kg_llm_model: str = Field(default="", description="Model name the LLM endpoint serves (e.g. qwen2.5:7b).")
    kg_llm_api_key: str | None = Field(default=None, description="Bearer token for the LLM endpoint, if it needs one.")
    kg_llm_instructions: str = Field(
        default="", description="Extra extraction instructions appended to the LLM's prompt (what to look for, naming)."
    )
    kg_llm_timeout: float = Field(default=60.0, gt=0, description="Seconds to wait for one LLM answer.")
    kg_llm_max_attempts: int = Field(default=5, ge=1, description="Attempts per memory before its extraction is failed.")
    kg_llm_backoff: float = Field(
        default=30.0, ge=0, description="Seconds before a failed extraction is tried again (doubling per attempt)."
    )
    kg_llm_worker_interval: float = Field(
        default=5.0, gt=0, description="Seconds between queue checks of the extraction worker in `knotwork serve`."
    )
    # -- hygiene -------------------------------------------------------------------
    consolidation_llm: bool = Field(
        default=True,
        description="With kg_llm_url set, ask that LLM about the consolidation cases the offline rules leave unclear "
        "(an ADD at cosine >= 0.80 to a stored memory); without it, or when it fails, the rules decide.",
    )
    consolidation_llm_timeout: float = Field(
        default=20.0, gt=0, description="Seconds an add waits for the LLM's consolidation answer before the rules decide."
    )
    prune_interval: float = Field(
        default=3600.0, gt=0, description="Seconds between the prunes `knotwork serve` runs (expired memories, extra snapshots)."
    )
    # -- REST API and session hooks ----------------------------------------------
    workers: int = Field(
        default=1, ge=1, le=64, description="Server processes `knotwork serve` runs over the one store (one per core helps)."
    )
    api_token: str | None = Field(
        default=None,
        description="Bearer token the REST API and /mcp require; needed to bind anywhere but a loopback address.",
    )
    allowed_hosts: str = Field(
        default="",
        description="Host names (comma-separated) a loopback server without a token answers besides loopback"
        " addresses and localhost, such as a name of /etc/hosts pointing at 127.0.0.1.",
    )
    tokens_file: str | None = Field(
        default=None,
        description="API tokens bound to workspaces (`knotwork token create`); default home/tokens.json.",
    )
    hook_timeout_s: float = Field(default=2.0, gt=0, description="How long a hook waits for the running server.")
    hook_budget_tokens: int = Field(default=1500, ge=1, le=32000, description="Token budget of session-start context.")
    hook_prompt_budget_tokens: int = Field(
        default=600, ge=1, le=32000, description="Token budget of the context added to each prompt."
    )

    def tokens_path(self) -> Path:
        """Where the API tokens bound to workspaces are kept."""
        return Path(self.tokens_file).expanduser() if self.tokens_file else self.home.expanduser() / "tokens.json"

    def database(self) -> str:
        """The database location these settings point at."""
        if self.db:
            return self.db
        return str(self.home.expanduser() / "knotwork.db")
