-- Knowledge graph, part 4: the durable queue of memories waiting for LLM
-- extraction. A row stays until its memory is deleted, so every episode's
-- status (pending, running, done, failed), attempts and last error can be
-- read back. A retried item waits until available_at (backoff).
CREATE TABLE extraction_queue (
    memory_id    TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    enqueued_at  TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    available_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX extraction_queue_status ON extraction_queue (status, available_at);
