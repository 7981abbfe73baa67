-- Every insert, delete and change of content or workspace of a memory leaves a row here,
-- numbered in order, so an in-memory lexical index (search/lexical_index.py) in any process
-- can catch up with other processes' writes by reading only the memories changed since the
-- last change it saw. As with link_changes, only the newest 10,000 are kept: a process that
-- fell further behind loads every memory's text again.
CREATE TABLE memory_changes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_rowid INTEGER NOT NULL
);
CREATE TRIGGER memories_change_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_changes (memory_rowid) VALUES (new.rowid);
END;
CREATE TRIGGER memories_change_update AFTER UPDATE OF content, workspace ON memories BEGIN
    INSERT INTO memory_changes (memory_rowid) VALUES (new.rowid);
END;
CREATE TRIGGER memories_change_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memory_changes (memory_rowid) VALUES (old.rowid);
END;
CREATE TRIGGER memory_changes_tail AFTER INSERT ON memory_changes BEGIN
    DELETE FROM memory_changes WHERE seq <= new.seq - 10000;
END;
