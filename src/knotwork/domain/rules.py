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
from knotwork.errors import InvalidInput

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}")
_TAG_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,63}")
_MAX_TAG_VALUE = 256
_MAX_LIST_ITEM = 2048
_MAX_LIST_LEN = 256
_MAX_METADATA_BYTES = 64 * 1024
DEFAULT_IMPORTANCE = 0.5


def content(value: Any, max_bytes: int) -> str:
    """Memory text: a non-blank string of at most ``max_bytes`` UTF-8 bytes, trimmed."""
    if not isinstance(value, str):
        raise InvalidInput("content", f"expected text, got {type(value).__name__}")
    text = unicodedata.normalize("NFC", value).strip()
    if not text:
        raise InvalidInput("content", "is empty; a memory needs some text")
    if "\x00" in text:
        raise InvalidInput("content", "contains a NUL character")
    size = len(_utf8(text, "content"))
    if size > max_bytes:
        raise InvalidInput("content", f"is {size} bytes; the limit is {max_bytes} bytes")
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
            f"{value!r} is not a valid name: use 1-128 letters, digits or ._:@/+- "
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
        raise InvalidInput("agent_id", f"{value!r}: give a partition name, or '*' alone for every partition")
    return _name(value, "agent_id")


_TTL = re.compile(r"(\d+)\s*([smhdw])")
_TTL_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def ttl(value: Any) -> timedelta | None:
    """A time to live: whole seconds, or text such as ``90s``, ``30m``, ``12h``, ``7d``, ``2w``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidInput("ttl", f"expected seconds or text such as 7d, got {value!r}")
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str) and (m := _TTL.fullmatch(value.strip().lower())):
        seconds = int(m[1]) * _TTL_SECONDS[m[2]]
    else:
        raise InvalidInput("ttl", f"expected whole seconds or text such as 90s, 30m, 12h, 7d, 2w; got {value!r}")
    if not 1 <= seconds <= 100 * 365 * 86400:
        raise InvalidInput("ttl", f"must be from 1 second to 100 years, got {value!r}")
    return timedelta(seconds=seconds)


def expiry(expires_at: datetime | None, time_to_live: Any, start: datetime) -> datetime | None:
    """When a memory expires: ``expires_at`` as given, or ``start`` + ``ttl``; both at once is an error."""
    span = ttl(time_to_live)
    if span is not None and expires_at is not None:
        raise InvalidInput("ttl", "give expires_at or ttl, not both")
    return start + span if span is not None else expires_at


def threshold(value: Any, field: str = "threshold") -> float:
    """A similarity threshold: a number from 0.5 to 1 (below 0.5, unrelated texts would count as duplicates)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(field, f"expected a number from 0.5 to 1, got {value!r}")
    if not 0.5 <= value <= 1.0:
        raise InvalidInput(field, f"must be from 0.5 to 1, got {value!r}")
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
    if isinstance(value, int | float) and math.isfinite(value):
        return str(value)
    if not isinstance(value, str):
        raise InvalidInput("tags", f"value of {key!r} must be text or a number, got {type(value).__name__}")
    text = value.strip()
    if len(text) > _MAX_TAG_VALUE or "\n" in text or "\r" in text:
        raise InvalidInput("tags", f"value of {key!r} must be one line of at most {_MAX_TAG_VALUE} characters")
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
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list | tuple):
        pairs = []
        for item in value:
            if not isinstance(item, str):
                raise InvalidInput("tags", f"list items must be 'key' or 'key=value' text, got {item!r}")
            key, _, val = item.partition("=")
            pairs.append((key, val))
    else:
        raise InvalidInput("tags", f"expected a mapping or a list of 'key=value', got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, val in pairs:
        if not isinstance(key, str) or not _TAG_KEY.fullmatch(key.strip()):
            raise InvalidInput(
                "tags", f"key {key!r} is not valid: use 1-64 letters, digits or _.:/- starting with a letter, digit or _"
            )
        out[key.strip()] = _tag_value(key, val)
    if len(out) > _MAX_LIST_LEN:
        raise InvalidInput("tags", f"at most {_MAX_LIST_LEN} tags")
    return out


def tag_filter(value: Any) -> dict[str, str | None]:
    """Tags to filter by: a bare key (or a None value) matches any value of that key."""
    if value is None:
        return {}
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list | tuple):
        parsed: dict[str, str | None] = {}
        for item in value:
            if not isinstance(item, str):
                raise InvalidInput("tags", f"list items must be 'key' or 'key=value' text, got {item!r}")
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
    out: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise InvalidInput(field, f"items must be non-empty text, got {item!r}")
        text = item.strip()
        if len(text) > _MAX_LIST_ITEM or "\n" in text:
            raise InvalidInput(field, f"items must be one line of at most {_MAX_LIST_ITEM} characters")
        if text not in out:
            out.append(text)
    if len(out) > _MAX_LIST_LEN:
        raise InvalidInput(field, f"at most {_MAX_LIST_LEN} items")
    return out


def importance(value: Any) -> float:
    """How much a memory matters, from 0 (trivia) to 1 (a rule to always follow)."""
    if value is None:
        return DEFAULT_IMPORTANCE
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput("importance", f"expected a number from 0 to 1, got {value!r}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput("importance", f"must be between 0 and 1, got {value!r}")
    return float(value)


def metadata(value: Any) -> dict[str, Any]:
    """Free-form JSON object, at most 64 KiB once serialised."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput("metadata", f"expected a JSON object, got {type(value).__name__}")
    try:
        text = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput("metadata", f"is not JSON-serialisable: {exc}") from None
    if len(text.encode("utf-8")) > _MAX_METADATA_BYTES:
        raise InvalidInput("metadata", f"is larger than {_MAX_METADATA_BYTES} bytes")
    return json.loads(text)


def limit(value: Any, maximum: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise InvalidInput("limit", f"must be a whole number from 1 to {maximum}, got {value!r}")
    return value


def query(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("query", "is empty; give some words to search for")
    _utf8(value, "query")
    return value.strip()


def _utf8(text: str, field: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (from a broken decode upstream) is bad input, not a crash."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(field, f"is not valid Unicode: lone surrogate {text[exc.start]!r} at position {exc.start}") from None
