"""Graph engines: traversal over memory links (and, later, entities)."""
