"""Input rules: every value that enters the store passes through here first.

Each function either returns the clean value or raises ``InvalidInput`` naming
the field and the problem, so a bad call writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from datetime import datetime, timedelta

from knotwork.domain.models import ALL_PARTITIONS, ALL_WORKSPACES
from knotwork.errors import InvalidInput, quote
from knotwork.limits import (
    JSON_DEPTH, LIST_ITEM_CHARS, MAX_IDS, MAX_LIST_ITEMS, MAX_TAGS, METADATA_BYTES, NAME_CHARS, QUERY_CHARS, TAG_KEY_CHARS,
    TAG_VALUE_CHARS,
)

_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._:@/+-]{{0,{NAME_CHARS - 1}}}")
_TAG_KEY = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9_.:/-]{{0,{TAG_KEY_CHARS - 1}}}")
DEFAULT_IMPORTANCE = 0.5


def content(value: Any, max_bytes: int) -> str:
    """Memory text: a non-blank string of at most ``max_bytes`` UTF-8 bytes, trimmed."""
    if not isinstance(value, str):
        raise InvalidInput("content", f"expected text, got {type(value).__name__}")
    if len(value) > 2 * max_bytes:  # far over, whatever trimming would take off: refused before any work
        raise InvalidInput("content", f"is at least {len(value)} bytes in UTF-8; the limit is {max_bytes} bytes")
    text = unicodedata.normalize("NFC", value).strip()
    if not text:
        raise InvalidInput("content", "is empty; a memory needs some text")
    if "\x00" in text:
        raise InvalidInput("content", "contains a NUL character")
    size = len(utf8(text, "content"))
    if size > max_bytes:
        raise InvalidInput("content", f"is {size} bytes in UTF-8; the limit is {max_bytes} bytes")
    return text


def content_hash(text: str) -> str:
    """Identity of a content for de-duplication: whitespace runs count as one space."""
    canonical = " ".join(text.split())
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _name(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {type(value).__name__}")
    text = value.strip()
    if not text:
        return None
    if not _NAME.fullmatch(text):
        raise InvalidInput(
            field,
            f"{quote(value)} is not a valid name: use 1-{NAME_CHARS} letters, digits or ._:@/+- "
            "starting with a letter or digit",
        )
    return text


def workspace(value: Any) -> str | None:
    """A workspace name, or None for the global scope."""
    return _name(value, "workspace")


def scope(value: Any) -> str | None:
    """What a read may cover: a workspace (with the global scope), None for the global scope alone, or
    ``"*"`` (``ALL_WORKSPACES``) for every workspace."""
    return ALL_WORKSPACES if value == ALL_WORKSPACES else workspace(value)


def agent_id(value: Any) -> str | None:
    """A partition name, or None for the shared partition."""
    return _name(value, "agent_id")


def partition(value: Any) -> str | None:
    """What a read may cover by partition: None for the shared partition (memories without an agent_id), a
    partition name for that one, or ``"*"`` (``ALL_PARTITIONS``) for every partition."""
    if value == ALL_PARTITIONS:
        return ALL_PARTITIONS
    if isinstance(value, str) and "*" in value:
        raise InvalidInput("agent_id", f"{quote(value)}: give a partition name, or '*' alone for every partition")
    return _name(value, "agent_id")


_TTL = re.compile(r"(\d+)\s*([smhdw])")
_TTL_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def ttl(value: Any) -> timedelta | None:
    """A time to live: whole seconds, or text such as ``90s``, ``30m``, ``12h``, ``7d``, ``2w``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidInput("ttl", f"expected seconds or text such as 7d, got {quote(value)}")
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str) and (m := _TTL.fullmatch(value.strip().lower())):
        seconds = int(m[1]) * _TTL_SECONDS[m[2]]
    else:
        raise InvalidInput("ttl", f"expected whole seconds or text such as 90s, 30m, 12h, 7d, 2w; got {quote(value)}")
    if not 1 <= seconds <= 100 * 365 * 86400:
        raise InvalidInput("ttl", f"must be from 1 second to 100 years, got {quote(value)}")
    return timedelta(seconds=seconds)


def expiry(expires_at: datetime | None, time_to_live: Any, start: datetime) -> datetime | None:
    """When a memory expires: ``expires_at`` as given, or ``start`` + ``ttl``; both at once is an error."""
    span = ttl(time_to_live)
    if span is not None and expires_at is not None:
        raise InvalidInput("ttl", "give expires_at or ttl, not both")
    return start + span if span is not None else expires_at


