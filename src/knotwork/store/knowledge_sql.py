"""The knowledge graph's queries that both stores run alike, written once in the store's dialect.

A mixin of ``SQLiteStore`` and ``PostgresStore`` (after each engine's own ``KnowledgeStore``, which keeps what
is truly its own: the inserts that name a row's workspace in PostgreSQL's keys, the trigram index, full-text
ranking, the deletes that clear cross-scope references first). What differs between the twins here is only
the dialect (``store/where.py``: placeholder, time binding and reading, list aggregation, a text's end, NULL
order, an id list) and three helpers of each store: ``_read`` (the rows of one read, under SQLite's read lock),
``_rows_by_ids`` (a column tested against a list of ids, the dialect's ``ids_in``, in batches for SQLite) and
``_run`` inside ``transaction``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from knotwork.domain.models import ALL_WORKSPACES
from knotwork.knowledge.models import Community, Entity, Fact, QueueItem
from knotwork.knowledge.resolve import search_terms
from knotwork.store.where import Dialect

ENTITY = "e.id, e.workspace, e.name, e.type, e.summary, e.created_at, e.updated_at"
FACT_FROM = "facts f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id"


def fact_columns(d: Dialect) -> str:
    """The columns :func:`fact_row` reads (``f`` the fact, ``s`` and ``o`` its entities: :data:`FACT_FROM`)."""
    return (
        "f.id, f.workspace, f.subject_id, s.name, f.predicate, f.object_id, o.name, f.fact, f.valid_at, f.invalid_at,"
        " f.created_at, f.expired_at, f.superseded_by, f.origin, f.confidence,"
        f" (SELECT {d.gather.format(col='memory_id')} FROM fact_sources x WHERE x.fact_id = f.id)"
    )


def fact_row(row: Sequence[Any], d: Dialect) -> Fact:
    return Fact(
        id=row[0],
        workspace=row[1] or None,
        subject_id=row[2],
        subject=row[3],
        predicate=row[4],
        object_id=row[5],
        object=row[6],
        fact=row[7],
        valid_at=d.read_opt(row[8]),
        invalid_at=d.read_opt(row[9]),
        created_at=d.read_time(row[10]),
        expired_at=d.read_opt(row[11]),
        superseded_by=row[12],
        extractor=row[13],
        confidence=float(row[14]),
        sources=tuple(sorted(d.split(row[15]))) if row[15] else (),
    )


def scope_sql(workspace: str | None, column: str, d: Dialect) -> tuple[str, list[Any]]:
    """Rows a caller in ``workspace`` may see: W and global, global only, or all (``*``)."""
    if workspace == ALL_WORKSPACES:
        return d.true, []
    if workspace:
        return f"{column} IN ('', {d.mark})", [workspace]
    return f"{column} = ''", []


def time_sql(at: datetime | None, include_invalid: bool, d: Dialect, alias: str = "f") -> tuple[str, list[Any]]:
    """Facts true at world time ``at`` (or every fact when ``include_invalid``)."""
    if include_invalid or at is None:
        return d.true, []
    q, t = d.mark, d.time(at)
    return f"({alias}.valid_at IS NULL OR {alias}.valid_at <= {q}) AND ({alias}.invalid_at IS NULL OR {alias}.invalid_at > {q})", [t, t]


class KnowledgeSql:
    """The graph's methods both stores share (see the module's docstring)."""

    _dialect: Dialect
    _read: Any
    _run: Any
    _run_many: Any
    _rows_by_ids: Any
    transaction: Any
    # the engine's own: its writes, its full-text ranking, its id lists
    kg_swap_communities: Any
    _entities_ranked: Any
    _facts_ranked: Any
    _facts_touching: Any
    _community_rows: Any
    _mark_running: Any
    _gram_rows: Any

    # -- entities -------------------------------------------------------------
    def kg_update_entity(self, entity_id: str, at: datetime, **values: Any) -> None:
        """Set ``type``, ``summary`` or ``note`` of an entity."""
        if not values:
            return
        q = self._dialect.mark
        sets = ", ".join(f"{k} = {q}" for k in values)
        with self.transaction():
            self._run(f"UPDATE entities SET {sets}, updated_at = {q} WHERE id = {q}", (*values.values(), self._dialect.time(at), entity_id))

    def kg_entity_rows(self, entity_ids: Sequence[str]) -> dict[str, tuple[Entity, str]]:
        """(entity, note) by id, with aliases and mention counts."""
        d = self._dialect
        out: dict[str, tuple[Entity, str]] = {}
        rows = self._rows_by_ids(
            f"SELECT {ENTITY}, e.note,"
            f" (SELECT {d.gather.format(col='alias')} FROM entity_aliases a WHERE a.entity_id = e.id),"
            " (SELECT count(*) FROM entity_mentions m WHERE m.entity_id = e.id)"
            f" FROM entities e WHERE e.id {self._dialect.ids_in}",
            entity_ids,
        )
        for r in rows:
            aliases = tuple(sorted(d.split(r[8]))) if r[8] else ()
            entity = Entity(r[0], r[1] or None, r[2], r[3], r[4], d.read_time(r[5]), d.read_time(r[6]), aliases, r[9])
            out[r[0]] = (entity, r[7])
        return out

    def kg_entity_ids(self) -> list[str]:
        """Every entity id, in id order (time of creation)."""
        return [r[0] for r in self._read("SELECT id FROM entities ORDER BY id")]

    def kg_entity_terms(self, entity_ids: Sequence[str]) -> dict[str, str]:
        """The words full-text search knows each entity by (its name's and its aliases')."""
        return dict(self._rows_by_ids(f"SELECT id, terms FROM entities WHERE id {self._dialect.ids_in}", entity_ids))

    def kg_get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]:
        return {k: v[0] for k, v in self.kg_entity_rows(entity_ids).items()}

    def kg_entity_names(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(name, summary) by entity id: what a search's ``about`` relations show, without the aliases and the
        mention counts of :meth:`kg_get_entities` (counting an entity's mentions reads every one of them)."""
        rows = self._rows_by_ids(f"SELECT id, name, summary FROM entities WHERE id {self._dialect.ids_in}", entity_ids)
        return {r[0]: (r[1], r[2]) for r in rows}

    def kg_entity_aliases(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
        """(name, aliases) by entity id: the names a text may call each entity by, without the mention counts of
        :meth:`kg_get_entities` (counting an entity's mentions reads every one of them)."""
        d = self._dialect
        rows = self._rows_by_ids(
            f"SELECT e.id, e.name, (SELECT {d.gather.format(col='alias')} FROM entity_aliases a WHERE a.entity_id = e.id)"
            f" FROM entities e WHERE e.id {self._dialect.ids_in}",
            entity_ids,
        )
        return {r[0]: (r[1], tuple(sorted(d.split(r[2]))) if r[2] else ()) for r in rows}

    def kg_entity_notes(self, entity_ids: Sequence[str]) -> dict[str, tuple[str | None, str, str]]:
        """(type, caller's note, summary) by entity id: the cheap read ingest needs."""
        rows = self._rows_by_ids(f"SELECT id, type, note, summary FROM entities WHERE id {self._dialect.ids_in}", entity_ids)
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def kg_entities_by_norm(self, workspace: str | None, norm: str) -> list[str]:
        """Ids of entities in scope whose name or alias normalises to ``norm``."""
        q = self._dialect.mark
        where, params = scope_sql(workspace, "workspace", self._dialect)
        rows = self._read(
            f"SELECT id FROM entities WHERE norm = {q} AND {where}"
            f" UNION SELECT entity_id FROM entity_aliases WHERE norm = {q} AND {where}",
            (norm, *params, norm, *params),
        )
        return [r[0] for r in rows]

    def kg_entities_by_prefix(self, workspace: str | None, prefix: str, limit: int = 64) -> list[tuple[str, str, str | None]]:
        """(id, name, type) of the entities of exactly this workspace whose normalised name starts with ``prefix``
        (but is longer): the full names a given name may stand for."""
        q = self._dialect.mark
        rows = self._read(
            f"SELECT id, name, type FROM entities WHERE workspace = {q} AND norm > {q} AND norm < {q} ORDER BY norm LIMIT {q}",
            (workspace or "", prefix, prefix + "\uffff", limit),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def kg_gram_candidates(
        self, workspace: str | None, grams: Sequence[str], limit: int = 8, after: str | None = None
    ) -> list[tuple[str, int]]:
        """(entity id, trigrams shared) for entities of exactly this workspace, most shared first.

        ``after``: only entities whose id sorts after it (created later).
        """
        return self._gram_rows(workspace, grams, limit, after) if grams else []

    def _resolve_ref(self, table: str, ref: str, limit: int) -> list[str]:
        """Ids in ``table`` that start or end with ``ref``."""
        q = self._dialect.mark
        ends = self._dialect.ends.format(col="id", mark=q)
        rows = self._read(
            f"SELECT id FROM {table} WHERE (id >= {q} AND id < {q}) OR {ends} ORDER BY id LIMIT {q}",
            (ref, ref + "~", ref, ref, limit),
        )
        return [r[0] for r in rows]

    def kg_resolve_entity_ref(self, ref: str, limit: int = 11) -> list[str]:
        return self._resolve_ref("entities", ref, limit)

    def kg_entities_fts(self, terms: Sequence[str], workspace: str | None, limit: int) -> list[tuple[str, float]]:
        if not terms:
            return []
        where, params = scope_sql(workspace, "e.workspace", self._dialect)
        return [(r[0], float(r[1])) for r in self._entities_ranked(terms, where, params, limit)]

    def _move_facts(self, keep: str, drop: str) -> None:
        """The facts of ``drop`` become ``keep``'s (in the transaction of a merge)."""
        q = self._dialect.mark
        self._run(f"UPDATE facts SET subject_id = {q} WHERE subject_id = {q}", (keep, drop))
        self._run(f"UPDATE facts SET object_id = {q} WHERE object_id = {q}", (keep, drop))

    # -- facts ----------------------------------------------------------------
    def kg_refresh_fact_text(self, entity_ids: Sequence[str]) -> None:
        """The text (and its search terms) of every fact of these entities made again from their names."""
        q = self._dialect.mark
        with self.transaction():
            for eid in entity_ids:
                rows = self._run(
                    "SELECT f.id, s.name || ' ' || replace(f.predicate, '_', ' ') || ' ' || o.name FROM facts f"
                    " JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id"
                    f" WHERE f.subject_id = {q} OR f.object_id = {q}",
                    (eid, eid),
                ).fetchall()
                self._run_many(
                    f"UPDATE facts SET fact = {q}, terms = {q} WHERE id = {q}", [(text, search_terms(text), fid) for fid, text in rows]
                )

    def kg_restart_fact(self, fact_id: str, valid_at: datetime) -> None:
        """The fact holds from ``valid_at`` (an earlier start, stated by another memory)."""
        q = self._dialect.mark
        with self.transaction():
            self._run(f"UPDATE facts SET valid_at = {q} WHERE id = {q}", (self._dialect.opt_time(valid_at), fact_id))

    def kg_raise_confidence(self, fact_id: str, confidence: float) -> None:
        """The fact's confidence becomes ``confidence`` if that is higher (another source stated it too)."""
        q = self._dialect.mark
        with self.transaction():
            self._run(f"UPDATE facts SET confidence = {q} WHERE id = {q} AND confidence < {q}", (confidence, fact_id, confidence))

    def kg_facts_of(self, subject_id: str, predicate: str) -> list[Fact]:
        """Every fact (current or retired) with this subject and predicate, oldest first."""
        d = self._dialect
        rows = self._read(
            f"SELECT {fact_columns(d)} FROM {FACT_FROM} WHERE f.subject_id = {d.mark} AND f.predicate = {d.mark}"
            f" ORDER BY f.valid_at{d.nulls_first}, f.id",
            (subject_id, predicate),
        )
        return [fact_row(r, d) for r in rows]

    def kg_get_facts(self, fact_ids: Sequence[str]) -> dict[str, Fact]:
        d = self._dialect
        rows = self._rows_by_ids(f"SELECT {fact_columns(d)} FROM {FACT_FROM} WHERE f.id {self._dialect.ids_in}", fact_ids)
        return {r[0]: fact_row(r, d) for r in rows}

    def kg_fact_ids(self) -> list[str]:
        """Every fact id, in id order (time of creation)."""
        return [r[0] for r in self._read("SELECT id FROM facts ORDER BY id")]

    def kg_resolve_fact_ref(self, ref: str, limit: int = 11) -> list[str]:
        return self._resolve_ref("facts", ref, limit)

    def kg_facts_fts(
        self, terms: Sequence[str], workspace: str | None, at: datetime | None, include_invalid: bool, limit: int
    ) -> list[tuple[str, float]]:
        if not terms:
            return []
        where, params = scope_sql(workspace, "f.workspace", self._dialect)
        when, tparams = time_sql(at, include_invalid, self._dialect)
        return [(r[0], float(r[1])) for r in self._facts_ranked(terms, f"{where} AND {when}", [*params, *tparams], limit)]

    def kg_facts_touching(
        self, entity_ids: Sequence[str], workspace: str | None = ALL_WORKSPACES, at: datetime | None = None,
        include_invalid: bool = True, limit: int = 10_000,
    ) -> list[Fact]:
        """Facts whose subject or object is one of ``entity_ids``."""
        where, params = scope_sql(workspace, "f.workspace", self._dialect)
        when, tparams = time_sql(at, include_invalid, self._dialect)
        rows = self._facts_touching(entity_ids, f"{where} AND {when}", [*params, *tparams], limit)
        return [fact_row(r, self._dialect) for r in rows]

    def kg_facts_only_from(self, memory_id: str, also: str | None = None) -> list[str]:
        """Facts whose only source is this memory (or this memory and ``also``)."""
        q = self._dialect.mark
        rows = self._read(
            f"SELECT fact_id FROM fact_sources s WHERE memory_id = {q} AND NOT EXISTS"
            f" (SELECT 1 FROM fact_sources o WHERE o.fact_id = s.fact_id AND o.memory_id NOT IN ({q}, {q}))",
            (memory_id, memory_id, also if also is not None else memory_id),
        )
        return [r[0] for r in rows]

    def kg_edges(self, workspace: str | None, at: datetime) -> list[tuple[str, str]]:
        """(subject id, object id) of the facts true at ``at`` in exactly this workspace."""
        when, tparams = time_sql(at, False, self._dialect)
        rows = self._read(
            f"SELECT f.subject_id, f.object_id FROM facts f WHERE f.workspace = {self._dialect.mark} AND {when}",
            (workspace or "", *tparams),
        )
        return [tuple(r) for r in rows]

    # -- episodes -------------------------------------------------------------
    def kg_mentions(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity ids each memory mentions."""
        out: dict[str, list[str]] = {}
        rows = self._rows_by_ids(f"SELECT memory_id, entity_id FROM entity_mentions WHERE memory_id {self._dialect.ids_in}", memory_ids)
        for mid, eid in sorted(rows):
            out.setdefault(mid, []).append(eid)
        return out

    def kg_fact_counts(self, memory_ids: Sequence[str]) -> dict[str, int]:
        sql = f"SELECT memory_id, count(*) FROM fact_sources WHERE memory_id {self._dialect.ids_in} GROUP BY memory_id"
        return dict(self._rows_by_ids(sql, memory_ids))

    # -- communities ----------------------------------------------------------
    def kg_replace_communities(
        self, workspace: str | None, groups: Sequence[tuple[Community, Sequence[str]]], at: datetime
    ) -> None:
        """Every community of the workspace replaced by ``groups``."""
        with self.transaction():
            rows = self._run(f"SELECT id FROM communities WHERE workspace = {self._dialect.mark}", (workspace or "",))
            self.kg_swap_communities(workspace, [r[0] for r in rows.fetchall()], groups, at)

    def kg_dirty(self, workspace: str | None) -> list[str]:
        return [r[0] for r in self._read(f"SELECT entity_id FROM community_dirty WHERE workspace = {self._dialect.mark}", (workspace or "",))]

    def kg_dirty_workspaces(self) -> list[str]:
        return [r[0] for r in self._read("SELECT DISTINCT workspace FROM community_dirty ORDER BY workspace")]

    def kg_clear_dirty(self, workspace: str | None, entity_ids: Sequence[str] | None = None) -> None:
        with self.transaction():
            if entity_ids is None:
                self._run(f"DELETE FROM community_dirty WHERE workspace = {self._dialect.mark}", (workspace or "",))
                return
            self._rows_by_ids(f"DELETE FROM community_dirty WHERE entity_id {self._dialect.ids_in}", entity_ids)

    def kg_graph_workspaces(self) -> list[str]:
        """Every workspace that has entities (``''`` is the global one)."""
        return [r[0] for r in self._read("SELECT DISTINCT workspace FROM entities ORDER BY workspace")]

    def kg_communities(self, workspace: str | None) -> list[tuple[Community, list[str]]]:
        where, params = scope_sql(workspace, "c.workspace", self._dialect)
        return self._community_rows(where, params)

    def kg_get_communities(self, community_ids: Sequence[str]) -> dict[str, Community]:
        """Communities by id (members not filled in)."""
        rows = self._rows_by_ids(f"SELECT id, workspace, name, summary FROM communities WHERE id {self._dialect.ids_in}", community_ids)
        return {r[0]: Community(r[0], r[1] or None, r[2], r[3], ()) for r in rows}

    def kg_community_times(self, community_ids: Sequence[str]) -> dict[str, datetime]:
        """When each community was computed."""
        rows = self._rows_by_ids(f"SELECT id, created_at FROM communities WHERE id {self._dialect.ids_in}", community_ids)
        return {r[0]: self._dialect.read_time(r[1]) for r in rows}

    def kg_community_of(self, entity_ids: Sequence[str]) -> dict[str, str]:
        sql = f"SELECT entity_id, community_id FROM community_members WHERE entity_id {self._dialect.ids_in}"
        return dict(self._rows_by_ids(sql, entity_ids))

    # -- the LLM extraction queue ---------------------------------------------
    def kg_claim(self, limit: int, at: datetime, stale_before: datetime) -> list[QueueItem]:
        """Mark up to ``limit`` due pending (or stale running) items as running, counting an attempt; return them."""
        q, t = self._dialect.mark, self._dialect.time
        with self.transaction():
            rows = self._run(
                f"SELECT memory_id FROM extraction_queue WHERE (status = 'pending' AND available_at <= {q})"
                f" OR (status = 'running' AND updated_at < {q}) ORDER BY enqueued_at, memory_id LIMIT {q}",
                (t(at), t(stale_before), limit),
            ).fetchall()
            ids = [r[0] for r in rows]
            self._mark_running(ids, at)
        return self.kg_queue(memory_ids=ids) if ids else []

    def kg_queue_set(
        self, memory_id: str, status: str, at: datetime, error: str | None = None, available_at: datetime | None = None,
        attempts: int | None = None,
    ) -> None:
        """Set an item's status (``attempts``: its count of attempts too, as a moved store had it)."""
        q, t = self._dialect.mark, self._dialect.time
        with self.transaction():
            self._run(
                f"UPDATE extraction_queue SET status = {q}, last_error = {q}, updated_at = {q}, available_at = {q},"
                f" attempts = coalesce({q}, attempts) WHERE memory_id = {q}",
                (status, error, t(at), t(available_at or at), attempts, memory_id),
            )

    def kg_queue_retry_failed(self, at: datetime) -> int:
        """Give every failed item a fresh start (attempts back to 0); returns how many."""
        q, t = self._dialect.mark, self._dialect.time(at)
        with self.transaction():
            return self._run(
                f"UPDATE extraction_queue SET status = 'pending', attempts = 0, updated_at = {q}, available_at = {q}"
                " WHERE status = 'failed'",
                (t, t),
            ).rowcount

    def kg_queue(
        self, status: str | None = None, limit: int = 1000, memory_ids: Sequence[str] | None = None, exclude: str | None = None
    ) -> list[QueueItem]:
        d = self._dialect
        clauses, params = [], []
        if status:
            clauses.append(f"status = {d.mark}")
            params.append(status)
        if exclude:
            clauses.append(f"status != {d.mark}")
            params.append(exclude)
        if memory_ids is not None:
            clause, ids = d.in_list("memory_id", list(memory_ids)[:900])
            clauses.append(clause)
            params += ids
        rows = self._read(
            "SELECT memory_id, status, attempts, last_error, enqueued_at, updated_at, available_at FROM extraction_queue"
            f" WHERE {' AND '.join(clauses) or d.true} ORDER BY enqueued_at, memory_id LIMIT {d.mark}",
            (*params, limit),
        )
        t = d.read_time
        return [QueueItem(r[0], r[1], r[2], r[3], t(r[4]), t(r[5]), t(r[6])) for r in rows]

    def kg_queue_counts(self) -> dict[str, int]:
        return dict(self._read("SELECT status, count(*) FROM extraction_queue GROUP BY status"))
