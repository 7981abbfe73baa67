-- Typed, directed relationships between memories, and the numbered log of their inserts and
-- deletes that in-memory copies of the links (graph/adjacency.py) catch up from. Writers take
-- the store's write lock (store.py), so change numbers are handed out in commit order.
CREATE TABLE links (
    id         TEXT COLLATE "C" PRIMARY KEY,
    from_id    TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    to_id      TEXT COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    type       TEXT COLLATE "C" NOT NULL,
    workspace  TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    UNIQUE (from_id, to_id, type)
);
CREATE INDEX links_to ON links (to_id, type);
CREATE INDEX links_workspace ON links (workspace);

CREATE TABLE link_changes (
    seq     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    link_id TEXT COLLATE "C" NOT NULL
);
-- Only the newest 10,000 changes are kept (as SQLite's migration 0014 does).
CREATE FUNCTION links_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    logged BIGINT;
BEGIN
    INSERT INTO link_changes (link_id) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)
    RETURNING seq INTO logged;
    IF logged % 1000 = 0 THEN
        DELETE FROM link_changes WHERE seq <= logged - 10000;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER links_change AFTER INSERT OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION links_log_change();
