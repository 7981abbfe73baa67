"""The SQLite store's own part of the links between memories (a mixin of ``SQLiteStore``; what both engines
run alike is ``store/links_sql.py``'s).

Links live in ``links``; every insert and delete is logged in ``link_changes`` (pruned by
migration 0014), which lets each process's in-memory copy of the links catch up. The mixin uses
the store's connection helpers (``_run``, ``_reads``, ``transaction``, ``_rows_by_ids``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from knotwork.domain.models import Relationship, StoredLink
from knotwork.domain.temporal import to_text
from knotwork.store.links_sql import LINK_COLUMNS

def _link(row: Sequence[Any]) -> Relationship:
    return StoredLink._make(row).relationship()


class LinkStore:
    _run: Any
    _reads: Any
    _rows_by_ids: Any
    transaction: Any

    _link_row = staticmethod(_link)  # LinkSql: this engine's row decoder

    def _insert_link(self, rel: Relationship) -> None:
        """A new link's row (LinkSql.insert_link has checked that it is new)."""
        self._run(
            f"INSERT INTO links ({LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                rel.id,
                rel.from_id,
                rel.to_id,
                rel.type,
                rel.workspace or "",
                to_text(rel.created_at),
                json.dumps(rel.metadata, ensure_ascii=False, sort_keys=True),
            ),
        )

    def stored_links(self, link_ids: Sequence[str] | None = None) -> list[StoredLink]:
        """The links of ``link_ids`` (those that exist), or every link when None, as stored.

        Values that repeat from link to link (memory ids, types, workspaces,
        empty metadata) share one string object: an in-memory copy of 300k
        links holds ~120 MB instead of ~190 MB.
        """
        if link_ids is not None:
            rows = self._rows_by_ids(f"SELECT {LINK_COLUMNS} FROM links WHERE id IN ({{ids}})", link_ids)
        else:
            with self._reads:
                rows = self._run(f"SELECT {LINK_COLUMNS} FROM links").fetchall()
        one = {}.setdefault
        new = tuple.__new__  # new(StoredLink, values) is StoredLink(*values) without a Python-level call
        return [new(StoredLink, (i, one(f, f), one(t, t), one(k, k), one(w, w), c, one(m, m))) for i, f, t, k, w, c, m in rows]

    def stored_links_touching(
        self, memory_ids: Sequence[str], direction: str = "both", types: Sequence[str] | None = None
    ) -> list[StoredLink]:
        """:meth:`links_touching`, as stored."""
        type_sql = f" AND type IN ({', '.join('?' * len(types))})" if types else ""
        ends = [end for end, way in (("from_id", "outgoing"), ("to_id", "incoming")) if direction in (way, "both")]
        sql = " UNION ".join(f"SELECT {LINK_COLUMNS} FROM links WHERE {end} IN ({{ids}}){type_sql}" for end in ends)
        rows = self._rows_by_ids(sql + " ORDER BY id", memory_ids, lambda batch: [*batch, *(types or ())] * len(ends))
        return list(map(StoredLink._make, rows))
