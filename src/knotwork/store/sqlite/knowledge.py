"""The knowledge-graph half of the SQLite store (a mixin of ``SQLiteStore``).

Entities, aliases, name trigrams, entity vectors, mentions, facts with their
source memories, communities and the LLM extraction queue. Every method is
a capability (no business rules here: the knowledge service decides what to
write; this only writes it). Methods are prefixed ``kg_``. What both engines
run alike is written once in store/knowledge_sql.py (``KnowledgeSql``); this
module keeps SQLite's own: its inserts (``OR IGNORE`` / ``OR REPLACE``), the
trigram index keyed by rowid, FTS5's ``bm25()``, the batched id lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.domain.temporal import to_text
from knotwork.knowledge.models import Community, Entity, Fact
from knotwork.knowledge.resolve import grams, search_terms
from knotwork.store import knowledge_sql
from knotwork.store.sqlite import scaled
from knotwork.store.where import SQLITE

_FACT = knowledge_sql.fact_columns(SQLITE)
_FACT_FROM = knowledge_sql.FACT_FROM


def _ts(value: datetime | None) -> str | None:
    return SQLITE.opt_time(value)


def _match(terms: Sequence[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class KnowledgeStore:
    """Mixed into ``SQLiteStore``: relies on its ``_run``, ``_read`` and ``_reads`` (reads), ``_lock`` and
    ``transaction``."""

    _run: Any
    _read: Any
    _lock: Any
    _reads: Any
    _rows_by_ids: Any
    _run_many: Any
    _move_facts: Any
    transaction: Any

    # -- entities -------------------------------------------------------------
    def kg_lookup_norms(self, workspace: str | None, norms: Sequence[str]) -> dict[str, str]:
        """Entity id for each normalised name (own name first, then aliases) in exactly this workspace."""
        out: dict[str, str] = {}
        ws = workspace or ""
        for table, column in (("entity_aliases", "entity_id"), ("entities", "id")):
            sql = f"SELECT norm, {column} FROM {table} WHERE workspace = ? AND norm IN ({{ids}})"
            out.update(self._rows_by_ids(sql, norms, lambda batch: (ws, *batch)))
        return out

    def kg_insert_entity(self, e: Entity, norm: str, grams: Iterable[str], note: str = "", terms: str | None = None) -> None:
        """A new entity; ``terms`` (its words for full-text search) default to its name's."""
        with self.transaction():
            self._run(
                "INSERT INTO entities (id, workspace, name, norm, type, summary, note, terms, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    e.id, e.workspace or "", e.name, norm, e.type, e.summary, note, search_terms(e.name) if terms is None else terms,
                    to_text(e.created_at), to_text(e.updated_at),
                ),
            )
            rowid = self._run("SELECT rowid FROM entities WHERE id = ?", (e.id,)).fetchone()[0]
            self._run_many(
                "INSERT OR IGNORE INTO entity_grams (workspace, gram, entity) VALUES (?, ?, ?)",
                [(e.workspace or "", g, rowid) for g in grams],
            )

    def _gram_rows(self, workspace: str | None, grams: Sequence[str], limit: int, after: str | None) -> list[Any]:
        """(entity id, trigrams shared) for :meth:`KnowledgeSql.kg_gram_candidates`."""
        marks = ", ".join("?" * len(grams))
        since, extra = ("WHERE e.id > ?", [after]) if after else ("", [])
        with self._reads:
            return self._run(
                "SELECT e.id, g.n FROM (SELECT entity, count(*) AS n FROM entity_grams"
                f" WHERE workspace = ? AND gram IN ({marks}) GROUP BY entity) g JOIN entities e ON e.rowid = g.entity"
                f" {since} ORDER BY g.n DESC, e.id LIMIT ?",
                (workspace or "", *grams, *extra, limit),
            ).fetchall()

    def kg_gram_counts(self, entity_ids: Sequence[str]) -> dict[str, set[str]]:
        # An entity's trigrams are those of its normalised name (what kg_insert_entity is given): read from
        # the name, as entity_grams has no index by entity (migration 0028).
        return {eid: grams(norm) for eid, norm in self._rows_by_ids("SELECT id, norm FROM entities WHERE id IN ({ids})", entity_ids)}

    def _drop_grams(self, workspace: str, norm: str, rowid: int) -> None:
        """Delete the trigrams of the entity of this rowid (call in the transaction that deletes the entity)."""
        self._run_many("DELETE FROM entity_grams WHERE workspace = ? AND gram = ? AND entity = ?",
                       [(workspace, g, rowid) for g in grams(norm)])

    def kg_put_entity_vector(self, entity_id: str, blob: bytes) -> None:
        with self.transaction():
            self._run("INSERT OR REPLACE INTO entity_vectors (entity_id, vector) VALUES (?, ?)", (entity_id, scaled.pack(blob)))

    def kg_vectors_of(self, entity_ids: Sequence[str]) -> dict[str, bytes]:
        """The name vector of each of these entities that has one."""
        rows = self._rows_by_ids("SELECT entity_id, vector FROM entity_vectors WHERE entity_id IN ({ids})", entity_ids)
        return {r[0]: scaled.unpack(r[1]) for r in rows}

    def kg_entity_vectors(self, after_rowid: int = 0) -> list[tuple[int, str, str, bytes]]:
        """(rowid, entity id, workspace, vector) of entity vectors written after ``after_rowid``."""
        with self._reads:
            rows = self._run(
                "SELECT v.rowid, v.entity_id, e.workspace, v.vector FROM entity_vectors v"
                " JOIN entities e ON e.id = v.entity_id WHERE v.rowid > ? ORDER BY v.rowid",
                (after_rowid,),
            ).fetchall()
        return scaled.unpack_rows(rows, 3)

    def kg_add_alias(self, workspace: str | None, norm: str, alias: str, entity_id: str, index: bool = True) -> None:
        """A new alias; ``index``: its words join the entity's terms (False: the terms are already complete)."""
        with self.transaction():
            added = self._run(
                "INSERT OR IGNORE INTO entity_aliases (workspace, norm, alias, entity_id) VALUES (?, ?, ?, ?)",
                (workspace or "", norm, alias, entity_id),
            ).rowcount
            if added and index:
                self._run("UPDATE entities SET terms = terms || ' ' || ? WHERE id = ?", (search_terms(alias), entity_id))

    def kg_add_mentions(self, memory_id: str, entity_ids: Iterable[str]) -> None:
        with self.transaction():
            for eid in dict.fromkeys(entity_ids):
                self._run("INSERT OR IGNORE INTO entity_mentions (memory_id, entity_id) VALUES (?, ?)", (memory_id, eid))

    def kg_degree(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Facts plus mentions per entity: how connected it is."""
        out = dict.fromkeys(entity_ids, 0)
        with self._reads:
            for eid in out:
                out[eid] = self._run(
                    "SELECT (SELECT count(*) FROM facts WHERE subject_id = ?1 OR object_id = ?1)"
                    " + (SELECT count(*) FROM entity_mentions WHERE entity_id = ?1)",
                    (eid,),
                ).fetchone()[0]
        return out

    def kg_merge_entities(self, keep: str, drop: str) -> None:
        """Move everything of ``drop`` onto ``keep`` and delete ``drop`` (its own name becomes an alias)."""
        with self.transaction():
            row = self._run("SELECT workspace, norm, name, terms, rowid FROM entities WHERE id = ?", (drop,)).fetchone()
            self._move_facts(keep, drop)
            self._run("DELETE FROM facts WHERE subject_id = object_id AND subject_id = ?", (keep,))
            self._run(
                "INSERT OR IGNORE INTO entity_mentions (memory_id, entity_id) SELECT memory_id, ? FROM entity_mentions WHERE entity_id = ?",
                (keep, drop),
            )
            self._run("UPDATE OR IGNORE entity_aliases SET entity_id = ? WHERE entity_id = ?", (keep, drop))
            self._run("DELETE FROM entities WHERE id = ?", (drop,))
            if row:
                self._drop_grams(row[0], row[1], row[4])
                self._run(
                    "INSERT OR REPLACE INTO entity_aliases (workspace, norm, alias, entity_id) VALUES (?, ?, ?, ?)",
                    (row[0], row[1], row[2], keep),
                )
                self._run("UPDATE entities SET terms = terms || ' ' || ? WHERE id = ?", (row[3], keep))
            self.kg_refresh_fact_text([keep])

    def _entities_ranked(self, terms: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """(id, score) of the entities whose terms match any of ``terms`` and ``where``, best first (FTS5's BM25:
        the name's terms weigh three times the summary's)."""
        return self._read(
            "SELECT e.id, -bm25(entities_fts, 3.0, 1.0) FROM entities_fts JOIN entities e ON e.rowid = entities_fts.rowid"
            f" WHERE entities_fts MATCH ? AND {where} ORDER BY bm25(entities_fts, 3.0, 1.0) LIMIT ?",
            (_match(terms), *params, limit),
        )

    def kg_insert_fact(self, f: Fact) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO facts (id, workspace, subject_id, predicate, object_id, fact, terms, valid_at, invalid_at,"
                " created_at, expired_at, superseded_by, origin, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    f.id, f.workspace or "", f.subject_id, f.predicate, f.object_id, f.fact, search_terms(f.fact), _ts(f.valid_at),
                    _ts(f.invalid_at), to_text(f.created_at), _ts(f.expired_at), f.superseded_by, f.extractor,
                    f.confidence,
                ),
            )
            for mid in f.sources:
                self._run("INSERT OR IGNORE INTO fact_sources (fact_id, memory_id) VALUES (?, ?)", (f.id, mid))

    def kg_retire_fact(self, fact_id: str, invalid_at: datetime | None, expired_at: datetime | None, superseded_by: str | None) -> None:
        with self.transaction():
            self._run(
                "UPDATE facts SET invalid_at = ?, expired_at = ?, superseded_by = ? WHERE id = ?",
                (_ts(invalid_at), _ts(expired_at), superseded_by, fact_id),
            )

    def kg_add_fact_source(self, fact_id: str, memory_id: str) -> None:
        with self.transaction():
            self._run("INSERT OR IGNORE INTO fact_sources (fact_id, memory_id) VALUES (?, ?)", (fact_id, memory_id))

    def _facts_ranked(self, terms: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """(id, score) of the facts whose terms match any of ``terms`` and ``where``, best first (FTS5's BM25)."""
        return self._read(
            "SELECT f.id, -bm25(facts_fts) FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid"
            f" WHERE facts_fts MATCH ? AND {where} ORDER BY bm25(facts_fts) LIMIT ?",
            (_match(terms), *params, limit),
        )

    def _facts_touching(self, entity_ids: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """Rows of :data:`knowledge_sql.FACT_FROM` for facts whose subject or object is one of ``entity_ids``."""
        return self._rows_by_ids(
            f"SELECT {_FACT} FROM {_FACT_FROM} WHERE (f.subject_id IN ({{ids}}) OR f.object_id IN ({{ids}}))"
            f" AND {where} ORDER BY f.id DESC LIMIT ?",
            entity_ids,
            lambda batch: (*batch, *batch, *params, limit),
        )

    def kg_delete_orphans(self, entity_ids: Sequence[str]) -> int:
        """Delete those of these entities that no memory mentions and no fact joins; returns how many."""
        gone = 0
        with self.transaction():
            for eid in dict.fromkeys(entity_ids):
                row = self._run(
                    "DELETE FROM entities WHERE id = ?1"
                    " AND NOT EXISTS (SELECT 1 FROM entity_mentions WHERE entity_id = ?1)"
                    " AND NOT EXISTS (SELECT 1 FROM facts WHERE subject_id = ?1 OR object_id = ?1) RETURNING workspace, norm, rowid",
                    (eid,),
                ).fetchall()
                if row:
                    self._drop_grams(*row[0])
                    gone += 1
        return gone

    def kg_delete_fact(self, fact_id: str) -> bool:
        with self.transaction():
            return self._run("DELETE FROM facts WHERE id = ?", (fact_id,)).rowcount > 0

    def kg_clear(self, workspace: str | None) -> tuple[int, int]:
        """Delete the graph of one workspace (or everything with ``*``); returns (entities, facts) deleted."""
        where, params = ("1", []) if workspace == ALL_WORKSPACES else ("workspace = ?", [workspace or ""])
        with self.transaction():
            facts = self._run(f"DELETE FROM facts WHERE {where}", params).rowcount
            self._run(f"DELETE FROM communities WHERE {where}", params)
            self._run(f"DELETE FROM community_dirty WHERE {where}", params)
            entities = self._run(f"DELETE FROM entities WHERE {where}", params).rowcount
            self._run(f"DELETE FROM entity_grams WHERE {where}", params)
        return entities, facts

    # -- communities ----------------------------------------------------------
    def kg_swap_communities(
        self, workspace: str | None, drop: Sequence[str], groups: Sequence[tuple[Community, Sequence[str]]], at: datetime
    ) -> None:
        """Delete the communities ``drop`` and insert ``groups`` (the incremental half of a rebuild)."""
        with self.transaction():
            self._rows_by_ids("DELETE FROM communities WHERE id IN ({ids})", drop)
            for c, member_ids in groups:
                self._run(
                    "INSERT INTO communities (id, workspace, name, summary, size, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (c.id, workspace or "", c.name, c.summary, len(member_ids), to_text(at)),
                )
                for eid in member_ids:
                    self._run("INSERT OR REPLACE INTO community_members (entity_id, community_id) VALUES (?, ?)", (eid, c.id))

    def kg_mark_dirty(self, entity_ids: Iterable[str], workspace: str | None) -> None:
        """Note entities whose facts changed, so their communities are recomputed on the next refresh."""
        with self.transaction():
            for eid in dict.fromkeys(entity_ids):
                self._run("INSERT OR IGNORE INTO community_dirty (entity_id, workspace) VALUES (?, ?)", (eid, workspace or ""))

    def _community_rows(self, where: str, params: list[Any]) -> list[tuple[Community, list[str]]]:
        """Communities aliased ``c`` that meet ``where``, largest first, each with its members' ids."""
        with self._reads:
            rows = self._run(
                f"SELECT c.id, c.workspace, c.name, c.summary FROM communities c WHERE {where} ORDER BY c.size DESC, c.id",
                params,
            ).fetchall()
            out = []
            for r in rows:
                members = [m[0] for m in self._run(
                    "SELECT entity_id FROM community_members WHERE community_id = ? ORDER BY entity_id", (r[0],)
                ).fetchall()]
                out.append((Community(r[0], r[1] or None, r[2], r[3], ()), members))
        return out

    # -- the LLM extraction queue ---------------------------------------------
    def kg_enqueue(self, memory_ids: Sequence[str], at: datetime) -> None:
        with self.transaction():
            for mid in memory_ids:
                self._run(
                    "INSERT OR IGNORE INTO extraction_queue (memory_id, status, attempts, enqueued_at, updated_at, available_at)"
                    " VALUES (?, 'pending', 0, ?, ?, ?)",
                    (mid, to_text(at), to_text(at), to_text(at)),
                )

    def _mark_running(self, memory_ids: Sequence[str], at: datetime) -> None:
        """Claimed items: running, one more attempt (in the claim's transaction)."""
        for mid in memory_ids:
            self._run(
                "UPDATE extraction_queue SET status = 'running', attempts = attempts + 1, updated_at = ? WHERE memory_id = ?",
                (to_text(at), mid),
            )
