"""Memories as rows, and memory filters as SQL: shared by the PostgreSQL store's modules (the column lists
are ``store/memory_sql.py``'s)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from knotwork.domain.models import Memory, MemoryBrief, MemoryFilter, Relationship, StoredLink
from knotwork.domain.temporal import to_text
from knotwork.store.memory_sql import json_field
from knotwork.store.where import POSTGRES, conditions


# The workspace a referenced row lives in, for the ``*_workspace`` column that goes with each reference (every
# key carries the workspace: migrations/0008_workspace_keys.sql). One parameter: the referenced row's id.
WORKSPACE_OF_MEMORY = "(SELECT workspace FROM memories WHERE id = %s)"
WORKSPACE_OF_ENTITY = "(SELECT workspace FROM entities WHERE id = %s)"
WORKSPACE_OF_FACT = "(SELECT workspace FROM facts WHERE id = %s)"

def memory_row(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        content=row[1],
        workspace=row[2] or None,
        agent_id=row[3] or None,
        category=row[4],
        tags=json_field(row[5]),
        artifacts=json_field(row[6]),
        evidence=json_field(row[7]),
        importance=row[8],
        metadata=json_field(row[9]),
        created_at=row[10],
        updated_at=row[11],
        valid_at=row[12],
        invalid_at=row[13],
        content_hash=row[14],
        version=row[15],
        expires_at=row[16],
    )


def brief_row(row: Sequence[Any]) -> MemoryBrief:
    return MemoryBrief(row[0], row[1], row[2] or None, row[3], row[4], row[5], row[6])


def memory_params(m: Memory) -> tuple[Any, ...]:
    return (
        m.id,
        m.content,
        m.workspace or "",
        m.agent_id or "",
        m.category,
        json.dumps(m.tags, ensure_ascii=False, sort_keys=True),
        json.dumps(m.artifacts, ensure_ascii=False),
        json.dumps(m.evidence, ensure_ascii=False),
        m.importance,
        json.dumps(m.metadata, ensure_ascii=False, sort_keys=True),
        m.created_at,
        m.updated_at,
        m.valid_at,
        m.invalid_at,
        m.content_hash,
        m.version,
        m.expires_at,
    )


# Links are read as StoredLink: time as to_text, metadata as the JSON text written.


def stored_link_row(row: Sequence[Any]) -> StoredLink:
    return StoredLink(row[0], row[1], row[2], row[3], row[4], to_text(row[5]), row[6])


def link_row(row: Sequence[Any]) -> Relationship:
    return stored_link_row(row).relationship()


def where_sql(flt: MemoryFilter, at: datetime | None = None, alias: str = "m") -> tuple[str, list[Any]]:
    """SQL conditions (joined with AND) and their parameters for a filter (store/where.py, PostgreSQL's dialect)."""
    return conditions(flt, at, alias, POSTGRES)


# Each lexeme of a row's tsvector with its term frequency (positions held) and the row's length in words.
ROW_TERMS = (
    "SELECT lexeme, tf, sum(tf) OVER () AS dl"
    " FROM (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf FROM unnest(h.tsv)) AS lexemes"
)


def bm25_sql(n_terms: int, where: str) -> str:
    """BM25 of the memories matching any of ``n_terms`` terms (and ``where``), best first.

    Parameters: the terms, their idfs, the terms again (one per tsquery),
    ``where``'s, the mean row length, the limit. A term's lexemes are what
    the stemmer makes of it; a row's term frequency is the count of
    positions its tsvector holds for the lexeme, its length the sum of those.
    """
    return (
        "WITH weights AS (SELECT DISTINCT ON (x.lexeme) x.lexeme, t.idf"
        " FROM unnest(%s::text[], %s::float8[]) AS t(term, idf), unnest(to_tsvector('knotwork_english', t.term)) AS x"
        " ORDER BY x.lexeme, t.idf DESC),"
        f" hits AS (SELECT m.id, m.tsv FROM memories m, {tsquery_sql(['_'] * n_terms)} WHERE m.tsv @@ tq.q AND {where})"
        " SELECT h.id, sum(w.idf * (u.tf * 2.2) / (u.tf + 1.2 * (0.25 + 0.75 * u.dl / %s::float8))) AS score"
        f" FROM hits h CROSS JOIN LATERAL ({ROW_TERMS}) u"
        " JOIN weights w ON w.lexeme = u.lexeme GROUP BY h.id ORDER BY score DESC, h.id LIMIT %s"
    )


def tsquery_sql(terms: Sequence[str]) -> str:
    """A tsquery matching any of ``terms``: each goes through the stemmer as plain text (never parsed as syntax)."""
    return "(SELECT " + " || ".join(["plainto_tsquery('knotwork_english', %s)"] * len(terms)) + " AS q) AS tq"
