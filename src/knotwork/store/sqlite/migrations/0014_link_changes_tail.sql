-- link_changes grew by a row for every insert and delete of a link, for ever. A process
-- catching its copy of the links up needs only the changes newer than the last one it saw,
-- so only the newest 10,000 are kept. A process that saw none of those (its last change is
-- older than the oldest kept) loads every link again instead of catching up
-- (graph/adjacency.py): about what reading that many changes would cost.
CREATE TRIGGER link_changes_tail AFTER INSERT ON link_changes BEGIN
    DELETE FROM link_changes WHERE seq <= new.seq - 10000;
END;
DELETE FROM link_changes WHERE seq <= (SELECT max(seq) FROM link_changes) - 10000;
