"""The text of ambient recall: what an agent is handed at the start of a session or a turn.

Pure functions over domain values. The recall service calls them while it
fits sections into a token budget (it has to measure the very text it
hands out), and ``render/status.py`` counts with :func:`count_of`: so they
live below both, import only ``domain/`` and this package, and the services
need nothing from ``render/``.
"""

from __future__ import annotations

from datetime import datetime

from knotwork.domain.models import Memory
from knotwork.text.ages import age
from knotwork.text.ages import ago as _ago

TYPE_CHECKING = False
if TYPE_CHECKING:
    from knotwork.knowledge.models import Fact

ENTRY_CHARS = 220  # one entry: enough for a decision and its reason, short enough to keep many


def ago(then: datetime | None, now: datetime) -> str:
    """A short age in the units of every other surface (render/compact.py): 'just now', '5m ago', '3h ago',
    '2d ago', '4mo ago', '2y ago'."""
    if then is None:
        return "never"
    said = _ago(min(then, now), now)
    return "just now" if said == "now" else said


def _flat(text: str, limit: int = ENTRY_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return (flat[:limit].rsplit(" ", 1)[0] or flat[:limit]) + "…"


def clock_line(now: datetime, workspace: str | None, last_session: datetime | None, last_recall: datetime | None) -> str:
    """``now 2026-11-22 17:05 UTC · workspace shop · last session 3h ago · last recall 5m ago``."""
    parts = [f"now {now.strftime('%Y-%m-%d %H:%M')} UTC", f"workspace {workspace or '(global)'}"]
    if last_session is not None:
        parts.append(f"last session {ago(last_session, now)}")
    if last_recall is not None:
        parts.append(f"last recall {ago(last_recall, now)}")
    return " · ".join(parts)


def directive_entry(m: Memory) -> str:
    label = f"[{m.category}] " if m.category else ""
    return f"{label}{_flat(m.content)} ({m.id[-8:]})"


def fact_entry(m: Memory, now: datetime) -> str:
    label = f"[{m.category}] " if m.category else ""
    return f"{label}{_flat(m.content)} ({age(m, now)}, {m.id[-8:]})"


def graph_fact_entry(f: Fact) -> str:
    """``Ana prefers tabs (since 2026-01-03, 1a2b3c4d)``: a current fact of the knowledge graph."""
    since = f"since {f.valid_at.strftime('%Y-%m-%d')}, " if f.valid_at else ""
    return f"{_flat(f.fact)} ({since}{f.id[-8:]})"


def episode_entry(m: Memory, now: datetime) -> str:
    return f"{age(m, now)}: {_flat(m.content, ENTRY_CHARS // 2 + 40)} ({m.id[-8:]})"


def topic_entry(name: str, count: int) -> str:
    return f"{name} ({count})"


def count_of(n: int, one: str, many: str | None = None) -> str:
    """``1 memory``, ``2 memories``, ``1,234 links``."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def health_line(memories: int, retired: int, links: int, vectors: int, newest: datetime | None, now: datetime) -> str:
    parts = [count_of(memories, "memory", "memories"), f"{retired:,} retired", count_of(links, "link"), f"{vectors:,} embedded"]
    if newest is not None:
        parts.append(f"last added {ago(newest, now)}")
    return " · ".join(parts)


def heading(title: str) -> str:
    return f"## {title}"


def entry(text: str) -> str:
    return f"- {text}"


def assemble(blocks: list[tuple[str, list[str]]]) -> str:
    """Sections as ``## title`` followed by ``- entry`` lines; a section with no entries is its heading alone."""
    return "\n".join(lines(blocks))


def lines(blocks: list[tuple[str, list[str]]]) -> list[str]:
    """The lines of :func:`assemble`."""
    out: list[str] = []
    for title, entries in blocks:
        out.append(heading(title))
        out += [entry(e) for e in entries]
    return out
