"""Compact text for ambient recall, ``get_status`` and ``get_memory_stats``: one or two lines each.

Registered with the renderer registry of ``render/core.py`` when the
``render`` package loads; the JSON form is each result's ``to_dict()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from knotwork.render.core import register
from knotwork.text.recall import count_of


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _counts(d: dict[str, int], empty: str, limit: int = 8) -> str:
    items = [f"{k or empty} {v:,}" for k, v in list(d.items())[:limit]]
    more = len(d) - limit
    return ", ".join(items) + (f", +{more} more" if more > 0 else "") if items else "none"


def status(s: Any) -> str:
    r = s.recall
    return (
        f"knotwork {s.version} · {s.store} · schema {s.schema_version} · embedder {s.embedder}\n"
        f"{count_of(s.memories, 'memory', 'memories')} · {count_of(s.links, 'link')} · {count_of(s.vectors, 'vector')} · "
        f"recall p50 {_ms(r['p50_ms'])} ms, p95 {_ms(r['p95_ms'])} ms over {r['count']} calls · {backlog(s.graph_backlog)}"
        + (f" · {worker(s.graph_worker)}" if s.graph_worker else "")
        + (f" · writes: {stages(s.writes)}" if any(v["runs"] for v in s.writes.values()) else "")
        + "".join(f"\n{failure(f)}" for f in s.graph_failures)
    )


def worker(state: dict[str, Any]) -> str:
    """``graph worker: a process`` (or ``in each process``), and when it last read a batch in."""
    where = "graph worker: a process" if state.get("process") else "graph worker: in each process"
    last = state.get("last_batch")
    return where + (f", last batch {last['at'][:19].replace('T', ' ')} ({last['memories']:,})" if last else "")


def failure(f: dict[str, Any]) -> str:
    """One memory whose read-in failed: its id, tries, reason, and whether it is still tried."""
    state = "given up" if f["given_up"] else "tried again"
    return f"graph failed: {f['memory_id']} after {f['attempts']} tries ({state}): {f['error'] or 'no reason recorded'}"


def stages(writes: dict[str, dict[str, float]]) -> str:
    """``validate 0.1 ms, embed 41.0 ms, … per run; enrich 6.2 ms per memory`` (this process's writes)."""
    parts = [f"{name} {1000 * v['seconds'] / v['runs']:.1f} ms" for name, v in writes.items() if name != "enrich" and v["runs"]]
    enrich = writes.get("enrich", {"runs": 0})
    tail = f"; enrich {1000 * enrich['seconds'] / enrich['runs']:.1f} ms per memory" if enrich["runs"] else ""
    return ", ".join(parts) + " per run" + tail


def backlog_note(waiting: int) -> str:
    """The line under a graph answer while memories wait to be read into the graph."""
    return f"(graph: {count_of(waiting, 'memory', 'memories')} not read in yet; this answer is without them)"


def backlog(counts: dict[str, int]) -> str:
    """``graph: up to date``, or how many memories wait to be read into the knowledge graph (and failed)."""
    waiting = counts.get("pending", 0) + counts.get("running", 0)
    if not waiting and not counts.get("failed"):
        return "graph: up to date"
    text = f"graph: {count_of(waiting, 'memory', 'memories')} waiting to be read in" if waiting else "graph: none waiting"
    return text + (f", {counts['failed']:,} failed" if counts.get("failed") else "")


def stats(s: Any) -> str:
    h = s.health
    orphans = sum(h["orphaned"].values())
    span = f"{s.first_valid_at[:10]} to {s.last_valid_at[:10]}" if s.first_valid_at else "empty"
    return (
        f"{count_of(s.memories, 'memory', 'memories')} ({s.retired:,} retired) · {span} · {count_of(s.links, 'link')} "
        f"({_counts(s.links_by_type, '?')}) · {s.embedded_memories:,} embedded ({s.vectors:,} vectors, {s.embedder}) · "
        f"{_size(s.size_bytes)}\n"
        f"workspaces: {_counts(s.by_workspace, '(global)')} · partitions: {_counts(s.by_agent, '(shared)')} · "
        f"categories: {_counts(s.by_category, '(none)')} · tags: {_counts(s.by_tag, '?', 5)}\n"
        f"health: duplicates {h['duplicates_detected']:,} detected, {h['duplicates_merged']:,} merged · "
        f"{h['superseded']:,} superseded · {h['expired']:,} expired ({h['expired_purged']:,} purged) · "
        f"{h['snapshots']:,} snapshots ({h['snapshots_replaced'] + h['snapshots_pruned']:,} pruned, last prune "
        f"{(h['last_prune'] or 'never')[:16].replace('T', ' ')}) · {h['ignored_adds']:,} ignored adds · "
        + (f"LLM consolidation {h['consolidation_llm_asked']:,} decided, {h['consolidation_llm_failed']:,} failed · "
           if h["consolidation_llm_asked"] or h["consolidation_llm_failed"] else "")
        + f"{backlog(h['graph_backlog'])} · "
        + f"orphans {orphans}" + ("" if not orphans else f" ({_counts(h['orphaned'], '?')})")
    )


def recall(r: Any) -> str:
    return r.text


RENDERERS: dict[str, Callable[[Any], str]] = {"status": status, "stats": stats, "recall": recall}

for _operation, _text in RENDERERS.items():
    register(_operation, _text, lambda result: result.to_dict())
