-- Graph enrichment off the write path (as SQLite's 0022): every memory an add stores waits here until a
-- worker has read it into the knowledge graph. A worker claims rows before it reads them and deletes
-- them in the transaction that writes their graph; the claim of a worker that died is taken over.
CREATE TABLE enrich_queue (
    seq         BIGSERIAL,
    workspace   TEXT COLLATE "C" NOT NULL,
    memory_id   TEXT COLLATE "C" NOT NULL,
    rules       BOOLEAN NOT NULL,
    graph       TEXT,
    enqueued_at TIMESTAMPTZ NOT NULL,
    claimed_by  TEXT,
    claimed_at  TIMESTAMPTZ,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    PRIMARY KEY (workspace, seq),
    FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX enrich_queue_seq ON enrich_queue (seq);  -- workers name items by seq alone
CREATE INDEX enrich_queue_memory ON enrich_queue (memory_id);
