"""The knowledge-graph half of the PostgreSQL store (a mixin of ``PostgresStore``).

The same capabilities as store/sqlite/knowledge.py, method for method, in
PostgreSQL's SQL: ``= ANY(%s)`` for id lists, ``ON CONFLICT`` for SQLite's
``OR IGNORE`` / ``OR REPLACE``, tsvector + ``ts_rank`` for FTS5's ``bm25()``,
the workspace of every row a key names. What both engines run alike is
written once in store/knowledge_sql.py (``KnowledgeSql``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.knowledge.models import Community, Entity, Fact
from knotwork.knowledge.resolve import search_terms
from knotwork.store import knowledge_sql
from knotwork.store.postgres.rows import WORKSPACE_OF_ENTITY, WORKSPACE_OF_FACT, WORKSPACE_OF_MEMORY
from knotwork.store.where import POSTGRES

_FACT = knowledge_sql.fact_columns(POSTGRES)
_FACT_FROM = knowledge_sql.FACT_FROM
# ts_rank's weights for D, C, B, A: an entity's name terms (A) weigh three times its summary (D).
_ENTITY_WEIGHTS = "'{0.333, 0.2, 0.4, 1.0}'"


def _tsquery(terms: Sequence[str]) -> str:
    return "(SELECT " + " || ".join(["plainto_tsquery('knotwork_english', %s)"] * len(terms)) + " AS q) AS tq"


class KnowledgeStore:
    """Mixed into ``PostgresStore``: relies on its ``_run``, ``_run_many``, ``_rows_by_ids`` and ``transaction``."""

    _run: Any
    _run_many: Any
    _move_facts: Any
    _rows_by_ids: Any
    transaction: Any

    # -- cross-scope references -----------------------------------------------------
    # Rows of any workspace that name an entity, a fact or a community of another through a reference of their
    # own (see migrations/0008_workspace_keys.sql): cleared by the store before what they name is deleted, so
    # that nothing depends on foreign keys a deployment distributed by workspace cannot keep.
    def _forget_facts(self, fact_ids: Sequence[str]) -> None:
        self._rows_by_ids(
            "UPDATE facts SET superseded_workspace = NULL, superseded_by = NULL WHERE superseded_by = ANY(%s)", fact_ids
        )

    def _forget_entities(self, entity_ids: Sequence[str]) -> None:
        if not entity_ids:
            return
        ids = list(dict.fromkeys(entity_ids))
        facts = [r[0] for r in self._run("SELECT id FROM facts WHERE subject_id = ANY(%s) OR object_id = ANY(%s)", (ids, ids))]
        self._forget_facts(facts)
        self._rows_by_ids("DELETE FROM facts WHERE id = ANY(%s)", facts)
        for table in ("entity_mentions", "entity_aliases"):  # members live in their entity's workspace: keys cascade
            self._rows_by_ids(f"DELETE FROM {table} WHERE entity_id = ANY(%s)", ids)

    def _forget_communities(self, community_ids: Sequence[str]) -> None:
        self._rows_by_ids("DELETE FROM community_members WHERE community_id = ANY(%s)", community_ids)

    # -- entities -------------------------------------------------------------
    def kg_lookup_norms(self, workspace: str | None, norms: Sequence[str]) -> dict[str, str]:
        """Entity id for each normalised name (own name first, then aliases) in exactly this workspace."""
        out: dict[str, str] = {}
        ws = workspace or ""
        for table, column in (("entity_aliases", "entity_id"), ("entities", "id")):
            out.update(self._rows_by_ids(f"SELECT norm, {column} FROM {table} WHERE norm = ANY(%s) AND workspace = %s", norms, ws))
        return out

    def kg_insert_entity(self, e: Entity, norm: str, grams: Iterable[str], note: str = "", terms: str | None = None) -> None:
        """A new entity; ``terms`` (its words for full-text search) default to its name's."""
        words = search_terms(e.name) if terms is None else terms
        with self.transaction():
            self._run(
                "INSERT INTO entities (id, workspace, name, norm, type, summary, note, terms, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (e.id, e.workspace or "", e.name, norm, e.type, e.summary, note, words, e.created_at, e.updated_at),
            )
            self._run_many(
                "INSERT INTO entity_grams (workspace, gram, entity_id) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(e.workspace or "", g, e.id) for g in dict.fromkeys(grams)],
            )

    def _gram_rows(self, workspace: str | None, grams: Sequence[str], limit: int, after: str | None) -> list[Any]:
        """(entity id, trigrams shared) for :meth:`KnowledgeSql.kg_gram_candidates`."""
        since, extra = ("AND entity_id > %s", [after]) if after else ("", [])
        return self._run(
            f"SELECT entity_id, count(*) AS n FROM entity_grams WHERE workspace = %s AND gram = ANY(%s) {since}"
            " GROUP BY entity_id ORDER BY n DESC, entity_id LIMIT %s",
            (workspace or "", list(grams), *extra, limit),
        ).fetchall()

    def kg_gram_counts(self, entity_ids: Sequence[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for eid, gram in self._rows_by_ids("SELECT entity_id, gram FROM entity_grams WHERE entity_id = ANY(%s)", entity_ids):
            out.setdefault(eid, set()).add(gram)
        return out

    def kg_put_entity_vector(self, entity_id: str, blob: bytes) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO entity_vectors (workspace, entity_id, seq, vector)"
                f" VALUES ({WORKSPACE_OF_ENTITY}, %s, nextval('entity_vectors_seq'), %s)"
                " ON CONFLICT (workspace, entity_id) DO UPDATE SET seq = excluded.seq, vector = excluded.vector",
                (entity_id, entity_id, blob),
            )

    def kg_vectors_of(self, entity_ids: Sequence[str]) -> dict[str, bytes]:
        """The name vector of each of these entities that has one."""
        rows = self._rows_by_ids("SELECT entity_id, vector FROM entity_vectors WHERE entity_id = ANY(%s)", entity_ids)
        return {r[0]: bytes(r[1]) for r in rows}

    def kg_entity_vectors(self, after_rowid: int = 0) -> list[tuple[int, str, str, bytes]]:
        """(seq, entity id, workspace, vector) of entity vectors written after ``after_rowid``."""
        rows = self._run(
            "SELECT v.seq, v.entity_id, v.workspace, v.vector FROM entity_vectors v WHERE v.seq > %s ORDER BY v.seq",
            (after_rowid,),
        )
        return [(s, eid, ws, bytes(blob)) for s, eid, ws, blob in rows]

    def kg_add_alias(self, workspace: str | None, norm: str, alias: str, entity_id: str, index: bool = True) -> None:
        """A new alias; ``index``: its words join the entity's terms (False: the terms are already complete)."""
        with self.transaction():
            added = self._run(
                "INSERT INTO entity_aliases (workspace, norm, alias, entity_workspace, entity_id)"
                f" VALUES (%s, %s, %s, {WORKSPACE_OF_ENTITY}, %s) ON CONFLICT DO NOTHING",
                (workspace or "", norm, alias, entity_id, entity_id),
            ).rowcount
            if added and index:
                self._run("UPDATE entities SET terms = terms || ' ' || %s WHERE id = %s", (search_terms(alias), entity_id))

    def kg_add_mentions(self, memory_id: str, entity_ids: Iterable[str]) -> None:
        with self.transaction():
            self._run_many(
                "INSERT INTO entity_mentions (workspace, memory_id, entity_workspace, entity_id)"
                f" VALUES ({WORKSPACE_OF_MEMORY}, %s, {WORKSPACE_OF_ENTITY}, %s) ON CONFLICT DO NOTHING",
                [(memory_id, memory_id, eid, eid) for eid in dict.fromkeys(entity_ids)],
            )

    def kg_degree(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Facts plus mentions per entity: how connected it is."""
        out = dict.fromkeys(entity_ids, 0)
        rows = self._rows_by_ids(
            "SELECT e, (SELECT count(*) FROM facts WHERE subject_id = e OR object_id = e)"
            " + (SELECT count(*) FROM entity_mentions WHERE entity_id = e) FROM unnest(%s::text[]) AS e",
            list(out),
        )
        out.update({r[0]: r[1] for r in rows})
        return out

    def kg_merge_entities(self, keep: str, drop: str) -> None:
        """Move everything of ``drop`` onto ``keep`` and delete ``drop`` (its own name becomes an alias)."""
        with self.transaction():
            row = self._run("SELECT workspace, norm, name, terms FROM entities WHERE id = %s", (drop,)).fetchone()
            self._move_facts(keep, drop)
            loops = [r[0] for r in self._run("SELECT id FROM facts WHERE subject_id = object_id AND subject_id = %s", (keep,))]
            self._forget_facts(loops)
            self._rows_by_ids("DELETE FROM facts WHERE id = ANY(%s)", loops)
            self._run(
                "INSERT INTO entity_mentions (workspace, memory_id, entity_workspace, entity_id)"
                f" SELECT workspace, memory_id, {WORKSPACE_OF_ENTITY}, %s FROM entity_mentions"
                " WHERE entity_id = %s ON CONFLICT DO NOTHING",
                (keep, keep, drop),
            )
            self._run("UPDATE entity_aliases SET entity_id = %s WHERE entity_id = %s", (keep, drop))
            self._forget_entities([drop])
            self._run("DELETE FROM entities WHERE id = %s", (drop,))
            if row:
                self._run(
                    "INSERT INTO entity_aliases (workspace, norm, alias, entity_workspace, entity_id)"
                    f" VALUES (%s, %s, %s, {WORKSPACE_OF_ENTITY}, %s) ON CONFLICT (workspace, norm) DO UPDATE"
                    " SET alias = excluded.alias, entity_workspace = excluded.entity_workspace, entity_id = excluded.entity_id",
                    (row[0], row[1], row[2], keep, keep),
                )
                self._run("UPDATE entities SET terms = terms || ' ' || %s WHERE id = %s", (row[3], keep))
            self.kg_refresh_fact_text([keep])

    def _entities_ranked(self, terms: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """(id, score) of the entities whose text vector matches any of ``terms`` and ``where``, best first."""
        return self._run(
            f"SELECT e.id, ts_rank({_ENTITY_WEIGHTS}, e.tsv, tq.q) AS r FROM entities e, {_tsquery(terms)}"
            f" WHERE e.tsv @@ tq.q AND {where} ORDER BY r DESC, e.id LIMIT %s",
            (*terms, *params, limit),
        ).fetchall()

    def kg_insert_fact(self, f: Fact) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO facts (id, workspace, subject_workspace, subject_id, predicate, object_workspace, object_id, fact,"
                " terms, valid_at, invalid_at, created_at, expired_at, superseded_workspace, superseded_by, origin, confidence)"
                f" VALUES (%s, %s, {WORKSPACE_OF_ENTITY}, %s, %s, {WORKSPACE_OF_ENTITY}, %s, %s, %s, %s, %s, %s, %s,"
                f" {WORKSPACE_OF_FACT}, %s, %s, %s)",
                (
                    f.id, f.workspace or "", f.subject_id, f.subject_id, f.predicate, f.object_id, f.object_id, f.fact,
                    search_terms(f.fact), f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.superseded_by,
                    f.superseded_by, f.extractor, f.confidence,
                ),
            )
            self._run_many(
                f"INSERT INTO fact_sources (workspace, fact_id, memory_workspace, memory_id) VALUES (%s, %s, {WORKSPACE_OF_MEMORY}, %s)"
                " ON CONFLICT DO NOTHING",
                [(f.workspace or "", f.id, mid, mid) for mid in dict.fromkeys(f.sources)],
            )

    def kg_retire_fact(self, fact_id: str, invalid_at: datetime | None, expired_at: datetime | None, superseded_by: str | None) -> None:
        with self.transaction():
            self._run(
                "UPDATE facts SET invalid_at = %s, expired_at = %s,"
                f" superseded_workspace = {WORKSPACE_OF_FACT}, superseded_by = %s WHERE id = %s",
                (invalid_at, expired_at, superseded_by, superseded_by, fact_id),
            )

    def kg_add_fact_source(self, fact_id: str, memory_id: str) -> None:
        with self.transaction():
            self._run(
                "INSERT INTO fact_sources (workspace, fact_id, memory_workspace, memory_id)"
                f" VALUES ({WORKSPACE_OF_FACT}, %s, {WORKSPACE_OF_MEMORY}, %s) ON CONFLICT DO NOTHING",
                (fact_id, fact_id, memory_id, memory_id),
            )

    def _facts_ranked(self, terms: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """(id, score) of the facts whose text vector matches any of ``terms`` and ``where``, best first."""
        return self._run(
            f"SELECT f.id, ts_rank(f.tsv, tq.q) AS r FROM facts f, {_tsquery(terms)}"
            f" WHERE f.tsv @@ tq.q AND {where} ORDER BY r DESC, f.id LIMIT %s",
            (*terms, *params, limit),
        ).fetchall()

    def _facts_touching(self, entity_ids: Sequence[str], where: str, params: list[Any], limit: int) -> list[Any]:
        """Rows of :data:`knowledge_sql.FACT_FROM` for facts whose subject or object is one of ``entity_ids``."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        return self._run(
            f"SELECT {_FACT} FROM {_FACT_FROM} WHERE (f.subject_id = ANY(%s) OR f.object_id = ANY(%s))"
            f" AND {where} ORDER BY f.id DESC LIMIT %s",
            (ids, ids, *params, limit),
        ).fetchall()

    def kg_delete_orphans(self, entity_ids: Sequence[str]) -> int:
        """Delete those of these entities that no memory mentions and no fact joins; returns how many."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return 0
        with self.transaction():
            orphans = [r[0] for r in self._run(
                "SELECT e.id FROM entities e WHERE e.id = ANY(%s)"
                " AND NOT EXISTS (SELECT 1 FROM entity_mentions WHERE entity_id = e.id)"
                " AND NOT EXISTS (SELECT 1 FROM facts WHERE subject_id = e.id OR object_id = e.id)",
                (ids,),
            )]
            self._forget_entities(orphans)
            return len(self._rows_by_ids("DELETE FROM entities WHERE id = ANY(%s) RETURNING id", orphans))

    def kg_delete_fact(self, fact_id: str) -> bool:
        with self.transaction():
            self._forget_facts([fact_id])
            return self._run("DELETE FROM facts WHERE id = %s", (fact_id,)).rowcount > 0

    def kg_clear(self, workspace: str | None) -> tuple[int, int]:
        """Delete the graph of one workspace (or everything with ``*``); returns (entities, facts) deleted."""
        where, params = ("TRUE", []) if workspace == ALL_WORKSPACES else ("workspace = %s", [workspace or ""])
        with self.transaction():
            self._forget_facts([r[0] for r in self._run(f"SELECT id FROM facts WHERE {where}", params)])
            facts = self._run(f"DELETE FROM facts WHERE {where}", params).rowcount
            self._forget_entities([r[0] for r in self._run(f"SELECT id FROM entities WHERE {where}", params)])
            self._forget_communities([r[0] for r in self._run(f"SELECT id FROM communities WHERE {where}", params)])
            self._run(f"DELETE FROM communities WHERE {where}", params)
            self._run(f"DELETE FROM community_dirty WHERE {where}", params)
            entities = self._run(f"DELETE FROM entities WHERE {where}", params).rowcount
        return entities, facts

    # -- communities ----------------------------------------------------------
    def kg_swap_communities(
        self, workspace: str | None, drop: Sequence[str], groups: Sequence[tuple[Community, Sequence[str]]], at: datetime
    ) -> None:
        """Delete the communities ``drop`` and insert ``groups`` (the incremental half of a rebuild)."""
        with self.transaction():
            self._forget_communities(drop)
            self._rows_by_ids("DELETE FROM communities WHERE id = ANY(%s)", drop)
            self._run_many(
                "INSERT INTO communities (id, workspace, name, summary, size, created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                [(c.id, workspace or "", c.name, c.summary, len(member_ids), at) for c, member_ids in groups],
            )
            self._run_many(
                "INSERT INTO community_members (workspace, entity_id, community_workspace, community_id)"
                f" VALUES ({WORKSPACE_OF_ENTITY}, %s, %s, %s) ON CONFLICT (workspace, entity_id)"
                " DO UPDATE SET community_workspace = excluded.community_workspace, community_id = excluded.community_id",
                [(eid, eid, workspace or "", c.id) for c, member_ids in groups for eid in member_ids],
            )

    def kg_mark_dirty(self, entity_ids: Iterable[str], workspace: str | None) -> None:
        """Note entities whose facts changed, so their communities are recomputed on the next refresh."""
        with self.transaction():
            self._run_many(
                "INSERT INTO community_dirty (entity_id, workspace) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                [(eid, workspace or "") for eid in dict.fromkeys(entity_ids)],
            )

    def _community_rows(self, where: str, params: list[Any]) -> list[tuple[Community, list[str]]]:
        """Communities aliased ``c`` that meet ``where``, largest first, each with its members' ids."""
        rows = self._run(
            "SELECT c.id, c.workspace, c.name, c.summary,"
            " (SELECT array_agg(entity_id ORDER BY entity_id) FROM community_members m WHERE m.community_id = c.id)"
            f" FROM communities c WHERE {where} ORDER BY c.size DESC, c.id",
            params,
        )
        return [(Community(r[0], r[1] or None, r[2], r[3], ()), list(r[4] or ())) for r in rows]

    # -- the LLM extraction queue ---------------------------------------------
    def kg_enqueue(self, memory_ids: Sequence[str], at: datetime) -> None:
        with self.transaction():
            self._run_many(
                "INSERT INTO extraction_queue (workspace, memory_id, status, attempts, enqueued_at, updated_at, available_at)"
                f" VALUES ({WORKSPACE_OF_MEMORY}, %s, 'pending', 0, %s, %s, %s) ON CONFLICT DO NOTHING",
                [(mid, mid, at, at, at) for mid in dict.fromkeys(memory_ids)],
            )

    def _mark_running(self, memory_ids: Sequence[str], at: datetime) -> None:
        """Claimed items: running, one more attempt (in the claim's transaction)."""
        if memory_ids:
            self._run(
                "UPDATE extraction_queue SET status = 'running', attempts = attempts + 1, updated_at = %s WHERE memory_id = ANY(%s)",
                (at, list(memory_ids)),
            )
