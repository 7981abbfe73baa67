"""The SQLite store's links between memories (a mixin of ``SQLiteStore``).

Links live in ``links``; every insert and delete is logged in ``link_changes`` (pruned by
migration 0014), which lets each process's in-memory copy of the links catch up. The mixin uses
the store's connection helpers (``_run``, ``_reads``, ``transaction``, ``_rows_by_ids``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES, Relationship, StoredLink
from knotwork.domain.temporal import to_text

_LINK_COLUMNS = "id, from_id, to_id, type, workspace, created_at, metadata"


def _link(row: Sequence[Any]) -> Relationship:
    return StoredLink._make(row).relationship()


class LinkStore:
    _run: Any
    _reads: Any
    _rows_by_ids: Any
    transaction: Any

    def insert_link(self, rel: Relationship) -> Relationship:
        with self.transaction():
            row = self._run(
                f"SELECT {_LINK_COLUMNS} FROM links WHERE from_id = ? AND to_id = ? AND type = ?",
                (rel.from_id, rel.to_id, rel.type),
            ).fetchone()
            if row:
                return replace(_link(row), existing=True)
            self._run(
                f"INSERT INTO links ({_LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
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
        return rel

    def get_link(self, link_id: str) -> Relationship | None:
        with self._reads:
            row = self._run(f"SELECT {_LINK_COLUMNS} FROM links WHERE id = ?", (link_id,)).fetchone()
        return _link(row) if row else None

    def stored_links(self, link_ids: Sequence[str] | None = None) -> list[StoredLink]:
        """The links of ``link_ids`` (those that exist), or every link when None, as stored.

        Values that repeat from link to link (memory ids, types, workspaces,
        empty metadata) share one string object: an in-memory copy of 300k
        links holds ~120 MB instead of ~190 MB.
        """
        if link_ids is not None:
            rows = self._rows_by_ids(f"SELECT {_LINK_COLUMNS} FROM links WHERE id IN ({{ids}})", link_ids)
        else:
            with self._reads:
                rows = self._run(f"SELECT {_LINK_COLUMNS} FROM links").fetchall()
        one = {}.setdefault
        new = tuple.__new__  # new(StoredLink, values) is StoredLink(*values) without a Python-level call
        return [new(StoredLink, (i, one(f, f), one(t, t), one(k, k), one(w, w), c, one(m, m))) for i, f, t, k, w, c, m in rows]

    def link_mark(self) -> int:
        """The newest link change number: cheap change detection for in-memory copies of the links."""
        with self._reads:
            return self._run("SELECT coalesce(max(seq), 0) FROM link_changes").fetchone()[0]

    def first_link_change(self) -> int:
        """The oldest change number still kept (0 when none): older ones are pruned (migration 0014)."""
        with self._reads:
            return self._run("SELECT coalesce(min(seq), 0) FROM link_changes").fetchone()[0]

    def links_changed_after(self, seq: int) -> list[str]:
        """Ids of the links inserted or deleted since change number ``seq``."""
        with self._reads:
            rows = self._run("SELECT DISTINCT link_id FROM link_changes WHERE seq > ?", (seq,)).fetchall()
        return [r[0] for r in rows]

    def resolve_link_ref(self, ref: str, limit: int = 11) -> list[str]:
        with self._reads:
            rows = self._run(
                "SELECT id FROM links WHERE id >= ? AND id < ? OR substr(id, -length(?)) = ? ORDER BY id LIMIT ?",
                (ref, ref + "~", ref, ref, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def delete_link(self, link_id: str) -> bool:
        with self.transaction():
            return self._run("DELETE FROM links WHERE id = ?", (link_id,)).rowcount > 0

    def stored_links_touching(
        self, memory_ids: Sequence[str], direction: str = "both", types: Sequence[str] | None = None
    ) -> list[StoredLink]:
        """:meth:`links_touching`, as stored."""
        type_sql = f" AND type IN ({', '.join('?' * len(types))})" if types else ""
        ends = [end for end, way in (("from_id", "outgoing"), ("to_id", "incoming")) if direction in (way, "both")]
        sql = " UNION ".join(f"SELECT {_LINK_COLUMNS} FROM links WHERE {end} IN ({{ids}}){type_sql}" for end in ends)
        rows = self._rows_by_ids(sql + " ORDER BY id", memory_ids, lambda batch: [*batch, *(types or ())] * len(ends))
        return list(map(StoredLink._make, rows))

    def list_links(self, workspace: str | None, limit: int = 1000) -> list[Relationship]:
        where, params = ("1", []) if workspace == ALL_WORKSPACES else (
            ("workspace IN ('', ?)", [workspace]) if workspace else ("workspace = ''", [])
        )
        with self._reads:
            rows = self._run(
                f"SELECT {_LINK_COLUMNS} FROM links WHERE {where} ORDER BY id DESC LIMIT ?", (*params, limit)
            ).fetchall()
        return [_link(r) for r in rows]

    def count_links(self) -> int:
        with self._reads:
            return self._run("SELECT count(*) FROM links").fetchone()[0]
