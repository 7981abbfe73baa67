-- Memories, their tags, their past versions, and full-text search over content.
-- workspace '' is the global scope and agent_id '' the shared partition, so that
-- the identity index treats them like any other value (NULLs never collide).
CREATE TABLE memories (
    id           TEXT PRIMARY KEY,
    rid          TEXT NOT NULL,              -- id reversed: suffix lookups use an index
    content      TEXT NOT NULL,
    workspace    TEXT NOT NULL DEFAULT '',
    agent_id     TEXT NOT NULL DEFAULT '',
    category     TEXT,
    tags         TEXT NOT NULL DEFAULT '{}',
    artifacts    TEXT NOT NULL DEFAULT '[]',
    evidence     TEXT NOT NULL DEFAULT '[]',
    importance   REAL NOT NULL DEFAULT 0.5,
    metadata     TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    valid_at     TEXT NOT NULL,
    invalid_at   TEXT,
    content_hash TEXT NOT NULL,
    version      INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX memories_identity ON memories (workspace, agent_id, content_hash);
CREATE UNIQUE INDEX memories_rid ON memories (rid);
CREATE INDEX memories_workspace ON memories (workspace, id);
CREATE INDEX memories_created ON memories (created_at);

CREATE TABLE memory_tags (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (memory_id, key)
) WITHOUT ROWID;
CREATE INDEX memory_tags_kv ON memory_tags (key, value);

CREATE TABLE memory_versions (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version   INTEGER NOT NULL,
    record    TEXT NOT NULL,                 -- the whole memory as JSON
    PRIMARY KEY (memory_id, version)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content,
    content = 'memories',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
END;
