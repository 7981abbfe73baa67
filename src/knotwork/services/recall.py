"""Ambient recall: the context an agent gets before it is asked anything.

A recall is a list of sections, each made by one builder and each optional:
the clock, standing directives, what is relevant now (the ``ambient`` search
recipe: freshness, diversity and novelty, so the same items do not fill
every call), current facts of the knowledge graph, recent episodes, topics
(off by default: they repeat), and the store's health. Builders run in
order of priority; each section is fitted into what is left of the token
budget, capped at its share, and the exact o200k count of the final text
never exceeds the budget.

Adding a section is one :class:`SectionSpec` in :data:`SECTIONS`.

A context word such as ``startup`` is not a query. Without a query, the
relevant-now section searches for the workspace's focus: the terms that
recur in its recent and important memories.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from knotwork import tokens
from knotwork.domain import rules
from knotwork.domain.models import ALL_WORKSPACES, Memory, MemoryFilter
from knotwork.domain.temporal import from_text, now, to_text
from knotwork.errors import InvalidInput, quote
from knotwork.text import recall as text
from knotwork.search.lexical import query_terms
from knotwork.search.recipes import RECIPES

if TYPE_CHECKING:
    from knotwork.embed.protocol import Embedder
    from knotwork.store.protocol import Store


class Source(Protocol):
    """What recall reads (the ``Knotwork`` facade has it): a narrow view, so that this module needs nothing
    from the facade's own module."""

    store: Store
    embedder: Embedder | None

    def search(self, query: str, **options: Any) -> list[Any]: ...

    def search_facts(self, query: str, limit: int = 10, **options: Any) -> list[Any]: ...

