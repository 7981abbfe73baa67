-- Knowledge graph, part 3: communities of entities (label propagation over
-- current facts), each with a name and a summary. Rebuilt per workspace.
CREATE TABLE communities (
    id         TEXT PRIMARY KEY,
    workspace  TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL,
    summary    TEXT NOT NULL DEFAULT '',
    size       INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX communities_workspace ON communities (workspace);

CREATE TABLE community_members (
    entity_id    TEXT PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    community_id TEXT NOT NULL REFERENCES communities (id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX community_members_community ON community_members (community_id);

-- Entities whose facts changed since their community was last computed: the
-- next refresh re-runs community detection on their connected components only.
CREATE TABLE community_dirty (
    entity_id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
