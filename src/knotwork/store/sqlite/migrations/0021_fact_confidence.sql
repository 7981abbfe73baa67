-- Every fact says how sure its extractor was: ``confidence`` in [0, 1], 1.0 for what a
-- caller stated and for facts stored before. The extractor itself (caller, parser, rules or
-- llm) is the ``origin`` column, read as ``Fact.extractor``.
ALTER TABLE facts ADD COLUMN confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1);