def threshold(value: Any, field: str = "threshold") -> float:
    """A similarity threshold: a number from 0.5 to 1 (below 0.5, unrelated texts would count as duplicates)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise InvalidInput(field, f"expected a number from 0.5 to 1, got {quote(value)}")
    if not 0.5 <= value <= 1.0:
        raise InvalidInput(field, f"must be from 0.5 to 1, got {quote(value)}")
    return float(value)


def category(value: Any) -> str | None:
    """A category name (kept lower-case so 'Decision' and 'decision' are one)."""
    name = _name(value, "category")
    return name.lower() if name else None


def _tag_value(key: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) and _finite(value) and abs(value) < 10**TAG_VALUE_CHARS:
        return str(value)
    if not isinstance(value, str):
        raise InvalidInput("tags", f"value of {quote(key)} must be text or a number, got {type(value).__name__}")
    text = value.strip()
    if len(text) > TAG_VALUE_CHARS or "\n" in text or "\r" in text:
        raise InvalidInput("tags", f"value of {quote(key)} must be one line of at most {TAG_VALUE_CHARS} characters")
    utf8(text, "tags")
    return text


def tags(value: Any) -> dict[str, str]:
    """Tags as ``{key: value}``.

    Accepts a mapping, or a list of ``"key"`` / ``"key=value"`` strings (a bare
    key has the empty value). Keys are 1-64 characters of letters, digits and
    ``_.:/-``.
    """
    if value is None:
        return {}
    pairs: list[tuple[Any, Any]]
    if isinstance(value, Mapping | list | tuple) and len(value) > MAX_TAGS:
        raise InvalidInput("tags", f"{len(value):,} given; at most {MAX_TAGS} tags")
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list | tuple):
        pairs = []
        for item in value:
            if not isinstance(item, str):
                raise InvalidInput("tags", f"list items must be 'key' or 'key=value' text, got {quote(item)}")
            key, _, val = item.partition("=")
            pairs.append((key, val))
    else:
        raise InvalidInput("tags", f"expected a mapping or a list of 'key=value', got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, val in pairs:
        if not isinstance(key, str) or not _TAG_KEY.fullmatch(key.strip()):
            raise InvalidInput(
                "tags", f"key {quote(key)} is not valid: use 1-{TAG_KEY_CHARS} letters, digits or _.:/- starting with a letter, digit or _"
            )
        out[key.strip()] = _tag_value(key, val)
    return out


def tag_filter(value: Any) -> dict[str, str | None]:
    """Tags to filter by: a bare key (or a None value) matches any value of that key."""
    if value is None:
        return {}
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping | list | tuple) and len(value) > MAX_TAGS:
        raise InvalidInput("tags", f"{len(value):,} filters given; at most {MAX_TAGS}")
    if isinstance(value, list | tuple):
        parsed: dict[str, str | None] = {}
        for item in value:
            if not isinstance(item, str):
                raise InvalidInput("tags", f"list items must be 'key' or 'key=value' text, got {quote(item)}")
            key, eq, val = item.partition("=")
            parsed.update({k: (v if eq else None) for k, v in tags({key: val}).items()})
        return parsed
    if isinstance(value, Mapping):
        clean = tags({k: ("" if v is None else v) for k, v in value.items()})
        return {k: (None if value.get(k) is None else v) for k, v in clean.items()}
    raise InvalidInput("tags", f"expected a mapping or a list of 'key=value', got {type(value).__name__}")


def str_list(value: Any, field: str) -> list[str]:
    """A list of short one-line strings (artifacts, evidence); a lone string is a list of one."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise InvalidInput(field, f"expected a list of text, got {type(value).__name__}")
    if len(value) > MAX_LIST_ITEMS:
        raise InvalidInput(field, f"{len(value):,} given; at most {MAX_LIST_ITEMS} items")
    out: dict[str, None] = {}  # insertion-ordered set: de-duplication in linear time
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise InvalidInput(field, f"items must be non-empty text, got {quote(item)}")
        text = item.strip()
        if len(text) > LIST_ITEM_CHARS or "\n" in text:
            raise InvalidInput(field, f"items must be one line of at most {LIST_ITEM_CHARS} characters")
        utf8(text, field)
        out[text] = None
    return list(out)


def id_count(value: Any, field: str) -> None:
    """Refuse more than ``MAX_IDS`` ids in one call, before any is looked up."""
    if isinstance(value, list | tuple) and len(value) > MAX_IDS:
        raise InvalidInput(field, f"{len(value):,} ids given; at most {MAX_IDS}")


