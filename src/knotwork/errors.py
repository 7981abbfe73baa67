"""The errors knotwork raises.

Every adapter maps these once: the CLI to exit code 2 and one line on stderr,
MCP to a tool error, HTTP to a 4xx JSON body. Messages name the problem in
words a caller can act on; they never depend on the adapter.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence

from knotwork.limits import QUOTE_CHARS

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, QUOTE_CHARS, QUOTE_CHARS
_REPR.maxtuple = _REPR.maxlist = _REPR.maxdict = _REPR.maxset = 4


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters, saying how long a cut text was.

    Errors quote what they refuse through this, so a 10 MB value comes back as
    100 characters and a count, and a 100,000-deep list costs no recursion.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    return _bounded(_REPR.repr(value), limit)


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class KnotworkError(Exception):
    """Base class of every error knotwork raises on purpose."""


class InvalidInput(KnotworkError, ValueError):
    """The caller passed something knotwork cannot accept; nothing was written."""

    def __init__(self, field: str, problem: str) -> None:
        # Callers quote values through quote(); this bound holds whatever a message interpolated.
        self.field = _bounded(field, 4 * QUOTE_CHARS)
        self.problem = _bounded(problem, 4 * QUOTE_CHARS)
        super().__init__(f"{self.field}: {self.problem}")


class Forbidden(InvalidInput):
    """An operation the caller's scope does not allow: a write with a read-only token, a workspace outside
    its token, an operation of the owner's. HTTP answers 403; the CLI and MCP treat it as any refusal."""


#: How each surface says "ask that workspace": the CLI's option, the argument of an MCP tool or a REST call.
WORKSPACE_ARG = 'workspace="{}"'
CLI_WORKSPACE_ARG = "-w {}"


def _plural(noun: str) -> str:
    if noun.endswith(("ch", "s")):
        return noun + "es"
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"


def elsewhere_text(counts: Mapping[str, int], arg: str = WORKSPACE_ARG, noun: str = "match") -> str:
    """``2 matches in workspace 'ledgerly'; pass -w ledgerly``: where a search or lookup that found nothing in
    its workspace would find something (the workspaces with the most first, at most three named)."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = [f"{n} {noun if n == 1 else _plural(noun)} in workspace {w!r}" for w, n in ranked[:3]]
    more = f" and {len(ranked) - 3} more workspaces" if len(ranked) > 3 else ""
    return f"{', '.join(shown)}{more}; pass {arg.format(ranked[0][0])}"


class NotFound(KnotworkError, LookupError):
    """No record answers to the given id (or name: ``by``).

    ``elsewhere``: the other workspaces the caller reads where the same lookup finds a record, with how many
    (set by the service, never beyond the caller's scope); the message names them.
    """

    def __init__(self, kind: str, ref: str, *, by: str = "id", elsewhere: Mapping[str, int] | None = None) -> None:
        self.kind = kind
        self.ref = ref
        self.by = by
        self.elsewhere = dict(elsewhere or {})
        super().__init__(self.message())

    def message(self, arg: str = WORKSPACE_ARG) -> str:
        """The message, with the workspace to pass written as ``arg`` (the CLI passes :data:`CLI_WORKSPACE_ARG`)."""
        if getattr(self, "by", None) is None:  # worded elsewhere (a server's answer that named no record)
            return str(self)
        if self.by == "id":
            text = f"no {self.kind} matches id {quote(self.ref)}"
        elif self.by == "name":
            text = f"no {self.kind} is named {quote(self.ref)}"
        else:
            text = f"no {self.kind} has the {self.by} {quote(self.ref)}"
        if self.elsewhere:
            text += f" here; {elsewhere_text(self.elsewhere, arg)}"
        return text


class AmbiguousId(KnotworkError, LookupError):
    """A short id matches more than one record."""

    def __init__(self, kind: str, ref: str, candidates: Sequence[str], total: int | None = None) -> None:
        self.kind = kind
        self.ref = ref
        self.candidates = list(candidates)
        self.total = max(total or 0, len(self.candidates))
        shown = ", ".join(self.candidates[:10])
        more = f" and {self.total - 10} more" if self.total > 10 else ""
        super().__init__(
            f"id {quote(ref)} is ambiguous: it matches {shown}{more}; give more characters"
        )


class Conflict(KnotworkError):
    """The change would break a rule of the store (for example a duplicate)."""


class BackendUnavailable(KnotworkError):
    """The database cannot be opened or reached."""


__all__ = [
    "AmbiguousId",
    "BackendUnavailable",
    "Conflict",
    "InvalidInput",
    "KnotworkError",
    "NotFound",
]
