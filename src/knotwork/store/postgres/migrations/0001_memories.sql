-- Memories, their tags, their past versions, and full-text search over content.
-- The same tables as the SQLite store's (store/sqlite/migrations), in PostgreSQL's types:
-- times are timestamptz, JSON fields are kept as the same text SQLite keeps, and ids
-- compare byte by byte (COLLATE "C") so that id order is time order, as in SQLite.
-- workspace '' is the global scope and agent_id '' the shared partition.
-- Full text: the english (Porter) stemmer with no stop words, as SQLite's FTS5 "porter unicode61"
-- tokenizer indexes every word; BM25 (store.py) then weighs common words down by their idf.
CREATE TEXT SEARCH DICTIONARY knotwork_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION knotwork_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION knotwork_english
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH knotwork_stem;

CREATE TABLE memories (
    id           TEXT COLLATE "C" PRIMARY KEY,
    content      TEXT NOT NULL,
    workspace    TEXT COLLATE "C" NOT NULL DEFAULT '',
    agent_id     TEXT COLLATE "C" NOT NULL DEFAULT '',
    category     TEXT COLLATE "C",
    tags         TEXT NOT NULL DEFAULT '{}',
    artifacts    TEXT NOT NULL DEFAULT '[]',
    evidence     TEXT NOT NULL DEFAULT '[]',
    importance   DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    metadata     TEXT NOT NULL DEFAULT '{}',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    valid_at     TIMESTAMPTZ NOT NULL,
    invalid_at   TIMESTAMPTZ,
    content_hash TEXT NOT NULL,
    version      INTEGER NOT NULL DEFAULT 1,
    tsv          TSVECTOR GENERATED ALWAYS AS (to_tsvector('knotwork_english', content)) STORED
);
CREATE UNIQUE INDEX memories_identity ON memories (workspace, agent_id, content_hash);
CREATE INDEX memories_rid ON memories ((reverse(id)) COLLATE "C");   -- suffix lookups of short ids
CREATE INDEX memories_workspace ON memories (workspace, id);
CREATE INDEX memories_created ON memories (created_at);
CREATE INDEX memories_tsv ON memories USING gin (tsv);

CREATE TABLE memory_tags (
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (memory_id, key)
);
CREATE INDEX memory_tags_kv ON memory_tags (key, value);

CREATE TABLE memory_versions (
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version   INTEGER NOT NULL,
    record    TEXT NOT NULL,                 -- the whole memory as JSON
    PRIMARY KEY (memory_id, version)
);

-- One row, bumped by every write transaction: data_version() (another connection committed).
CREATE TABLE store_clock (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    n   BIGINT NOT NULL
);
INSERT INTO store_clock (one, n) VALUES (TRUE, 0);
