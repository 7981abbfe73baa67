"""PostgreSQL's schema keyed by workspace, so it can be distributed by workspace (Citus) as it stands.

The rule, checked over the catalog: every table holding rows of one workspace has a ``workspace`` column, in
its primary key and in every unique index; every foreign key carries a workspace column on both sides. The
references that may cross workspaces (to a global memory or entity) are named here, and deleting a memory
leaves nothing pointing at it even when those foreign keys are gone, as on a distributed deployment.
"""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest

import knotwork
from knotwork import Settings
from knotwork.knowledge.models import Community, Entity, Fact
from knotwork.store.postgres import migrate as pg_migrate

NO_MODEL = Settings(embedder="none", kg_extract="none")

# Tables of the whole store, not of a workspace: reference tables on a distributed deployment.
STORE_WIDE = {
    "schema_migrations", "store_meta", "store_clock", "hygiene_counters", "link_changes", "memory_changes",
    "vector_tombstones",
}

# (table, the column holding the referenced row's workspace, the referenced id's column, referenced table):
# references that may point at another workspace's row. Every other foreign key pairs the row's own `workspace`
# with the target's.
REFERENCES = [
    ("links", "from_workspace", "from_id", "memories"),
    ("links", "to_workspace", "to_id", "memories"),
    ("memory_similar", "neighbour_workspace", "neighbour_id", "memories"),
    ("surfacing", "memory_workspace", "memory_id", "memories"),
    ("fact_sources", "memory_workspace", "memory_id", "memories"),
    ("entity_aliases", "entity_workspace", "entity_id", "entities"),
    ("entity_mentions", "entity_workspace", "entity_id", "entities"),
    ("facts", "subject_workspace", "subject_id", "entities"),
    ("facts", "object_workspace", "object_id", "entities"),
    ("facts", "superseded_workspace", "superseded_by", "facts"),
    ("community_members", "community_workspace", "community_id", "communities"),
]
CROSS_SCOPE = {(table, column, target) for table, column, _, target in REFERENCES}

KEYS_SQL = """
SELECT c.relname, i.indisprimary, array_agg(a.attname ORDER BY a.attname)
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
WHERE n.nspname = current_schema() AND i.indisunique
GROUP BY c.relname, i.indexrelid, i.indisprimary
"""

FOREIGN_KEYS_SQL = """
SELECT c.relname, r.relname, con.confdeltype,
       array_agg(a.attname ORDER BY k.ord), array_agg(ra.attname ORDER BY k.ord)
FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_class r ON r.oid = con.confrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(col, rcol, ord)
JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col
JOIN pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.rcol
WHERE con.contype = 'f' AND n.nspname = current_schema()
GROUP BY con.oid, c.relname, r.relname, con.confdeltype
"""


def catalog(url: str) -> tuple[set[str], dict[str, set[str]], list[tuple], list[tuple]]:
    with psycopg.connect(url) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
        columns: dict[str, set[str]] = {}
        for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        ):
            columns.setdefault(table, set()).add(column)
        return tables, columns, conn.execute(KEYS_SQL).fetchall(), conn.execute(FOREIGN_KEYS_SQL).fetchall()


def broken_rule(url: str) -> list[str]:
    """What in the schema at ``url`` breaks the workspace-key rule (empty: nothing)."""
    tables, columns, keys, foreign = catalog(url)
    problems = []
    distributed = tables - STORE_WIDE
    problems += [f"{t}: no workspace column" for t in sorted(distributed) if "workspace" not in columns[t]]
    primary = {table for table, is_primary, _ in keys if is_primary}
    problems += [f"{t}: no primary key" for t in sorted(tables - primary)]
    problems += [
        f"{table}: {'primary key' if is_primary else 'unique index'} {cols} without the workspace"
        for table, is_primary, cols in keys
        if table in distributed and "workspace" not in cols
    ]
    crossing = set()
    for table, target, on_delete, cols, target_cols in foreign:
        pairs = dict(zip(target_cols, cols))
        if "workspace" not in pairs or not pairs["workspace"].endswith("workspace"):
            problems.append(f"{table} -> {target} {cols}: no workspace on both sides")
        elif pairs["workspace"] != "workspace":
            crossing.add((table, pairs["workspace"], target))
        if on_delete not in ("c", "n"):
            problems.append(f"{table} -> {target}: deleting the target neither cascades nor clears the reference")
    if crossing != CROSS_SCOPE:
        problems.append(f"cross-scope references {sorted(crossing ^ CROSS_SCOPE)} differ from those the store knows")
    return problems


