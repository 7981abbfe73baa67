-- Knowledge graph, part 1: entities, their aliases, name shingles, vectors,
-- full-text search over name and summary, and which memories mention them.
-- workspace '' is the global scope. A merged entity's row is deleted; its
-- name lives on as an alias of the canonical entity.
CREATE TABLE entities (
    id           TEXT PRIMARY KEY,
    workspace    TEXT NOT NULL DEFAULT '',
    name         TEXT NOT NULL,
    norm         TEXT NOT NULL,              -- normalised name: the exact-match key
    type         TEXT,                       -- person, library, file, url, tag, identifier…
    summary      TEXT NOT NULL DEFAULT '',   -- built from current facts (bounded)
    note         TEXT NOT NULL DEFAULT '',   -- the summary a caller gave, kept as written
    terms        TEXT NOT NULL DEFAULT '',   -- name and aliases with identifiers split into words (for FTS)
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX entities_norm ON entities (workspace, norm);

CREATE TABLE entity_aliases (
    workspace  TEXT NOT NULL,
    norm       TEXT NOT NULL,
    alias      TEXT NOT NULL,
    entity_id  TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (workspace, norm)
) WITHOUT ROWID;
CREATE INDEX entity_aliases_entity ON entity_aliases (entity_id);

-- Character trigrams of normalised names: candidates for fuzzy matching,
-- looked up within one workspace (and, as ids are time-ordered, after an id).
CREATE TABLE entity_grams (
    workspace TEXT NOT NULL DEFAULT '',
    gram      TEXT NOT NULL,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (workspace, gram, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_grams_entity ON entity_grams (entity_id);

CREATE TABLE entity_vectors (
    entity_id TEXT PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    vector    BLOB NOT NULL                 -- float32 of "name (type)", L2-normalised
);

CREATE TABLE entity_mentions (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (memory_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_mentions_entity ON entity_mentions (entity_id);

CREATE VIRTUAL TABLE entities_fts USING fts5 (
    terms,
    summary,
    content = 'entities',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER entities_fts_insert AFTER INSERT ON entities BEGIN
    INSERT INTO entities_fts (rowid, terms, summary) VALUES (new.rowid, new.terms, new.summary);
END;
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
    INSERT INTO entities_fts (entities_fts, rowid, terms, summary) VALUES ('delete', old.rowid, old.terms, old.summary);
END;
CREATE TRIGGER entities_fts_update AFTER UPDATE OF terms, summary ON entities BEGIN
    INSERT INTO entities_fts (entities_fts, rowid, terms, summary) VALUES ('delete', old.rowid, old.terms, old.summary);
    INSERT INTO entities_fts (rowid, terms, summary) VALUES (new.rowid, new.terms, new.summary);
END;
