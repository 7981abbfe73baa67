-- Entity-name trigrams under a narrower key: the entity's rowid instead of its 26-character id, and no
-- second index (by entity) nor the foreign key that needed it; together they were three quarters of the
-- table's bytes. An entity's trigrams are those of its normalised name (knowledge/resolve.py grams()),
-- so the store reads them from entities.norm and deletes them by that same key when it deletes an entity
-- (store/sqlite/knowledge.py). entities.rowid is already the key of entities_fts, so it stays stable.
CREATE TABLE entity_grams_narrow (
    workspace TEXT NOT NULL DEFAULT '',
    gram      TEXT NOT NULL,
    entity    INTEGER NOT NULL,          -- entities.rowid
    PRIMARY KEY (workspace, gram, entity)
) WITHOUT ROWID;
INSERT OR IGNORE INTO entity_grams_narrow (workspace, gram, entity)
    SELECT g.workspace, g.gram, e.rowid FROM entity_grams g JOIN entities e ON e.id = g.entity_id;
DROP TABLE entity_grams;
ALTER TABLE entity_grams_narrow RENAME TO entity_grams;
