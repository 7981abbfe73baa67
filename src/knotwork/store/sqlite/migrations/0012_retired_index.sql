-- The health line of a recall and get_memory_stats count retired memories
-- (invalid_at passed); only memories with an invalid_at are indexed here.
CREATE INDEX memories_retired ON memories (invalid_at) WHERE invalid_at IS NOT NULL;
