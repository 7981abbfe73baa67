-- Memory hygiene (SQLite's migration 0015): expiry, the reads that keep snapshots and
-- partitions apart, and counters of what hygiene did.
-- expires_at: when set and passed, the memory leaves every read at once and
-- `knotwork prune` purges it. Only memories that expire are indexed.
ALTER TABLE memories ADD COLUMN expires_at TIMESTAMPTZ;
CREATE INDEX memories_expiring ON memories (expires_at) WHERE expires_at IS NOT NULL;
-- Snapshots (category 'snapshot' with a `key` tag) are kept once per day per
-- (workspace, partition, key): this index finds a key's snapshots.
CREATE INDEX memories_snapshots ON memories (workspace, agent_id, valid_at) WHERE category = 'snapshot';
CREATE TABLE hygiene_counters (
    name  TEXT COLLATE "C" PRIMARY KEY,
    value TEXT NOT NULL
);