def test_every_key_of_a_workspaces_table_carries_the_workspace(postgres_database) -> None:
    url = postgres_database.fresh()
    assert broken_rule(url) == []


def test_the_rule_catches_a_key_without_the_workspace(postgres_database) -> None:
    url = postgres_database.fresh()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE memory_notes (memory_id TEXT PRIMARY KEY, note TEXT)")
        conn.execute("CREATE UNIQUE INDEX links_by_id ON links (id)")
    problems = broken_rule(url)
    for conn_sql in ("DROP TABLE memory_notes", "DROP INDEX links_by_id"):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(conn_sql)
    assert "memory_notes: no workspace column" in problems
    assert any(p.startswith("links: unique index ['id']") for p in problems)


def dangling(url: str) -> dict[str, int]:
    """Cross-scope references whose target is gone, by table and column (empty: none)."""
    out = {}
    with psycopg.connect(url) as conn:
        for table, column, ref, target in REFERENCES:
            n = conn.execute(
                f"SELECT count(*) FROM {table} t WHERE t.{ref} IS NOT NULL"
                f" AND NOT EXISTS (SELECT 1 FROM {target} x WHERE x.workspace = t.{column} AND x.id = t.{ref})"
            ).fetchone()[0]
            if n:
                out[f"{table}.{ref}"] = n
    return out


def drop_cross_scope_keys(url: str) -> None:
    """What a deployment distributed by workspace cannot keep: a foreign key to another shard's row."""
    with psycopg.connect(url, autocommit=True) as conn:
        for table, column, _, _ in REFERENCES:
            name = conn.execute(
                "SELECT con.conname FROM pg_constraint con JOIN pg_attribute a ON a.attrelid = con.conrelid"
                " AND a.attnum = ANY(con.conkey) WHERE con.contype = 'f' AND con.conrelid = %s::regclass AND a.attname = %s",
                (table, column),
            ).fetchone()[0]
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")


def test_deletes_leave_nothing_pointing_across_scopes_without_the_cross_scope_foreign_keys(postgres_database) -> None:
    """Memories, entities, facts and communities deleted (by delete, merge, clear and a community rebuild) while
    rows of another workspace point at them: the store clears those rows itself."""
    url = postgres_database.fresh()
    drop_cross_scope_keys(url)
    at = datetime.now(UTC)
    try:
        with knotwork.open(url, settings=NO_MODEL) as mem:
            shared = mem.add("Every service deploys from main").id  # the global scope
            own = mem.add("The shop deploys with blue-green releases", workspace="shop").id
            mem.link(own, shared, "relates_to")
            mem.link(shared, own, "references")
            store = mem.store
            store.put_similar([(own, 1, shared, 0.9)])
            store.record_surfacing("shop", [shared], at)
            with store.transaction():
                for eid, ws, name in (("01AAAAAAAAAAAAAAAAAAAAAAG1", "", "Stripe"), ("01AAAAAAAAAAAAAAAAAAAAAAG2", "", "Stripe Inc"), ("01AAAAAAAAAAAAAAAAAAAAAAG3", "", "Main"), ("01AAAAAAAAAAAAAAAAAAAAAAS1", "shop", "Shopfront")):
                    store.kg_insert_entity(Entity(eid, ws, name, None, "", at, at), name.lower(), [name[:3].lower()])
                store.kg_add_mentions(own, ["01AAAAAAAAAAAAAAAAAAAAAAG2", "01AAAAAAAAAAAAAAAAAAAAAAS1"])  # a shop memory that mentions global entities
                store.kg_add_alias("shop", "stripey", "Stripey", "01AAAAAAAAAAAAAAAAAAAAAAG2")
                store.kg_insert_fact(Fact("01AAAAAAAAAAAAAAAAAAAAAAGF", "", "01AAAAAAAAAAAAAAAAAAAAAAG2", "Stripe Inc", "uses", "01AAAAAAAAAAAAAAAAAAAAAAG3", "Main", "Stripe Inc uses Main",
                                          None, None, at, None, None, "caller", (shared,)))
                store.kg_insert_fact(Fact("01AAAAAAAAAAAAAAAAAAAAAASF", "shop", "01AAAAAAAAAAAAAAAAAAAAAAS1", "Shopfront", "pays_with", "01AAAAAAAAAAAAAAAAAAAAAAG2", "Stripe Inc",
                                          "Shopfront pays with Stripe Inc", None, None, at, None, "01AAAAAAAAAAAAAAAAAAAAAAGF", "caller", (shared, own)))
                store.kg_swap_communities("", [], [(Community("01AAAAAAAAAAAAAAAAAAAAAAGC", "", "Payments", "", ()), ["01AAAAAAAAAAAAAAAAAAAAAAG1", "01AAAAAAAAAAAAAAAAAAAAAAG2", "01AAAAAAAAAAAAAAAAAAAAAAS1"])], at)
            assert dangling(url) == {}

            mem.delete(shared)  # and the global fact it alone was the source of, which had superseded shop's fact
            assert dangling(url) == {}
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT count(*) FROM fact_sources WHERE memory_id = %s", (own,)).fetchone()[0] == 1

            # G2, named from shop by a mention, an alias and a fact, is merged into G1 (the service keeps the more
            # connected of two; here the store is told which goes)
            store.kg_merge_entities("01AAAAAAAAAAAAAAAAAAAAAAG1", "01AAAAAAAAAAAAAAAAAAAAAAG2")
            assert dangling(url) == {}
            with psycopg.connect(url) as conn:
                mentioned = {r[0] for r in conn.execute("SELECT entity_id FROM entity_mentions WHERE memory_id = %s", (own,))}
            assert mentioned == {"01AAAAAAAAAAAAAAAAAAAAAAG1", "01AAAAAAAAAAAAAAAAAAAAAAS1"}

            store.kg_swap_communities("", ["01AAAAAAAAAAAAAAAAAAAAAAGC"], [], at)  # the global community goes, with shop's membership
            assert dangling(url) == {}
            mem.clear_graph("")  # every global entity goes; shop's own entity and its facts' other ends
            assert dangling(url) == {}
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT count(*) FROM entities WHERE workspace = 'shop'").fetchone()[0] == 1
    finally:
        postgres_database.close()
        postgres_database._make()


