"""The errors knotwork raises.

Every adapter maps these once: the CLI to exit code 2 and one line on stderr,
MCP to a tool error, HTTP to a 4xx JSON body. Messages name the problem in
words a caller can act on; they never depend on the adapter.
"""

from __future__ import annotations

from collections.abc import Sequence


class KnotworkError(Exception):
    """Base class of every error knotwork raises on purpose."""


class InvalidInput(KnotworkError, ValueError):
    """The caller passed something knotwork cannot accept; nothing was written."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class NotFound(KnotworkError, LookupError):
    """No record answers to the given id."""

    def __init__(self, kind: str, ref: str) -> None:
        self.kind = kind
        self.ref = ref
        super().__init__(f"no {kind} matches id {ref!r}")


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
            f"id {ref!r} is ambiguous: it matches {shown}{more}; give more characters"
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
