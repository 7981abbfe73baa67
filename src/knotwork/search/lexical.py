"""Query text to search terms.

User text never reaches the FTS engine as syntax: it is cut into word tokens,
each of which the store quotes, so quotes, ``*``, ``-``, ``NEAR`` or ``OR``
in a question are just words (or nothing).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str, max_terms: int = 64) -> list[str]:
    """Distinct lower-case word tokens of ``text``, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        token = match.group().strip("_")
        if token:
            seen.setdefault(token, None)
        if len(seen) >= max_terms:
            break
    return list(seen)