# -- a store written before the workspace keys ------------------------------------------------------------------

OLD_ROWS = """
INSERT INTO memories (id, content, workspace, tags, created_at, updated_at, valid_at, content_hash, version) VALUES
  ('01AAAAAAAAAAAAAAAAAAAAAAAG', 'Every service deploys from main', '', '{}', now(), now(), now(), 'h1', 1),
  ('01AAAAAAAAAAAAAAAAAAAAAAAS', 'The shop deploys with blue-green releases', 'shop', '{"team": "ops"}', now(), now(), now(), 'h2', 2);
INSERT INTO memory_tags VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAS', 'team', 'ops');
INSERT INTO memory_versions VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAS', 1,
  '{"id": "01AAAAAAAAAAAAAAAAAAAAAAAS", "content": "The shop deploys on Fridays", "workspace": "shop", "version": 1,
    "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "valid_at": "2026-01-01T00:00:00Z",
    "content_hash": "h0"}');
INSERT INTO links VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAL', '01AAAAAAAAAAAAAAAAAAAAAAAS', '01AAAAAAAAAAAAAAAAAAAAAAAG',
  'relates_to', 'shop', now(), '{}');
INSERT INTO surfacing VALUES ('shop', '01AAAAAAAAAAAAAAAAAAAAAAAG', 1.0, now());
INSERT INTO memory_similar VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAS', 1, '01AAAAAAAAAAAAAAAAAAAAAAAG', 0.8);
INSERT INTO extraction_queue VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAS', 'pending', 0, NULL, now(), now(), now());
INSERT INTO entities (id, workspace, name, norm, created_at, updated_at) VALUES
  ('01AAAAAAAAAAAAAAAAAAAAAAE1', 'shop', 'Shopfront', 'shopfront', now(), now()),
  ('01AAAAAAAAAAAAAAAAAAAAAAE2', '', 'Main', 'main', now(), now());
INSERT INTO entity_aliases VALUES ('shop', 'storefront', 'Storefront', '01AAAAAAAAAAAAAAAAAAAAAAE1');
INSERT INTO entity_grams VALUES ('shop', 'sho', '01AAAAAAAAAAAAAAAAAAAAAAE1');
INSERT INTO entity_vectors VALUES ('01AAAAAAAAAAAAAAAAAAAAAAE1', nextval('entity_vectors_seq'), '\\x00');
INSERT INTO entity_mentions VALUES ('01AAAAAAAAAAAAAAAAAAAAAAAS', '01AAAAAAAAAAAAAAAAAAAAAAE1'),
  ('01AAAAAAAAAAAAAAAAAAAAAAAS', '01AAAAAAAAAAAAAAAAAAAAAAE2');
INSERT INTO facts (id, workspace, subject_id, predicate, object_id, fact, created_at) VALUES
  ('01AAAAAAAAAAAAAAAAAAAAAAF1', 'shop', '01AAAAAAAAAAAAAAAAAAAAAAE1', 'deploys_from', '01AAAAAAAAAAAAAAAAAAAAAAE2',
   'Shopfront deploys from Main', now()),
  ('01AAAAAAAAAAAAAAAAAAAAAAF0', 'shop', '01AAAAAAAAAAAAAAAAAAAAAAE1', 'deploys_from', '01AAAAAAAAAAAAAAAAAAAAAAE1',
   'Shopfront deploys from Shopfront', now());
UPDATE facts SET superseded_by = '01AAAAAAAAAAAAAAAAAAAAAAF1' WHERE id = '01AAAAAAAAAAAAAAAAAAAAAAF0';
INSERT INTO fact_sources VALUES ('01AAAAAAAAAAAAAAAAAAAAAAF1', '01AAAAAAAAAAAAAAAAAAAAAAAS'),
  ('01AAAAAAAAAAAAAAAAAAAAAAF1', '01AAAAAAAAAAAAAAAAAAAAAAAG');
INSERT INTO communities VALUES ('01AAAAAAAAAAAAAAAAAAAAAAC1', 'shop', 'Shopfront', '', 2, now());
INSERT INTO community_members VALUES ('01AAAAAAAAAAAAAAAAAAAAAAE1', '01AAAAAAAAAAAAAAAAAAAAAAC1'),
  ('01AAAAAAAAAAAAAAAAAAAAAAE2', '01AAAAAAAAAAAAAAAAAAAAAAC1');
"""


