-- The in-memory lexical index (search/lexical_index.py) indexes a memory's names (evidence ids,
-- artifacts, tag values) beside its content, so a change to any of them must leave a row in
-- memory_changes too (migration 0007 logged content and workspace only; SQLite's 0023).
DROP TRIGGER memories_change ON memories;
CREATE TRIGGER memories_change AFTER INSERT OR DELETE OR UPDATE OF content, workspace, tags, artifacts, evidence ON memories
FOR EACH ROW EXECUTE FUNCTION memories_log_change();
