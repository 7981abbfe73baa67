-- Every insert, delete and change of content or workspace of a memory leaves a row here,
-- numbered in order (SQLite's migration 0020), so an in-memory lexical index
-- (search/lexical_index.py) in any process can catch up with other processes' writes by
-- reading only the memories changed since the last change it saw. Memories get a row number
-- (rowno) that index keys them by. Writers take the store's write lock (store.py), so change
-- numbers are handed out in commit order. Only the newest 10,000 changes are kept: a process
-- that fell further behind loads every memory's text again.
ALTER TABLE memories ADD COLUMN rowno BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX memories_rowno ON memories (rowno);

CREATE TABLE memory_changes (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_rowno BIGINT NOT NULL
);
CREATE FUNCTION memories_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    logged BIGINT;
BEGIN
    INSERT INTO memory_changes (memory_rowno) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.rowno ELSE NEW.rowno END)
    RETURNING seq INTO logged;
    IF logged % 1000 = 0 THEN
        DELETE FROM memory_changes WHERE seq <= logged - 10000;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_change AFTER INSERT OR DELETE OR UPDATE OF content, workspace ON memories
FOR EACH ROW EXECUTE FUNCTION memories_log_change();
