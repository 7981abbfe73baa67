-- Embedding vectors (one row per chunk of a memory) and the settings they depend on.
-- seq only grows, and every deleted vector leaves a tombstone, so an in-memory index
-- in any process can catch up with other processes' writes by reading what is newer.
CREATE TABLE memory_vectors (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk     INTEGER NOT NULL,
    vector    BLOB NOT NULL                  -- float32, little-endian, L2-normalised
);
CREATE INDEX memory_vectors_memory ON memory_vectors (memory_id);

CREATE TABLE vector_tombstones (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    vector_seq INTEGER NOT NULL
);
CREATE TRIGGER memory_vectors_tombstone AFTER DELETE ON memory_vectors BEGIN
    INSERT INTO vector_tombstones (vector_seq) VALUES (old.seq);
END;

CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
