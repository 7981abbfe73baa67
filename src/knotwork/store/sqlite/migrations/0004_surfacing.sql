-- How often each memory was surfaced to an agent, per workspace ('' = global),
-- so the novelty reranker can rotate what it shows. count decays with time.
CREATE TABLE surfacing (
    workspace TEXT NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    count     REAL NOT NULL,
    last_at   TEXT NOT NULL,
    PRIMARY KEY (workspace, memory_id)
) WITHOUT ROWID;
