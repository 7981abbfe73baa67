"""Query text to search terms.

User text never reaches the FTS engine as syntax: it is cut into word tokens,
each of which the store quotes, so quotes, ``*``, ``-``, ``NEAR`` or ``OR``
in a question are just words (or nothing).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words that match nearly every memory: in an OR query they only add
# noise to BM25. Dropped from queries (never from stored text); a query made
# only of them keeps them, so "what is it" still searches for something.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she should
    so some such than that the their theirs them themselves then there these they this those through to
    too under until up very was we were what when where which while who whom why will with would you
    your yours yourself yourselves""".split()
)


def query_terms(text: str, max_terms: int = 64) -> list[str]:
    """Distinct lower-case word tokens of ``text`` minus stopwords, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        token = match.group().strip("_")
        if token:
            seen.setdefault(token, None)
        if len(seen) >= max_terms:
            break
    content = [t for t in seen if t not in STOPWORDS]
    return content or list(seen)
