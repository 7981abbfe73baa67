"""Text cut into sentences, the unit both the extraction rules and the fact scorer read.

Two cutters read the same text: :func:`sentences` (a regular expression, for the rules and for the scorer
without a parse) and the English pipeline's parser (``doc.sents``, for the parse and the scorer). Both
leave inline code whole: a span between a pair of backticks on one line is never cut. The parser read
"`httpx.ResponseClosed` is now named `httpx.StreamClosed`" as three sentences, each dot inside the code
ending one, and the fact between the two names was lost; changelogs and docs are full of such names.
:func:`keep_code_whole` runs before the parser and marks every token inside a pair as no sentence start
(the parser keeps boundaries set before it).
"""

from __future__ import annotations

import re
from typing import Any

_SENTENCE = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9@#`])|\n+|;\s+"
)
#: Inline code: a pair of backticks on one line with something between them ("```" fences are not pairs).
_CODE = re.compile(r"`[^`\n]+`")


def code_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) character offsets of each inline code span of ``text``, backticks included."""
    return [m.span() for m in _CODE.finditer(text)] if "`" in text else []


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < at < end for start, end in spans)


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends, new lines and semicolons, never inside inline code."""
    code = code_spans(text)
    parts, start = [], 0
    for m in _SENTENCE.finditer(text):
        if code and _inside(m.start(), code):
            continue
        parts.append(text[start:m.start()])
        start = m.end()
    parts.append(text[start:])
    return [s.strip() for s in parts if s.strip()]


def keep_code_whole(doc: Any) -> Any:
    """A pipeline step before the parser: no token inside a pair of backticks starts a sentence
    (the opening backtick may)."""
    code = code_spans(doc.text)
    if code:
        for tok in doc:
            if _inside(tok.idx, code):
                tok.is_sent_start = False
    return doc
