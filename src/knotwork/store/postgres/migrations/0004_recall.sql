-- Surfacing counts (novelty), similar lists, and the partial indexes recall and statistics read
-- (SQLite's migrations 0004, 0005, 0011 and 0012). The directives index's WHERE clause must stay
-- word for word DIRECTIVES_WHERE in store/postgres/store.py.
CREATE TABLE surfacing (
    workspace TEXT COLLATE "C" NOT NULL,
    memory_id TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    count     DOUBLE PRECISION NOT NULL,
    last_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace, memory_id)
);

CREATE TABLE memory_similar (
    memory_id    TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    rank         INTEGER NOT NULL,              -- 1 (nearest) to 5
    neighbour_id TEXT COLLATE "C" REFERENCES memories (id) ON DELETE CASCADE,
    score        DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (memory_id, rank)
);
CREATE INDEX memory_similar_neighbour ON memory_similar (neighbour_id);

CREATE INDEX memories_directives ON memories (importance, id)
WHERE category IN ('directive', 'preference', 'decision', 'rule', 'convention', 'instruction') OR importance >= 0.8;
CREATE INDEX memories_retired ON memories (invalid_at) WHERE invalid_at IS NOT NULL;
