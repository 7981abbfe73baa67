"""API tokens bound to workspaces: ``knotwork token create|list|revoke``, checked by ``knotwork serve``.

The file (``$KNOTWORK_HOME/tokens.json``, or ``KNOTWORK_TOKENS_FILE``) keeps,
per token name, the SHA-256 of the token, its workspaces and whether it may
write; the token itself is shown once, when it is made. A server reads the
file again when it changes, so a revoked token stops working at once. The
single ``KNOTWORK_API_TOKEN`` still works and is unrestricted (the owner's).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from knotwork.domain import rules
from knotwork.domain.temporal import now, to_text
from knotwork.errors import Conflict, InvalidInput
from knotwork.views.access import Scope

PREFIX = "kw_"
#: How lately a file must have changed to be read again whatever its size and time say (nanoseconds).
RACY_NS = 2_000_000_000


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Credential:
    name: str
    sha256: str
    scope: Scope
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {"workspaces": self.scope.names(), "write": self.scope.write, "sha256": self.sha256, "created_at": self.created_at}


class TokenBook:
    """The tokens of one file; :meth:`scope_of` rereads the file when it has changed since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._entries: dict[str, Credential] = {}

    def _load(self) -> dict[str, Credential]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._entries = None, {}
            return self._entries
        # The file is replaced whole (a new inode) at each change; a change within the clock's granularity of
        # the last read can keep size and mtime, so a file changed lately is read again at each use.
        mark = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if mark != self._seen or time.time_ns() - stat.st_mtime_ns < RACY_NS:
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                entries = {
                    name: Credential(name, d["sha256"], Scope.of(d["workspaces"], bool(d.get("write", True))), d.get("created_at", ""))
                    for name, d in raw.get("tokens", {}).items()
                }
            except (ValueError, KeyError, TypeError, AttributeError, InvalidInput) as exc:
                raise InvalidInput("tokens_file", f"{self.path} is not a knotwork tokens file ({exc})") from None
            self._seen, self._entries = mark, entries
        return self._entries

    def credentials(self) -> list[Credential]:
        return sorted(self._load().values(), key=lambda c: c.name)

    def __bool__(self) -> bool:
        return bool(self._load())

    def scope_of(self, token: str) -> Scope | None:
        """The scope of ``token``, None when no credential has it (every one compared, in constant time)."""
        wanted = digest(token)
        found = None
        for credential in self._load().values():
            if hmac.compare_digest(credential.sha256, wanted):
                found = credential.scope
        return found

    def create(self, name: str, workspaces: list[str], write: bool = True) -> str:
        """A new token named ``name`` for ``workspaces``; returns the token (it is kept only as a hash)."""
        checked = rules.workspace(name)
        if checked is None or checked != name:
            raise InvalidInput("name", f"{name!r} is not a valid token name (letters, digits and ._:@/+-)")
        scope = Scope.of(workspaces, write)
        entries = self._load()
        if name in entries:
            raise Conflict(f"a token named {name!r} exists; revoke it first")
        token = PREFIX + secrets.token_urlsafe(32)
        entries = {**entries, name: Credential(name, digest(token), scope, to_text(now()))}
        self._save(entries)
        return token

    def revoke(self, name: str) -> Credential:
        entries = dict(self._load())
        if name not in entries:
            raise InvalidInput("name", f"no token is named {name!r} (see `knotwork token list`)")
        gone = entries.pop(name)
        self._save(entries)
        return gone

    def _save(self, entries: dict[str, Credential]) -> None:
        """Written whole under a temporary name, readable by the owner only, then renamed over the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        body = json.dumps({"tokens": {n: c.to_dict() for n, c in sorted(entries.items())}}, indent=2) + "\n"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        os.replace(tmp, self.path)
        self._seen = None
        self._load()


def since(created_at: str) -> str:
    try:
        return datetime.fromisoformat(created_at.replace("Z", "+00:00")).strftime("%Y-%m-%d")
    except ValueError:
        return created_at
