-- Every insert and delete of a link leaves a row here, numbered in order, so an in-memory
-- copy of the links (graph/adjacency.py) in any process can catch up with other
-- processes' writes by reading only the changes newer than the last one it saw.
CREATE TABLE link_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    link_id TEXT NOT NULL
);
CREATE TRIGGER links_change_insert AFTER INSERT ON links BEGIN
    INSERT INTO link_changes (link_id) VALUES (new.id);
END;
CREATE TRIGGER links_change_delete AFTER DELETE ON links BEGIN
    INSERT INTO link_changes (link_id) VALUES (old.id);
END;
