"""The links' reads, change log and delete that both stores run alike, written once in the store's dialect.

A mixin of ``SQLiteStore`` and ``PostgresStore`` (like ``memory_sql.py``). Each engine keeps what is truly its
own: the insert (``_insert_link``: PostgreSQL names both ends' workspaces in its keys), the row decoder
(``_link_row``: SQLite keeps a time as the text it reads back, PostgreSQL's driver hands over a datetime), and
``stored_links`` / ``stored_links_touching``, which decode every link of an in-memory copy and bind their ids
in batches (SQLite) or as one list (PostgreSQL).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from knotwork.domain.models import Relationship
from knotwork.store.knowledge_sql import scope_sql
from knotwork.store.where import Dialect

LINK_COLUMNS = "id, from_id, to_id, type, workspace, created_at, metadata"


class LinkSql:
    """The links' methods both stores share (see the module's docstring)."""

    _dialect: Dialect
    _read: Any
    _run: Any
    transaction: Any
    _insert_link: Any  # the engine's own: a new link's row
    _link_row: Any  # the engine's own row decoder (a module function, bound as a staticmethod)

    def insert_link(self, rel: Relationship) -> Relationship:
        q = self._dialect.mark
        with self.transaction():
            row = self._run(
                f"SELECT {LINK_COLUMNS} FROM links WHERE from_id = {q} AND to_id = {q} AND type = {q}",
                (rel.from_id, rel.to_id, rel.type),
            ).fetchone()
            if row:
                return replace(self._link_row(row), existing=True)
            self._insert_link(rel)
        return rel

    def get_link(self, link_id: str) -> Relationship | None:
        rows = self._read(f"SELECT {LINK_COLUMNS} FROM links WHERE id = {self._dialect.mark}", (link_id,))
        return self._link_row(rows[0]) if rows else None

    def list_links(self, workspace: str | None, limit: int = 1000) -> list[Relationship]:
        decode = self._link_row
        where, params = scope_sql(workspace, "workspace", self._dialect)
        rows = self._read(f"SELECT {LINK_COLUMNS} FROM links WHERE {where} ORDER BY id DESC LIMIT {self._dialect.mark}", (*params, limit))
        return [decode(r) for r in rows]

    def resolve_link_ref(self, ref: str, limit: int = 11) -> list[str]:
        q = self._dialect.mark
        rows = self._read(
            f"SELECT id FROM links WHERE id >= {q} AND id < {q} OR {self._dialect.ends.format(col='id', mark=q)} ORDER BY id LIMIT {q}",
            (ref, ref + "~", ref, ref, limit),
        )
        return [r[0] for r in rows]

    def delete_link(self, link_id: str) -> bool:
        with self.transaction():
            return self._run(f"DELETE FROM links WHERE id = {self._dialect.mark}", (link_id,)).rowcount > 0

    def count_links(self) -> int:
        return self._read("SELECT count(*) FROM links")[0][0]

    # -- the change log that in-memory copies catch up from ---------------------------------------
    def link_mark(self) -> int:
        """The newest link change number: cheap change detection for in-memory copies of the links."""
        return self._read("SELECT coalesce(max(seq), 0) FROM link_changes")[0][0]

    def first_link_change(self) -> int:
        """The oldest change number still kept (0 when none): older ones are pruned (SQLite migration 0014)."""
        return self._read("SELECT coalesce(min(seq), 0) FROM link_changes")[0][0]

    def links_changed_after(self, seq: int) -> list[str]:
        """Ids of the links inserted or deleted since change number ``seq``."""
        return [r[0] for r in self._read(f"SELECT DISTINCT link_id FROM link_changes WHERE seq > {self._dialect.mark}", (seq,))]
