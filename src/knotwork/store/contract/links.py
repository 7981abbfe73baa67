"""Typed, directed links between memories, and the change log the in-process graph of links follows.

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from knotwork.domain.models import Relationship, StoredLink


class Links(Protocol):
    """Typed, directed links between memories, and the change log the in-process graph of links follows."""

    def count_links(self) -> int: ...

    def count_links_by_type(self) -> dict[str, int]: ...

    def delete_link(self, link_id: str) -> bool: ...

    def first_link_change(self) -> int:
        """The oldest change number still kept (0 when none): older ones are pruned (migration 0014)."""
        ...

    def get_link(self, link_id: str) -> Relationship | None: ...

    def incoming_link_counts(self, memory_ids: Sequence[str]) -> dict[str, int]: ...

    def insert_link(self, rel: Relationship) -> Relationship: ...

    def link_mark(self) -> int:
        """The newest link change number: cheap change detection for in-memory copies of the links."""
        ...

    def links_changed_after(self, seq: int) -> list[str]:
        """Ids of the links inserted or deleted since change number ``seq``."""
        ...

    def links_touching(self, memory_ids: Sequence[str], direction: str = 'both', types: Sequence[str] | None = None) -> list[Relationship]:
        """Links leaving (outgoing), entering (incoming) or touching (both) any of ``memory_ids``."""
        ...

    def list_links(self, workspace: str | None, limit: int = 1000) -> list[Relationship]: ...

    def resolve_link_ref(self, ref: str, limit: int = 11) -> list[str]: ...

    def stored_links(self, link_ids: Sequence[str] | None = None) -> list[StoredLink]:
        """The links of ``link_ids`` (those that exist), or every link when None, as stored.

        Values that repeat from link to link (memory ids, types, workspaces,
        empty metadata) share one string object: an in-memory copy of 300k
        links holds ~120 MB instead of ~190 MB."""
        ...

    def stored_links_touching(self, memory_ids: Sequence[str], direction: str = 'both', types: Sequence[str] | None = None) -> list[StoredLink]:
        """:meth:`links_touching`, as stored."""
        ...
