"""Query text to search terms.

User text never reaches the FTS engine as syntax: it is cut into word tokens,
each of which the store quotes, so quotes, ``*``, ``-``, ``NEAR`` or ``OR``
in a question are just words (or nothing).

Function words are kept. BM25's idf already makes them count for little, and
some carry signal in a memory store: "I", "my", "we" in a question match the
first-person statements an agent was told. Dropping a stopword list from
queries cost 0.03 session recall@5 on LongMemEval (bench/README.md).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str, max_terms: int = 64) -> list[str]:
    """Distinct lower-case word tokens of ``text``, in order of first appearance (at most ``max_terms``)."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        token = match.group().strip("_")
        if token:
            seen.setdefault(token, None)
        if len(seen) >= max_terms:
            break
    return list(seen)
