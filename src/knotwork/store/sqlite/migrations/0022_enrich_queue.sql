-- Graph enrichment off the write path: every memory an add stores waits here until a worker has read
-- it into the knowledge graph (the offline rules, the caller's entities and facts, entity vectors).
-- A worker claims rows (claimed_by, claimed_at) before it reads them, and deletes them in the
-- transaction that writes their graph, so a memory is read in once; the claim of a worker that died
-- is taken over. attempts counts claims; an item that failed too often stays, with its last error.
CREATE TABLE enrich_queue (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id   TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    rules       INTEGER NOT NULL,  -- 1: the offline rules read the text too; 0: the caller's input only (a duplicate)
    graph       TEXT,              -- the caller's entities and facts (JSON), or NULL
    enqueued_at TEXT NOT NULL,
    claimed_by  TEXT,
    claimed_at  TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT
);
CREATE INDEX enrich_queue_memory ON enrich_queue (memory_id);
