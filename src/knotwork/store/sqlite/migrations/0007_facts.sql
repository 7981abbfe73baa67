-- Knowledge graph, part 2: facts (subject --predicate--> object) in two times.
-- World time: valid_at / invalid_at (NULL valid_at = since always, NULL
-- invalid_at = still true). System time: created_at / expired_at (when the
-- store learned the fact ended). A retired fact points at its replacement.
CREATE TABLE facts (
    id            TEXT PRIMARY KEY,
    workspace     TEXT NOT NULL DEFAULT '',
    subject_id    TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    predicate     TEXT NOT NULL,
    object_id     TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    fact          TEXT NOT NULL,                 -- "ReportsModule uses Redis"
    terms         TEXT NOT NULL DEFAULT '',      -- the fact with identifiers split into words (for FTS)
    valid_at      TEXT,
    invalid_at    TEXT,
    created_at    TEXT NOT NULL,
    expired_at    TEXT,
    superseded_by TEXT REFERENCES facts (id) ON DELETE SET NULL,
    origin        TEXT NOT NULL DEFAULT 'caller' -- caller, rules or llm
);
CREATE INDEX facts_subject ON facts (subject_id, predicate);
CREATE INDEX facts_object ON facts (object_id);
CREATE INDEX facts_workspace ON facts (workspace);

CREATE TABLE fact_sources (
    fact_id   TEXT NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (fact_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX fact_sources_memory ON fact_sources (memory_id);

CREATE VIRTUAL TABLE facts_fts USING fts5 (
    terms,
    content = 'facts',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts (rowid, terms) VALUES (new.rowid, new.terms);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts (facts_fts, rowid, terms) VALUES ('delete', old.rowid, old.terms);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF terms ON facts BEGIN
    INSERT INTO facts_fts (facts_fts, rowid, terms) VALUES ('delete', old.rowid, old.terms);
    INSERT INTO facts_fts (rowid, terms) VALUES (new.rowid, new.terms);
END;
