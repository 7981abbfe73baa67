"""Moved to ``knotwork.metrics`` (the status views read the metrics file too, so it lives below both the
services and the renderers); still importable from here."""

from knotwork.metrics import CallMetrics, MetricsLog, count_tokens, read, summary

__all__ = ["CallMetrics", "MetricsLog", "count_tokens", "read", "summary"]