def importance(value: Any) -> float:
    """How much a memory matters, from 0 (trivia) to 1 (a rule to always follow)."""
    if value is None:
        return DEFAULT_IMPORTANCE
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput("importance", f"expected a number from 0 to 1, got {quote(value)}")
    if not _finite(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput("importance", f"must be between 0 and 1, got {quote(value)}")
    return float(value)


def metadata(value: Any) -> dict[str, Any]:
    """Free-form JSON object, at most 64 KiB once serialised."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput("metadata", f"expected a JSON object, got {type(value).__name__}")
    if json_depth(value, JSON_DEPTH) > JSON_DEPTH:
        raise InvalidInput("metadata", f"is nested more than {JSON_DEPTH} levels deep")
    try:
        text = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput("metadata", f"is not JSON-serialisable: {exc}") from None
    if len(utf8(text, "metadata")) > METADATA_BYTES:
        raise InvalidInput("metadata", f"is larger than {METADATA_BYTES} bytes")
    out = json.loads(text)
    if THREAD_KEY in out:
        out[THREAD_KEY] = thread(out[THREAD_KEY])
    return out


#: The metadata key naming the conversation, session or thread a memory belongs to (a chat
#: session id, a ticket, a pull request): the memories of one thread are each other's context.
THREAD_KEY = "thread"
THREAD_CHARS = 200


def thread(value: Any, field: str = "metadata.thread") -> str:
    """A thread (``thread=``, ``metadata.thread``): one line of 1-200 characters, trimmed."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > THREAD_CHARS or any(c in value for c in "\r\n"):
        raise InvalidInput(
            field,
            f"must name the conversation or session in one line of 1-{THREAD_CHARS} characters, got {quote(value)}",
        )
    return value.strip()


def with_thread(metadata: dict[str, Any], value: Any) -> dict[str, Any]:
    """``metadata`` (already checked) with the ``thread=`` of an add or update in it: ``thread`` is stored as
    ``metadata.thread``; both given and different is refused rather than one silently winning."""
    if value is None:
        return metadata
    name = thread(value, "thread")
    if metadata.get(THREAD_KEY, name) != name:
        raise InvalidInput("thread", f"{quote(name)} differs from metadata.thread {quote(metadata[THREAD_KEY])}; give one of them")
    return {**metadata, THREAD_KEY: name}


def limit(value: Any, maximum: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise InvalidInput("limit", f"must be a whole number from 1 to {maximum}, got {quote(value)}")
    return value


def searchable(text: str) -> bool:
    """Whether ``text`` holds anything a search can match: a letter, a digit or a pictograph (an emoji).

    The full-text index keeps only letters and digits, and punctuation alone (``???``, ``-``, ``...``) embeds
    into a vector near everything and nothing, so such a query would rank memories by noise.
    """
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in text)


def query(value: Any) -> str:
    if isinstance(value, str) and len(value) > QUERY_CHARS:
        raise InvalidInput("query", f"is {len(value):,} characters; the limit is {QUERY_CHARS} characters")
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("query", "is empty; give some words to search for")
    utf8(value, "query")
    if not searchable(value):
        raise InvalidInput("query", f"{quote(value.strip(), 40)} has no letters or digits, so nothing can match it; "
                                    "give some words to search for")
    return value.strip()


def utf8(text: str, field: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (from a broken decode upstream) is bad input, not a crash."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(field, f"is not valid Unicode: lone surrogate {text[exc.start]!r} at position {exc.start}") from None


def export_json(text: str, field: str) -> Any:
    """One JSON value of an export (a record, or an array of them), never deeper than records go: an array,
    a record, its history, a version, then metadata's ``JSON_DEPTH``. Deeper text is refused, not a crash."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(field, f"is not valid JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise InvalidInput(field, f"is nested more than {JSON_DEPTH} levels deep") from None
    if json_depth(value, JSON_DEPTH + 4) > JSON_DEPTH + 4:
        raise InvalidInput(field, f"is nested more than {JSON_DEPTH} levels deep")
    return value


def _finite(value: int | float) -> bool:
    """A number a float can hold (an int past 1e308 is not: ``math.isfinite`` raises on it)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def json_depth(value: Any, stop: int) -> int:
    """How deeply ``value``'s dicts and lists nest (a scalar is 0), counting no further than ``stop + 1``.

    Iterative, so a 100,000-deep value costs ``stop`` steps down one branch and no recursion.
    """
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        if depth > stop:
            return depth
        deepest = max(deepest, depth)
        pending.extend((child, depth) for child in children)
    return deepest
