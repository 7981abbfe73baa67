"""How every input path (an argument, stdin, a file, a hook's input) names text that is not UTF-8."""

from __future__ import annotations


def not_utf8(raw: bytes, what: str, offset: int = 0, likely: str = "the terminal's encoding may be Latin-1") -> str | None:
    """``raw`` (bytes of ``what``, starting ``offset`` bytes into it) named as not UTF-8 at its first bad byte;
    None when it is UTF-8. Every input path (an argument, stdin, a file) says it in these words."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"{what} is not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {offset + exc.start}; "
                f"give text in UTF-8 ({likely})")
    return None
