-- Ambient recall reads a workspace's standing instructions on every call:
-- memories in a directive-like category, or of high importance. This partial
-- index holds only those rows, so the read costs a few index steps however
-- large the store grows. The WHERE clause must stay word for word the same as
-- DIRECTIVES_WHERE in knotwork/store/sqlite/store.py, or SQLite will not use it.
CREATE INDEX memories_directives ON memories (importance, id)
WHERE category IN ('directive', 'preference', 'decision', 'rule', 'convention', 'instruction') OR importance >= 0.8;

