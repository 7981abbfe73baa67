-- The in-memory lexical index (search/lexical_index.py) indexes a memory's names (evidence ids,
-- artifacts, tag values) beside its content, so a change to any of them must leave a row in
-- memory_changes too (migration 0020 logs changes of content and workspace).
CREATE TRIGGER memories_change_names AFTER UPDATE OF tags, artifacts, evidence ON memories
WHEN old.tags IS NOT new.tags OR old.artifacts IS NOT new.artifacts OR old.evidence IS NOT new.evidence BEGIN
    INSERT INTO memory_changes (memory_rowid) VALUES (new.rowid);
END;
