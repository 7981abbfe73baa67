-- Each embedded memory's five nearest memories by vector (cosine of their closest chunks),
-- among the memories visible from its workspace (the same workspace, or global).
-- Every embedded memory has all five slots: a slot with no neighbour left to fill it has
-- neighbour_id NULL and score -1, so slot 5 always holds the score a newcomer must beat.
CREATE TABLE memory_similar (
    memory_id    TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    rank         INTEGER NOT NULL,              -- 1 (nearest) to 5
    neighbour_id TEXT REFERENCES memories (id) ON DELETE CASCADE,
    score        REAL NOT NULL,
    PRIMARY KEY (memory_id, rank)
) WITHOUT ROWID;
CREATE INDEX memory_similar_neighbour ON memory_similar (neighbour_id);
