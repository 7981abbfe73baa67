-- Embedding vectors (one row per chunk of a memory) in pgvector, and the settings they depend on.
-- The column has no fixed dimension (the model decides it); the store creates an HNSW index
-- (cosine) over vector::vector(dim) for the dimension it writes. seq only grows and every
-- deleted vector leaves a tombstone, so an in-memory index in any process can catch up.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE memory_vectors (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk     INTEGER NOT NULL,
    vector    vector NOT NULL                -- L2-normalised
);
CREATE INDEX memory_vectors_memory ON memory_vectors (memory_id);

CREATE TABLE vector_tombstones (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    vector_seq BIGINT NOT NULL
);
CREATE FUNCTION memory_vectors_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO vector_tombstones (vector_seq) VALUES (OLD.seq);
    RETURN NULL;
END $$;
CREATE TRIGGER memory_vectors_tombstone AFTER DELETE ON memory_vectors FOR EACH ROW EXECUTE FUNCTION memory_vectors_tombstone();

CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
