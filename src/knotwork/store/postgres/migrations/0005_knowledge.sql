-- The knowledge graph: entities (aliases, name trigrams, vectors, mentions), facts with their
-- source memories, communities, and the LLM extraction queue (SQLite's migrations 0006-0009).
CREATE TABLE entities (
    id           TEXT COLLATE "C" PRIMARY KEY,
    workspace    TEXT COLLATE "C" NOT NULL DEFAULT '',
    name         TEXT NOT NULL,
    norm         TEXT COLLATE "C" NOT NULL,
    type         TEXT,
    summary      TEXT NOT NULL DEFAULT '',
    note         TEXT NOT NULL DEFAULT '',
    terms        TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    -- name terms weigh three times the summary, as bm25(entities_fts, 3.0, 1.0) does in SQLite
    tsv          TSVECTOR GENERATED ALWAYS AS
                 (setweight(to_tsvector('knotwork_english', terms), 'A') || setweight(to_tsvector('knotwork_english', summary), 'D')) STORED
);
CREATE UNIQUE INDEX entities_norm ON entities (workspace, norm);
CREATE INDEX entities_tsv ON entities USING gin (tsv);

CREATE TABLE entity_aliases (
    workspace  TEXT COLLATE "C" NOT NULL,
    norm       TEXT COLLATE "C" NOT NULL,
    alias      TEXT NOT NULL,
    entity_id  TEXT COLLATE "C" NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (workspace, norm)
);
CREATE INDEX entity_aliases_entity ON entity_aliases (entity_id);

CREATE TABLE entity_grams (
    workspace TEXT COLLATE "C" NOT NULL DEFAULT '',
    gram      TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (workspace, gram, entity_id)
);
CREATE INDEX entity_grams_entity ON entity_grams (entity_id);

-- seq stands in for SQLite's rowid: it grows with every write, so readers catch up after it.
CREATE TABLE entity_vectors (
    entity_id TEXT COLLATE "C" PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    seq       BIGINT NOT NULL,
    vector    BYTEA NOT NULL                 -- float32 of "name (type)", L2-normalised
);
CREATE SEQUENCE entity_vectors_seq;
CREATE INDEX entity_vectors_seq_idx ON entity_vectors (seq);

CREATE TABLE entity_mentions (
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    entity_id TEXT COLLATE "C" NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (memory_id, entity_id)
);
CREATE INDEX entity_mentions_entity ON entity_mentions (entity_id);

CREATE TABLE facts (
    id            TEXT COLLATE "C" PRIMARY KEY,
    workspace     TEXT COLLATE "C" NOT NULL DEFAULT '',
    subject_id    TEXT COLLATE "C" NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    predicate     TEXT COLLATE "C" NOT NULL,
    object_id     TEXT COLLATE "C" NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    fact          TEXT NOT NULL,
    terms         TEXT NOT NULL DEFAULT '',
    valid_at      TIMESTAMPTZ,
    invalid_at    TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    expired_at    TIMESTAMPTZ,
    superseded_by TEXT COLLATE "C" REFERENCES facts (id) ON DELETE SET NULL,
    origin        TEXT NOT NULL DEFAULT 'caller',
    tsv           TSVECTOR GENERATED ALWAYS AS (to_tsvector('knotwork_english', terms)) STORED
);
CREATE INDEX facts_subject ON facts (subject_id, predicate);
CREATE INDEX facts_object ON facts (object_id);
CREATE INDEX facts_workspace ON facts (workspace);
CREATE INDEX facts_tsv ON facts USING gin (tsv);

CREATE TABLE fact_sources (
    fact_id   TEXT COLLATE "C" NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (fact_id, memory_id)
);
CREATE INDEX fact_sources_memory ON fact_sources (memory_id);

CREATE TABLE communities (
    id         TEXT COLLATE "C" PRIMARY KEY,
    workspace  TEXT COLLATE "C" NOT NULL DEFAULT '',
    name       TEXT NOT NULL,
    summary    TEXT NOT NULL DEFAULT '',
    size       INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX communities_workspace ON communities (workspace);

CREATE TABLE community_members (
    entity_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    community_id TEXT COLLATE "C" NOT NULL REFERENCES communities (id) ON DELETE CASCADE
);
CREATE INDEX community_members_community ON community_members (community_id);

CREATE TABLE community_dirty (
    entity_id TEXT COLLATE "C" PRIMARY KEY,
    workspace TEXT COLLATE "C" NOT NULL DEFAULT ''
);

CREATE TABLE extraction_queue (
    memory_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    enqueued_at  TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    available_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX extraction_queue_status ON extraction_queue (status, available_at);
