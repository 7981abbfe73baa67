"""SQLite keeps entity-name trigrams under one narrow key, (workspace, gram, entity rowid), with no second index by
entity (migration 0028): the store reads an entity's trigrams from its normalised name and deletes them itself when
it deletes the entity. A store made before 0028 is converted on open and resolves names as before."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.knowledge.models import Entity
from knotwork.knowledge.resolve import Resolver, grams, normalize
from knotwork.store.sqlite import migrate

NARROW = 28  # the migration that drops the index
NO_MODEL = Settings(embedder="none", kg_extract="none")
AT = datetime(2026, 1, 1, tzinfo=UTC)
ENTITIES = [  # (id, workspace, name)
    ("01AAAAAAAAAAAAAAAAAAAAAAE1", "w", "PaymentGateway"),
    ("01AAAAAAAAAAAAAAAAAAAAAAE2", "w", "Payment Gateways"),
    ("01AAAAAAAAAAAAAAAAAAAAAAE3", "w", "Billing Service"),
    ("01AAAAAAAAAAAAAAAAAAAAAAE4", "v", "Billing Service"),
]


def old_store(path: Path) -> None:
    """A file at the schema before migration 0028, applied as the runner applies them."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    conn.create_function("knotwork_half", 1, lambda b: b)
    for m in migrate.available():
        if m.version >= NARROW:
            continue
        for statement in migrate.statements(m.sql):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00Z')", (m.version, m.name))
    stamp = "2026-01-01T00:00:00.000000Z"
    for eid, ws, name in ENTITIES:
        conn.execute("INSERT INTO entities (id, workspace, name, norm, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                     (eid, ws, name, normalize(name), stamp, stamp))
        conn.executemany("INSERT INTO entity_grams (workspace, gram, entity_id) VALUES (?, ?, ?)",
                         [(ws, g, eid) for g in grams(normalize(name))])
    # a row left by an entity deleted while foreign keys were off: the conversion drops it
    conn.execute("INSERT INTO entity_grams (workspace, gram, entity_id) VALUES ('w', '^pa', '01AAAAAAAAAAAAAAAAAAAAAAZZ')")
    conn.close()


def gram_rows(path: Path) -> set[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = set(conn.execute("SELECT g.workspace, g.gram, e.id FROM entity_grams g LEFT JOIN entities e ON e.rowid = g.entity"))
        assert all(r[2] is not None for r in rows), "trigrams of an entity that is gone"
        return rows
    finally:
        conn.close()


def expected(path: Path) -> set[tuple[str, str, str]]:
    """The trigrams of every entity's normalised name, as the table must hold them."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT id, workspace, norm FROM entities").fetchall()
    finally:
        conn.close()
    return {(ws, g, eid) for eid, ws, norm in rows for g in grams(norm)}


def test_an_old_store_is_converted_on_open_and_resolves_names_as_before(db_path: Path) -> None:
    old_store(db_path)
    conn = sqlite3.connect(db_path)
    before = set(conn.execute("SELECT workspace, gram, entity_id FROM entity_grams"))
    conn.close()
    with knotwork.open(db_path, settings=NO_MODEL) as mem:
        conn = sqlite3.connect(db_path)
        indexes = [r[1] for r in conn.execute("PRAGMA index_list(entity_grams)")]
        keys = conn.execute("PRAGMA foreign_key_list(entity_grams)").fetchall()
        conn.close()
        assert indexes == ["sqlite_autoindex_entity_grams_1"] and keys == []  # the primary key alone
        after = gram_rows(db_path)
        assert after == {r for r in before if r[2] != "01AAAAAAAAAAAAAAAAAAAAAAZZ"} == expected(db_path)
        resolver = Resolver(mem.store)
        assert resolver.fuzzy("w", "Payment-Gateway", None) == "01AAAAAAAAAAAAAAAAAAAAAAE1"
        assert resolver.fuzzy("v", "Billing Services", None) == "01AAAAAAAAAAAAAAAAAAAAAAE4"
        assert resolver.fuzzy("w", "Shipping Service", None) is None
        assert mem.store.kg_gram_counts(["01AAAAAAAAAAAAAAAAAAAAAAE3"]) == {
            "01AAAAAAAAAAAAAAAAAAAAAAE3": {g for ws, g, e in before if e == "01AAAAAAAAAAAAAAAAAAAAAAE3"}}


def test_every_way_an_entity_goes_takes_its_trigrams_with_it(db_path: Path) -> None:
    with knotwork.open(db_path, settings=NO_MODEL) as mem:
        store = mem.store
        memory = mem.add("Payments go through the gateway", workspace="w").id
        with store.transaction():
            for eid, ws, name in ENTITIES:
                store.kg_insert_entity(Entity(eid, ws, name, None, "", AT, AT), normalize(name), grams(normalize(name)))
            store.kg_add_mentions(memory, ["01AAAAAAAAAAAAAAAAAAAAAAE1"])
        assert gram_rows(db_path) == expected(db_path) and len(expected(db_path)) > 40

        store.kg_merge_entities("01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE2")
        assert {e for _, _, e in gram_rows(db_path)} == {"01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE3",
                                                          "01AAAAAAAAAAAAAAAAAAAAAAE4"}
        assert gram_rows(db_path) == expected(db_path)

        # E1 is mentioned, so it stays; E3 is an orphan and goes
        assert store.kg_delete_orphans(["01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE3"]) == 1
        assert {e for _, _, e in gram_rows(db_path)} == {"01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE4"}
        assert gram_rows(db_path) == expected(db_path)

        mem.clear_graph("w")
        assert gram_rows(db_path) == expected(db_path) == {r for r in gram_rows(db_path) if r[2] == "01AAAAAAAAAAAAAAAAAAAAAAE4"} != set()
        mem.clear_graph("v")
        assert gram_rows(db_path) == set()