MAX_BUDGET = 32_000
MAX_QUERY_CHARS = 400  # a long prompt's opening says what it is about; the rest only slows the search
FOCUS_SAMPLE = 40  # recent memories read to find a workspace's focus
FOCUS_TERMS = 6
# The ambient recipe with a smaller candidate pool: recall shows at most fifteen
# items, and forty candidates leave novelty room to rotate them.
AMBIENT = replace(RECIPES["ambient"], candidates=40)
AMBIENT_VECTORS = replace(AMBIENT, name="ambient_vectors", sources=("vector",))
SESSION_CONTEXTS = frozenset({"startup", "session-start", "session_start", "resume", "clear"})


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a section and the memory it came from (if any)."""

    text: str
    memory_id: str | None = None


@dataclass(frozen=True, slots=True)
class Section:
    """A fitted section: its name, the heading shown, and the entries that fit."""

    name: str
    title: str
    entries: tuple[Entry, ...]
    tokens: int  # its heading and entry lines, each counted with its newline

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "entries": [e.text for e in self.entries],
            "memory_ids": [e.memory_id for e in self.entries if e.memory_id],
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class Recall:
    """What an agent is given: ``text`` (exactly), its sections, its exact token count and the time it took."""

    text: str
    sections: tuple[Section, ...]
    tokens: int
    budget_tokens: int
    latency_ms: float
    context: str
    workspace: str | None
    query: str | None  # the search text used: the caller's query, the workspace's focus, or None
    focus: bool  # True when ``query`` was derived from the workspace rather than given

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "sections": [s.to_dict() for s in self.sections],
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "latency_ms": round(self.latency_ms, 3),
            "context": self.context,
            "workspace": self.workspace,
            "query": self.query,
            "focus": self.focus,
        }


@dataclass
class Ctx:
    """What every section builder may read."""

    mem: Source
    context: str
    workspace: str | None
    query: str | None
    at: datetime
    cap: int  # most tokens this section may take
    shown: set[str] = field(default_factory=set)  # memory ids earlier sections already show
    last_session: datetime | None = None
    last_recall: datetime | None = None
    within: frozenset[str] | None = None  # the workspaces the health line counts (a scoped caller's); None: all
    _recent: list[Memory] | None = None

    @property
    def recent(self) -> list[Memory]:
        """The workspace's newest memories valid now, newest first (read on first use: a prompt's recall may not need them)."""
        if self._recent is None:
            self._recent = self.mem.store.recent_memories(self.workspace, FOCUS_SAMPLE, self.at)
        return self._recent

    def filter(self) -> MemoryFilter:
        return MemoryFilter(workspace=self.workspace)


@dataclass(frozen=True, slots=True)
class Draft:
    """A built section before fitting: heading and candidate entries, best first."""

    title: str
    entries: list[Entry]
    keep_empty: bool = False  # show the heading even when no entry fits (the clock, health)


Builder = Callable[[Ctx], Draft | None]


@dataclass(frozen=True, slots=True)
class SectionSpec:
    name: str
    share: float  # largest fraction of the budget this section may take
    default: bool
    build: Builder


# -- builders --------------------------------------------------------------------
def _clock(ctx: Ctx) -> Draft:
    return Draft(text.clock_line(ctx.at, ctx.workspace, ctx.last_session, ctx.last_recall), [], keep_empty=True)


def _directives(ctx: Ctx) -> Draft | None:
    found = ctx.mem.store.directive_memories(ctx.filter(), 40, ctx.at)
    return Draft("Directives and preferences", [Entry(text.directive_entry(m), m.id) for m in found])


def _facts(ctx: Ctx) -> Draft | None:
    if not ctx.query:
        return None
    want = max(3, min(15, ctx.cap // 35))
    # Trigger: the store has vectors.
    # Why: BM25 ranks every memory that shares any query term, so its cost grows
    # with the store: at 100k memories a prompt of common words (or the focus
    # terms, which recur by construction) takes tens of milliseconds in FTS5
    # alone, past recall's whole budget. The vector source costs one scan of
    # the index whatever the words. Outcome: recall searches vectors alone when
    # there are vectors, and BM25 when there are none.
    recipe = AMBIENT_VECTORS if ctx.mem.embedder is not None else AMBIENT
    hits = ctx.mem.search(ctx.query, workspace=ctx.workspace, limit=want + min(len(ctx.shown), 5), recipe=recipe)
    entries = [Entry(text.fact_entry(h.memory, ctx.at), h.memory.id) for h in hits if h.memory.id not in ctx.shown]
    return Draft("Relevant now", entries)


def _graph_facts(ctx: Ctx) -> Draft | None:
    """Facts of the knowledge graph that match the query (or focus) and are true now: never a retired one."""
    if not ctx.query:
        return None
    want = max(2, min(10, ctx.cap // 25))
    hits = ctx.mem.search_facts(ctx.query, limit=want, workspace=ctx.workspace)
    current = [h.fact for h in hits if h.fact.current(ctx.at) and (h.fact.expired_at is None or h.fact.expired_at > ctx.at)]
    return Draft("Known facts", [Entry(text.graph_fact_entry(f)) for f in current])


def _episodes(ctx: Ctx) -> Draft | None:
    entries = [Entry(text.episode_entry(m, ctx.at), m.id) for m in ctx.recent[:12] if m.id not in ctx.shown]
    return Draft("Recent", entries)


def _topics(ctx: Ctx) -> Draft | None:
    counts: Counter[str] = Counter()
    for m in ctx.recent:
        counts.update(set(m.artifacts) | {f"{k}={v}" if v else k for k, v in m.tags.items()})
    return Draft("Topics", [Entry(text.topic_entry(name, n)) for name, n in counts.most_common(12)])


def _health(ctx: Ctx) -> Draft:
    store = ctx.mem.store
    by_scope = _HEALTH.setdefault(store, {})
    cached = by_scope.get(ctx.within)
    if cached is None or time.monotonic() - cached[0] > HEALTH_TTL_S:
        if ctx.within is None:
            counts = (store.count_memories(), store.count_retired(ctx.at), store.count_links(), store.count_vectors()[0])
        else:  # a caller limited to some workspaces counts those only: the rest of the store does not exist for it
            c = store.count_within(ctx.within, ctx.at)
            counts = (c["memories"], c["retired"], c["links"], c["embedded"])
        by_scope[ctx.within] = cached = (time.monotonic(), counts)
    newest = ctx.recent[0].created_at if ctx.recent else None
    return Draft(f"memory: {text.health_line(*cached[1], newest, ctx.at)}", [], keep_empty=True)


# Counting a large store takes tens of milliseconds; the health line may be this old.
HEALTH_TTL_S = 30.0
_HEALTH: weakref.WeakKeyDictionary[Any, dict[frozenset[str] | None, tuple[float, tuple[int, int, int, int]]]] = (
    weakref.WeakKeyDictionary()
)


SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("clock", 1.0, True, _clock),
    SectionSpec("directives", 0.35, True, _directives),
    SectionSpec("facts", 0.45, True, _facts),
    SectionSpec("graph", 0.2, True, _graph_facts),
    SectionSpec("episodes", 0.25, True, _episodes),
    SectionSpec("entities", 0.15, False, _topics),
    SectionSpec("health", 1.0, True, _health),
)
SECTION_NAMES = tuple(s.name for s in SECTIONS)
DEFAULT_SECTIONS = tuple(s.name for s in SECTIONS if s.default)


# -- focus -------------------------------------------------------------------------
def focus_query(recent: Sequence[Memory], max_terms: int = FOCUS_TERMS) -> str | None:
    """The terms that recur in recent, important memories: what a workspace is working on.

    Each memory votes for its distinct terms (and tag values) with weight
    ``(0.5 + importance)``, fading with recency rank. Only terms found in at
    least two memories count, unless no term recurs at all (a young store).
    """
    weights: Counter[str] = Counter()
    seen_in: Counter[str] = Counter()
    for rank, m in enumerate(recent):
        weight = (0.5 + m.importance) * 0.95**rank
        words = {t for t in query_terms(m.content) if len(t) > 2 and not t.isdigit()}
        words |= {v.lower() for v in m.tags.values() if v}
        for word in words:
            weights[word] += weight
            seen_in[word] += 1
    recurring = Counter({t: w for t, w in weights.items() if seen_in[t] >= 2}) or weights
    terms = [t for t, _ in sorted(recurring.items(), key=lambda tw: (-tw[1], tw[0]))[:max_terms]]  # ties: by name
    return " ".join(terms) or None


_FOCUS: dict[tuple[str, ...], str | None] = {}


def _cached_focus(recent: Sequence[Memory]) -> str | None:
    """:func:`focus_query`, remembered for the same recent memories (same ids and versions)."""
    key = tuple(f"{m.id}:{m.version}:{m.importance}" for m in recent)
    if key not in _FOCUS:
        if len(_FOCUS) > 256:
            _FOCUS.clear()
        _FOCUS[key] = focus_query(recent)
    return _FOCUS[key]


# -- fitting -----------------------------------------------------------------------
MIN_LINE_TOKENS = 4  # "- ", a word, an id, the newline: no entry line is shorter
def _fit(title: str, entries: list[Entry], cap: int, keep_empty: bool) -> tuple[list[Entry], int] | None:
    """The entries (in order, skipping any too long) whose line costs fit ``cap``; None if not even the heading fits."""
    cost = tokens.count(text.heading(title)) + 1
    if cost > cap:
        return None
    chosen: list[Entry] = []
    for e in entries:
        if cost + MIN_LINE_TOKENS > cap:
            break
        line = tokens.count(text.entry(e.text)) + 1
        if cost + line <= cap:
            chosen.append(e)
            cost += line
    if not chosen and not keep_empty:
        return None
    return chosen, cost


def _trim_to(sections: list[Section], budget: int) -> tuple[list[Section], str, int]:
    """Drop trailing entries (then whole sections) from the lowest priority up until the exact count fits."""
    while True:
        lines = text.lines([(s.title, [e.text for e in s.entries]) for s in sections])
        n = tokens.count_lines(lines)
        if n <= budget or not sections:
            return sections, "\n".join(lines), n
        last = sections[-1]
        if last.entries:
            dropped = tokens.count(text.entry(last.entries[-1].text)) + 1
            sections[-1] = Section(last.name, last.title, last.entries[:-1], last.tokens - dropped)
        else:
            sections.pop()


# -- latency -----------------------------------------------------------------------
class Latencies:
    """The last ``size`` recall latencies of this process, for p50/p95."""

    def __init__(self, size: int = 2000) -> None:
        self._values: deque[float] = deque(maxlen=size)
        self._lock = threading.Lock()

    def add(self, ms: float) -> None:
        with self._lock:
            self._values.append(ms)

    def summary(self) -> dict[str, float | int | None]:
        with self._lock:
            values = sorted(self._values)
        if not values:
            return {"count": 0, "p50_ms": None, "p95_ms": None}

        def pct(p: float) -> float:
            return round(values[min(len(values) - 1, int(p * len(values)))], 3)

        return {"count": len(values), "p50_ms": pct(0.50), "p95_ms": pct(0.95)}


LATENCIES = Latencies()


# -- the recall --------------------------------------------------------------------
def _meta_key(kind: str, workspace: str | None) -> str:
    return f"recall.{kind}:{workspace or ''}"


def _meta_time(mem: Source, key: str) -> datetime | None:
    value = mem.store.get_meta(key)
    return from_text(value) if value else None


def _sections(value: Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return DEFAULT_SECTIONS
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise InvalidInput("sections", f"expected a list of section names from {', '.join(SECTION_NAMES)}")
    unknown = [v for v in value if v not in SECTION_NAMES]
    if unknown:
        raise InvalidInput("sections", f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTION_NAMES)}")
    return tuple(dict.fromkeys(value))


def _budget(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_BUDGET:
        raise InvalidInput("budget_tokens", f"must be a whole number from 1 to {MAX_BUDGET}, got {quote(value)}")
    return value


def _context(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise InvalidInput("context", f"must be a short word such as 'startup' or 'prompt', got {quote(value)}")
    return value.strip()


def recall(
    mem: Source,
    context: str = "startup",
    *,
    workspace: str | None = None,
    query: str | None = None,
    budget_tokens: int = 1500,
    sections: Sequence[str] | None = None,
    within: Collection[str] | None = None,
) -> Recall:
    """The context to hand an agent now, in at most ``budget_tokens`` o200k tokens (see the module doc);
    ``within`` (workspace names, '' for the global scope) limits the health line's counts to them."""
    started = time.perf_counter()
    ctx_word = _context(context)
    budget = _budget(budget_tokens)
    wanted = _sections(sections)
    ws = None if workspace is None else rules.workspace(workspace)
    if ws == ALL_WORKSPACES:
        raise InvalidInput("workspace", "recall reads one workspace (and global), not '*'")
    given = query.strip()[:MAX_QUERY_CHARS] if isinstance(query, str) and query.strip() else None
    if query is not None and not isinstance(query, str):
        raise InvalidInput("query", f"expected text, got {type(query).__name__}")
    # A prompt of punctuation alone ("???") asks about nothing a search can match (rules.searchable): it gets
    # nothing relevant, neither an error (a hook would block the prompt) nor the workspace's focus in its place.
    unsearchable = given is not None and not rules.searchable(given)
    at = now()
    ctx = Ctx(mem, ctx_word, ws, given, at, budget, within=None if within is None else frozenset(within))
    ctx.last_session = _meta_time(mem, _meta_key("session", ws))
    ctx.last_recall = _meta_time(mem, _meta_key("last", ws))
    focus = False
    if unsearchable:
        ctx.query = None
    elif ctx.query is None:
        ctx.query = _cached_focus(ctx.recent)
        focus = ctx.query is not None

    fitted: list[Section] = []
    left = budget
    for spec in SECTIONS:
        if spec.name not in wanted or left <= 0:
            continue
        ctx.cap = min(left, max(1, int(spec.share * budget)))
        draft = spec.build(ctx)
        if draft is None:
            continue
        fit = _fit(draft.title, draft.entries, ctx.cap, draft.keep_empty)
        if fit is None:
            continue
        chosen, cost = fit
        fitted.append(Section(spec.name, draft.title, tuple(chosen), cost))
        ctx.shown.update(e.memory_id for e in chosen if e.memory_id)
        left -= cost

    fitted, out, count = _trim_to(fitted, budget)
    with mem.store.transaction():
        mem.store.set_meta(_meta_key("last", ws), to_text(at))
        if ctx_word in SESSION_CONTEXTS:
            mem.store.set_meta(_meta_key("session", ws), to_text(at))
    latency = (time.perf_counter() - started) * 1000
    LATENCIES.add(latency)
    return Recall(out, tuple(fitted), count, budget, latency, ctx_word, ws, ctx.query, focus)
