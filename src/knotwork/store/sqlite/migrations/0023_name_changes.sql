-- The in-memory lexical index (search/lexical_index.py) indexes a memory's names (evidence ids,
-- artifacts, tag values) beside its content, so a change to any of them must leave a row in
-- memory_changes too (migration 0020 logged content and workspace only).
DROP TRIGGER memories_change_update;
CREATE TRIGGER memories_change_update AFTER UPDATE OF content, workspace, tags, artifacts, evidence ON memories BEGIN
    INSERT INTO memory_changes (memory_rowid) VALUES (new.rowid);
END;