def test_a_store_written_before_the_workspace_keys_is_moved_onto_them_whole(postgres_database) -> None:
    url = postgres_database.fresh()
    keys = next(m.version for m in pg_migrate.available() if m.name == "workspace_keys")
    before = [m for m in pg_migrate.available() if m.version < keys]  # a store as it was before it; the rest on open
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public")
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            for m in before:
                conn.execute(m.sql.encode())
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (m.version, m.name))
            conn.execute(OLD_ROWS.encode())
        with knotwork.open(url, settings=NO_MODEL) as mem:
            assert mem.store.schema_version() == pg_migrate.available()[-1].version
            shop = mem.get("01AAAAAAAAAAAAAAAAAAAAAAAS")
            assert shop.tags == {"team": "ops"} and [v.content for v in mem.history(shop.id)][0] == "The shop deploys on Fridays"
            assert [r.to_id for r in mem.store.links_touching([shop.id], "outgoing")] == ["01AAAAAAAAAAAAAAAAAAAAAAAG"]
            assert mem.store.similar_lists([shop.id]) == {shop.id: [("01AAAAAAAAAAAAAAAAAAAAAAAG", 0.8)]}
            facts = mem.store.kg_get_facts(["01AAAAAAAAAAAAAAAAAAAAAAF0", "01AAAAAAAAAAAAAAAAAAAAAAF1"])
            assert facts["01AAAAAAAAAAAAAAAAAAAAAAF0"].superseded_by == "01AAAAAAAAAAAAAAAAAAAAAAF1"
            assert set(facts["01AAAAAAAAAAAAAAAAAAAAAAF1"].sources) == {shop.id, "01AAAAAAAAAAAAAAAAAAAAAAAG"}
            assert mem.store.kg_community_of(["01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE2"]) == dict.fromkeys(
                ["01AAAAAAAAAAAAAAAAAAAAAAE1", "01AAAAAAAAAAAAAAAAAAAAAAE2"], "01AAAAAAAAAAAAAAAAAAAAAAC1"
            )
            mem.delete(shop.id)  # the keys cascade as before: nothing of the memory is left
        with psycopg.connect(url) as conn:
            counts = {
                t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("memory_tags", "memory_versions", "links", "surfacing", "memory_similar", "extraction_queue",
                          "entity_mentions", "fact_sources", "entity_aliases", "entity_grams", "entity_vectors")
            }
        assert counts == {
            "memory_tags": 0, "memory_versions": 0, "links": 0, "surfacing": 1, "memory_similar": 0,
            "extraction_queue": 0, "entity_mentions": 0, "fact_sources": 1, "entity_aliases": 1, "entity_grams": 1,
            "entity_vectors": 1,
        }
        assert broken_rule(url) == []
    finally:
        postgres_database.close()
        postgres_database._make()
