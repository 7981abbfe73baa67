-- Every fact says how sure its extractor was and which extractor it was. ``origin``
-- becomes ``extractor`` (caller, parser, rules or llm: the same values as before);
-- ``confidence`` is in [0, 1], 1.0 for what a caller stated and for facts stored before.
ALTER TABLE facts RENAME COLUMN origin TO extractor;
ALTER TABLE facts ADD COLUMN confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1);
