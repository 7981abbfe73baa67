"""Moved to ``knotwork.text.recall`` (the recall service measures this text, so it lives below both the
services and the renderers); still importable from here."""

from knotwork.text.recall import (
    ENTRY_CHARS, ago, assemble, clock_line, count_of, directive_entry, entry, episode_entry, fact_entry,
    graph_fact_entry, heading, health_line, lines, topic_entry,
)

__all__ = [
    "ENTRY_CHARS", "ago", "assemble", "clock_line", "count_of", "directive_entry", "entry", "episode_entry", "fact_entry",
    "graph_fact_entry", "heading", "health_line", "lines", "topic_entry",
]
