"""Text to search terms.

User text never reaches the FTS engine as syntax: it is cut into word tokens,
each of which the store quotes, so quotes, ``*``, ``-``, ``NEAR`` or ``OR``
in a question are just words (or nothing).

Function words are kept. BM25's idf already makes them count for little, and
some carry signal in a memory store: "I", "my", "we" in a question match the
first-person statements an agent was told. Dropping a stopword list from
queries cost 0.03 session recall@5 on LongMemEval (bench/README.md).

:func:`analyze` is the analyzer of the in-memory lexical index (documents and
queries alike): lower case, diacritics folded, English Snowball stems, and
code identifiers kept whole *and* cut into their parts, so ``parse_config``,
``ReportsModule`` or ``mk17`` match as written and ``config`` still finds
``parse_config``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"\w+", re.UNICODE)
# Inner boundaries of an identifier: snake_case, camelCase / PascalCase, letters|digits.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_]+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")


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


def _fold(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


# Segments of an identifier as a person writes its words: snake_case and camelCase / PascalCase pieces,
# digits kept with the letters they follow or precede (``parse_config2`` -> parse, config2; ``HTTP2Server`` ->
# HTTP2, Server; ``ct2m7`` stays whole).
_CASE_BUMP = re.compile(r"(?<=[^\W_A-Z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _segments(word: str) -> list[str]:
    return [seg for piece in word.split("_") if piece for seg in _CASE_BUMP.split(piece) if seg]


@lru_cache(maxsize=200_000)
def _terms_of_word(word: str) -> tuple[str, ...]:
    """The index terms of one ``\\w+`` run: its stem, plus its parts' stems when it is a compound identifier
    (letters and digits apart too: ``mk17`` -> mk17, mk, 17)."""
    whole = word.strip("_").lower()
    if not whole:
        return ()
    terms = [_STEMMER.stemWord(whole)]
    parts = _PARTS.findall(word)
    if len(parts) > 1:
        terms += [_STEMMER.stemWord(p.lower()) for p in parts if len(p) > 1]
    return tuple(dict.fromkeys(terms))


@lru_cache(maxsize=50_000)
def _query_terms_of_word(word: str) -> tuple[str, ...]:
    """A query word's terms: its stem and its segments' (``parse_config`` -> parse_config, pars, config), never
    the finest parts. A document is found only for a word the asker wrote: ``ct2m7`` must not bring up every
    memory holding ``ct`` (a part of ``ct9q1``), while ``config`` still finds ``parse_config`` through the
    document's parts."""
    whole = word.strip("_").lower()
    if not whole:
        return ()
    terms = [_STEMMER.stemWord(whole)]
    segments = _segments(word)
    if len(segments) > 1:
        terms += [_STEMMER.stemWord(s.lower()) for s in segments if len(s) > 1]
    return tuple(dict.fromkeys(terms))


def analyze(text: str) -> list[str]:
    """Every index term of ``text``, in order, repeats kept (a term's count is its frequency)."""
    out: list[str] = []
    for word in _WORD.findall(_fold(text)):
        out += _terms_of_word(word)
    return out


def analyze_query(text: str, max_terms: int = 64) -> list[str]:
    """Distinct terms of a query, in order of first appearance (at most ``max_terms``): each a term of the
    index (:func:`analyze`), so that every document BM25 returns holds at least one word of the query, or a
    segment of one of its compound identifiers."""
    out: dict[str, None] = {}
    for word in _WORD.findall(_fold(text)):
        for term in _query_terms_of_word(word):
            out.setdefault(term, None)
    return list(out)[:max_terms]


def query_parts(text: str, max_terms: int = 64) -> list[str]:
    """The finest parts of a query's compound words (``urllib3`` -> urllib, ``mk17`` -> mk, 17) that are not
    terms of it already: they weigh in a document that holds a word of the query (as they did when every
    term could match), and match no document by themselves."""
    asked = set(analyze_query(text, max_terms))
    out: dict[str, None] = {}
    for word in _WORD.findall(_fold(text)):
        for term in _terms_of_word(word):
            if term not in asked:
                out.setdefault(term, None)
    return list(out)[:max_terms]


# -- names ----------------------------------------------------------------------------
# Evidence ids, artifacts and tag values name things: ``ADR-019``, ``PR-123``,
# ``src/app/db.py``, ``#1894``. They are indexed as words like the content (so
# ``db.py`` finds ``src/app/db.py``), and each is also kept whole, so that a query
# that *names* one finds the memories it names before any that only mention it.
_EDGES = "\"'`()[]{}<>,;:!?"
_INNER = re.compile(r"[\d/\\.:#@_-]")
_CAMEL = re.compile(r"[a-z][A-Z]")


def name_key(value: str) -> str:
    """How a name is compared: case-folded, trimmed, a leading ``#`` dropped (``#1894`` is issue ``1894``)."""
    return value.strip().casefold().lstrip("#")


def identifiers(text: str, max_names: int = 16) -> list[str]:
    """The query's words that look like identifiers, as :func:`name_key` keys, in order.

    A word counts when it holds a digit, an inner ``/ \\ . : # @ _ -`` or a
    camelCase bump (``ADR-019``, ``1894``, ``db.py``, ``ReportsModule``):
    plain words ("user", "cache") are left to BM25, where a tag value such as
    ``role=user`` shared by half the store cannot push everything else down.
    """
    out: dict[str, None] = {}
    for raw in text.split():
        word = raw.strip(_EDGES).rstrip(".").strip(_EDGES)
        if len(word) < 2 or not (_INNER.search(word.strip("#")) or _CAMEL.search(word)):
            continue
        key = name_key(word)
        if len(key) >= 2:
            out.setdefault(key, None)
        if len(out) >= max_names:
            break
    return list(out)
