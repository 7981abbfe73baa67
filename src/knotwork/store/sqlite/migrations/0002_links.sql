-- Typed, directed relationships between memories. workspace '' is a global link.
-- Deleting either memory deletes the link, so no link ever dangles.
CREATE TABLE links (
    id         TEXT PRIMARY KEY,
    from_id    TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    to_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    workspace  TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    UNIQUE (from_id, to_id, type)
);
CREATE INDEX links_to ON links (to_id, type);
CREATE INDEX links_workspace ON links (workspace);
