"""ULIDs: time-ordered ids, and the short references that resolve to them."""

from __future__ import annotations

import os
import re
import threading
import time

from ulid import ULID

from knotwork.errors import InvalidInput, quote

ID_LENGTH = 26
MIN_REF_LENGTH = 8
_CROCKFORD = re.compile(r"[0-9A-HJKMNP-TV-Z]+")
_lock = threading.Lock()
_last_ms = -1
_last_rand = 0


def new_id() -> str:
    """A new ULID, strictly increasing within this process.

    Two ids made in the same millisecond differ in their random part by one,
    so ids sort in creation order even in a bulk insert.
    """
    global _last_ms, _last_rand
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            ms = _last_ms
            rand = (_last_rand + 1) % (1 << 80)
        else:
            rand = int.from_bytes(os.urandom(10), "big") >> 1  # leave room to count up
        _last_ms, _last_rand = ms, rand
        return str(ULID.from_bytes(ms.to_bytes(6, "big") + rand.to_bytes(10, "big")))


def normalize_ref(ref: object, field: str = "id") -> str:
    """Check a full or short id (8-26 Crockford base-32 characters) and upper-case it."""
    if not isinstance(ref, str):
        raise InvalidInput(field, f"expected an id as text, got {type(ref).__name__}")
    text = ref.strip().upper()
    if not MIN_REF_LENGTH <= len(text) <= ID_LENGTH or not _CROCKFORD.fullmatch(text):
        raise InvalidInput(
            field,
            f"{quote(ref)} is not an id: give the full id or at least {MIN_REF_LENGTH} of its first or last characters",
        )
    return text


def could_be_id(text: str) -> bool:
    """True when ``text`` has the shape of a full or short id (8 to 26 letters and digits)."""
    return MIN_REF_LENGTH <= len(text) <= ID_LENGTH and text.isalnum()


def looked_up_by(ref: str) -> str:
    """What a reference that may be a name was looked up by, as a miss says it: a name, or (when it is written
    in the letters of an id) a name or an id."""
    text = ref.strip()
    return "name or id" if could_be_id(text) and _CROCKFORD.fullmatch(text.upper()) else "name"
