-- The in-memory lexical index (search/lexical_index.py) indexes a memory's names (evidence ids,
-- artifacts, tag values) beside its content, so a change to any of them must leave a row in
-- memory_changes too (migration 0007 logs changes of content and workspace; SQLite's 0023).
CREATE TRIGGER memories_change_names AFTER UPDATE OF tags, artifacts, evidence ON memories
FOR EACH ROW WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.artifacts IS DISTINCT FROM NEW.artifacts
                   OR OLD.evidence IS DISTINCT FROM NEW.evidence)
EXECUTE FUNCTION memories_log_change();
