-- A memory's thread: metadata.thread (the conversation, session or thread it belongs to; '' when it names
-- none), then time. Search reads a memory's neighbours in its thread, or in its workspace and partition
-- when it names none, by (valid_at, id): one step along this index.
CREATE INDEX memories_thread ON memories (workspace, agent_id, coalesce(json_extract(metadata, '$.thread'), ''), valid_at, id);
