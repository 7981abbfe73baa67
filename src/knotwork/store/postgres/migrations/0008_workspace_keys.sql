-- The workspace in every key, so that the schema can be distributed by workspace (Citus) as it stands.
--
-- Rule (checked by tests/store/postgres/test_schema_keys.py over the catalog): every table that holds rows of one workspace
-- has a `workspace` column; its primary key and every unique index include it; every foreign key includes a
-- workspace column on both sides. Where a row may point at a row of another workspace (a link or a fact about
-- a global memory or entity, a similar list naming a global memory, a memory surfaced in a workspace), the
-- reference carries the target's workspace in a column of its own (`to_workspace`, `entity_workspace`, ...):
-- those are the cross-scope references, the only foreign keys a distributed deployment cannot keep, so the
-- store clears what points at a row before it deletes the row (the store's _forget_* methods).
-- Store-wide tables (schema_migrations, store_meta, store_clock, hygiene_counters and the change logs) hold no
-- workspace's rows: reference tables.
--
-- Ids stay unique by construction (time + 80 random bits; imports check under the write lock); plain indexes
-- on `id` serve the by-id reads.

-- memories ---------------------------------------------------------------------------------------------------
ALTER TABLE memories DROP CONSTRAINT memories_pkey CASCADE;     -- and every foreign key that pointed at it
ALTER TABLE memories ADD PRIMARY KEY (workspace, id);
DROP INDEX memories_workspace;                                   -- the primary key now
CREATE INDEX memories_id ON memories (id);
DROP INDEX memories_rowno;
CREATE INDEX memories_rowno ON memories (rowno);

ALTER TABLE memory_tags ADD COLUMN workspace TEXT COLLATE "C";
UPDATE memory_tags t SET workspace = m.workspace FROM memories m WHERE m.id = t.memory_id;
ALTER TABLE memory_tags ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT memory_tags_pkey, ADD PRIMARY KEY (workspace, memory_id, key),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE memory_versions ADD COLUMN workspace TEXT COLLATE "C";
UPDATE memory_versions v SET workspace = m.workspace FROM memories m WHERE m.id = v.memory_id;
ALTER TABLE memory_versions ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT memory_versions_pkey, ADD PRIMARY KEY (workspace, memory_id, version),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX memory_versions_memory ON memory_versions (memory_id, version);

ALTER TABLE memory_vectors ADD COLUMN workspace TEXT COLLATE "C";
UPDATE memory_vectors v SET workspace = m.workspace FROM memories m WHERE m.id = v.memory_id;
ALTER TABLE memory_vectors ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT memory_vectors_pkey, ADD PRIMARY KEY (workspace, seq),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX memory_vectors_seq ON memory_vectors (seq);

-- links: the link's own workspace, and each end's -------------------------------------------------------------
ALTER TABLE links ADD COLUMN from_workspace TEXT COLLATE "C", ADD COLUMN to_workspace TEXT COLLATE "C";
UPDATE links l SET from_workspace = f.workspace, to_workspace = t.workspace
    FROM memories f, memories t WHERE f.id = l.from_id AND t.id = l.to_id;
ALTER TABLE links ALTER COLUMN from_workspace SET NOT NULL, ALTER COLUMN to_workspace SET NOT NULL,
    DROP CONSTRAINT links_pkey, ADD PRIMARY KEY (workspace, id),
    DROP CONSTRAINT links_from_id_to_id_type_key, ADD UNIQUE (workspace, from_id, to_id, type),
    ADD FOREIGN KEY (from_workspace, from_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (to_workspace, to_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX links_id ON links (id);
CREATE INDEX links_from ON links (from_id, type);

ALTER TABLE surfacing ADD COLUMN memory_workspace TEXT COLLATE "C";
UPDATE surfacing s SET memory_workspace = m.workspace FROM memories m WHERE m.id = s.memory_id;
ALTER TABLE surfacing ALTER COLUMN memory_workspace SET NOT NULL,
    ADD FOREIGN KEY (memory_workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX surfacing_memory ON surfacing (memory_id);

ALTER TABLE memory_similar ADD COLUMN workspace TEXT COLLATE "C", ADD COLUMN neighbour_workspace TEXT COLLATE "C";
UPDATE memory_similar s SET workspace = m.workspace FROM memories m WHERE m.id = s.memory_id;
UPDATE memory_similar s SET neighbour_workspace = m.workspace FROM memories m WHERE m.id = s.neighbour_id;
ALTER TABLE memory_similar ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT memory_similar_pkey, ADD PRIMARY KEY (workspace, memory_id, rank),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (neighbour_workspace, neighbour_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX memory_similar_memory ON memory_similar (memory_id);

ALTER TABLE extraction_queue ADD COLUMN workspace TEXT COLLATE "C";
UPDATE extraction_queue q SET workspace = m.workspace FROM memories m WHERE m.id = q.memory_id;
ALTER TABLE extraction_queue ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT extraction_queue_pkey, ADD PRIMARY KEY (workspace, memory_id),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX extraction_queue_memory ON extraction_queue (memory_id);

-- the knowledge graph ------------------------------------------------------------------------------------------
ALTER TABLE entities DROP CONSTRAINT entities_pkey CASCADE;
ALTER TABLE entities ADD PRIMARY KEY (workspace, id);
CREATE INDEX entities_id ON entities (id);

ALTER TABLE entity_aliases ADD COLUMN entity_workspace TEXT COLLATE "C";
UPDATE entity_aliases a SET entity_workspace = e.workspace FROM entities e WHERE e.id = a.entity_id;
ALTER TABLE entity_aliases ALTER COLUMN entity_workspace SET NOT NULL,
    ADD FOREIGN KEY (entity_workspace, entity_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE entity_grams
    ADD FOREIGN KEY (workspace, entity_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE entity_vectors ADD COLUMN workspace TEXT COLLATE "C";
UPDATE entity_vectors v SET workspace = e.workspace FROM entities e WHERE e.id = v.entity_id;
ALTER TABLE entity_vectors ALTER COLUMN workspace SET NOT NULL,
    DROP CONSTRAINT entity_vectors_pkey, ADD PRIMARY KEY (workspace, entity_id),
    ADD FOREIGN KEY (workspace, entity_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX entity_vectors_entity ON entity_vectors (entity_id);

ALTER TABLE entity_mentions ADD COLUMN workspace TEXT COLLATE "C", ADD COLUMN entity_workspace TEXT COLLATE "C";
UPDATE entity_mentions x SET workspace = m.workspace FROM memories m WHERE m.id = x.memory_id;
UPDATE entity_mentions x SET entity_workspace = e.workspace FROM entities e WHERE e.id = x.entity_id;
ALTER TABLE entity_mentions ALTER COLUMN workspace SET NOT NULL, ALTER COLUMN entity_workspace SET NOT NULL,
    DROP CONSTRAINT entity_mentions_pkey, ADD PRIMARY KEY (workspace, memory_id, entity_id),
    ADD FOREIGN KEY (workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (entity_workspace, entity_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX entity_mentions_memory ON entity_mentions (memory_id);

ALTER TABLE facts DROP CONSTRAINT facts_pkey CASCADE;           -- and superseded_by's, fact_sources'
ALTER TABLE facts ADD PRIMARY KEY (workspace, id);
CREATE INDEX facts_id ON facts (id);
DROP INDEX facts_workspace;                                      -- the primary key now
ALTER TABLE facts ADD COLUMN subject_workspace TEXT COLLATE "C", ADD COLUMN object_workspace TEXT COLLATE "C",
    ADD COLUMN superseded_workspace TEXT COLLATE "C";
UPDATE facts f SET subject_workspace = e.workspace FROM entities e WHERE e.id = f.subject_id;
UPDATE facts f SET object_workspace = e.workspace FROM entities e WHERE e.id = f.object_id;
UPDATE facts f SET superseded_workspace = g.workspace FROM facts g WHERE g.id = f.superseded_by;
UPDATE facts SET superseded_by = NULL WHERE superseded_by IS NOT NULL AND superseded_workspace IS NULL;
ALTER TABLE facts ALTER COLUMN subject_workspace SET NOT NULL, ALTER COLUMN object_workspace SET NOT NULL,
    ADD FOREIGN KEY (subject_workspace, subject_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (object_workspace, object_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (superseded_workspace, superseded_by) REFERENCES facts (workspace, id)
        ON DELETE SET NULL (superseded_workspace, superseded_by) ON UPDATE CASCADE;

ALTER TABLE fact_sources ADD COLUMN workspace TEXT COLLATE "C", ADD COLUMN memory_workspace TEXT COLLATE "C";
UPDATE fact_sources s SET workspace = f.workspace FROM facts f WHERE f.id = s.fact_id;
UPDATE fact_sources s SET memory_workspace = m.workspace FROM memories m WHERE m.id = s.memory_id;
ALTER TABLE fact_sources ALTER COLUMN workspace SET NOT NULL, ALTER COLUMN memory_workspace SET NOT NULL,
    DROP CONSTRAINT fact_sources_pkey, ADD PRIMARY KEY (workspace, fact_id, memory_id),
    ADD FOREIGN KEY (workspace, fact_id) REFERENCES facts (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (memory_workspace, memory_id) REFERENCES memories (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX fact_sources_fact ON fact_sources (fact_id);

ALTER TABLE communities DROP CONSTRAINT communities_pkey CASCADE;
ALTER TABLE communities ADD PRIMARY KEY (workspace, id);
CREATE INDEX communities_id ON communities (id);
DROP INDEX communities_workspace;

-- a member row lives in its entity's workspace (an entity is in one community); the community may be another's
ALTER TABLE community_members ADD COLUMN workspace TEXT COLLATE "C", ADD COLUMN community_workspace TEXT COLLATE "C";
UPDATE community_members x SET workspace = e.workspace FROM entities e WHERE e.id = x.entity_id;
UPDATE community_members x SET community_workspace = c.workspace FROM communities c WHERE c.id = x.community_id;
DELETE FROM community_members WHERE workspace IS NULL OR community_workspace IS NULL;
ALTER TABLE community_members ALTER COLUMN workspace SET NOT NULL, ALTER COLUMN community_workspace SET NOT NULL,
    DROP CONSTRAINT community_members_pkey, ADD PRIMARY KEY (workspace, entity_id),
    ADD FOREIGN KEY (workspace, entity_id) REFERENCES entities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE,
    ADD FOREIGN KEY (community_workspace, community_id) REFERENCES communities (workspace, id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX community_members_entity ON community_members (entity_id);

ALTER TABLE community_dirty DROP CONSTRAINT community_dirty_pkey, ADD PRIMARY KEY (workspace, entity_id);
CREATE INDEX community_dirty_entity ON community_dirty (entity_id);
