"""Retrieval: turning a question into ranked memories."""
