"""LangGraph's long-term memory store over knotwork: :class:`KnotworkStore`, a ``langgraph.store.base.BaseStore``.

What maps to what (docs/integrations.md#langgraph says it for users):

- Every item is one ordinary memory in the store's workspace (``workspace=``, default ``langgraph``) and
  partition (``agent_id=``, default the shared one): the CLI lists it, the web UI shows it, search finds it,
  export carries it.
- Its namespace and key are tags: ``lg.ns0`` … ``lg.ns<N-1>`` hold the labels, ``lg.depth`` their number,
  ``lg.key`` the key, ``lg.index`` ``1`` when the item is indexed for a query search (``0`` for
  ``index=False``). A get, a search under a prefix and a list of namespaces pass those tags to knotwork as a
  tag filter, so the store's own query keeps other namespaces out (a query search scores only the memories
  holding the tags, from the search indexes' tag postings; a get or a list reads them by the tags' SQL index): a search
  under ``("users", "u1")`` cannot return another namespace's item, and cannot come back short because
  other namespaces' items took its places.
- The value is kept as JSON in ``metadata.langgraph.value`` (with the namespace, the key and the TTL) and comes
  back exactly as stored. A value that JSON would change (a tuple, a non-text key, NaN) is refused.
- The content (what BM25 and the vectors index) is the text of the index fields (the store's ``index``
  fields, the put's ``index`` list, or the whole value as JSON), followed by a line naming the item,
  ``[users/u1: key]``: knotwork stores one memory per content in a workspace and partition, and that line
  makes two items that hold the same text two memories. ``index=False`` stores the line alone and the item
  leaves query searches (it is still got, listed and filtered).
- A put of an existing key updates that memory (its earlier value stays in its history); ``None`` deletes it.
- TTL: knotwork's expiry (``expires_at``): an item put with ``ttl`` minutes leaves every read that long after
  the put, and ``knotwork prune`` purges it. knotwork does not move the expiry on a read, so the store declares
  ``ttl_config["refresh_on_read"] = False`` and refuses a read that asks for a refresh of an item with a TTL.
- Writes never consolidate (a key-value store replaces by key, it does not merge similar values) and skip the
  store/ignore rules: what a graph puts is kept.

Bad input is refused before anything is written, in LangGraph's error shape (``InvalidNamespaceError`` for a
namespace, ``ValueError`` otherwise: knotwork's ``InvalidInput`` is one) with knotwork's message.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

import knotwork
from knotwork.domain import rules
from knotwork.domain.models import Memory
from knotwork.domain.temporal import now
from knotwork.errors import Conflict, InvalidInput, quote
from knotwork.limits import MAX_TAGS, TAG_VALUE_CHARS
from knotwork.service import Knotwork

NS = "lg.ns"  # lg.ns0, lg.ns1, …: the namespace's labels
DEPTH = "lg.depth"  # how many labels: a get matches the whole namespace, not a prefix of it
KEY = "lg.key"
INDEXED = "lg.index"  # "1": in query searches; "0": put with index=False (or no text at its index fields)
META = "langgraph"  # metadata.langgraph = {namespace, key, value, ttl}
MAX_DEPTH = MAX_TAGS - 3  # every label is a tag, beside depth, key and index
PAGE = 1000  # the most a knotwork list or search returns at once
SEARCH_MAX = 1000  # offset + limit of a query search: knotwork ranks at most this many


class _Put(NamedTuple):
    """A put op checked: its namespace, key and memory fields (:meth:`KnotworkStore._draft`)."""

    ns: tuple[str, ...]
    key: str
    fields: dict[str, Any]


def _namespace_error(field: str, problem: str) -> InvalidNamespaceError:
    return InvalidNamespaceError(str(InvalidInput(field, problem)))


def _label(value: Any, field: str, wildcard: bool = False) -> str:
    """A namespace label: text that a tag holds unchanged (one line, no edge spaces, at most 256 characters)."""
    if not isinstance(value, str):
        raise _namespace_error(field, f"expected text, got {type(value).__name__}")
    if wildcard and value == "*":
        return value
    if not value:
        raise _namespace_error(field, "is empty; a namespace label needs some text")
    if "." in value:
        raise _namespace_error(field, f"{quote(value)} contains a period, which LangGraph keeps for paths")
    if len(value) > TAG_VALUE_CHARS or "\n" in value or "\r" in value or "\x00" in value or value != value.strip():
        raise _namespace_error(
            field, f"{quote(value)}: a label is one line of at most {TAG_VALUE_CHARS} characters without edge spaces"
        )
    return value


def _namespace(value: Any, *, whole: bool, wildcard: bool = False) -> tuple[str, ...]:
    if not isinstance(value, tuple | list):
        raise _namespace_error("namespace", f"expected a tuple of labels, got {type(value).__name__}")
    if whole and not value:
        raise _namespace_error("namespace", "is empty; an item needs a namespace of at least one label")
    if len(value) > MAX_DEPTH:
        raise _namespace_error("namespace", f"has {len(value)} labels; at most {MAX_DEPTH}")
    if whole and value[0] == "langgraph":
        raise _namespace_error("namespace", "its first label cannot be 'langgraph' (LangGraph keeps it)")
    return tuple(_label(v, f"namespace[{i}]", wildcard) for i, v in enumerate(value))


def _key(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidInput("key", f"expected text, got {type(value).__name__}")
    if len(value) > TAG_VALUE_CHARS or "\n" in value or "\r" in value or "\x00" in value or value != value.strip():
        raise InvalidInput("key", f"{quote(value)}: a key is one line of at most {TAG_VALUE_CHARS} characters without edge spaces")
    return value


def _prefix_tags(prefix: tuple[str, ...], wildcard: bool = False) -> dict[str, str | None]:
    """The tag filter of a namespace prefix, its deepest label first (the first tag drives the store's read, and
    the deepest is the most selective); ``wildcard`` (list_namespaces' conditions): ``*`` matches any label
    (elsewhere a ``*`` is a label like any other)."""
    return {f"{NS}{i}": label for i, label in reversed(list(enumerate(prefix))) if not (wildcard and label == "*")}


def _json_value(value: Any) -> dict[str, Any]:
    """The value as JSON gives it back; refused when JSON would give back something else."""
    if not isinstance(value, Mapping):
        raise InvalidInput("value", f"expected a mapping (a JSON object), got {type(value).__name__}")
    try:
        back = json.loads(json.dumps(dict(value), ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInput("value", f"is not JSON: {exc}") from None
    if back != value:
        raise InvalidInput("value", "would not come back as stored through JSON (a tuple, a non-text key?); use lists and text keys")
    return back


def _matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter on a value's field: equality (nested mappings field by field) or ``$eq``, ``$ne``,
    ``$gt``, ``$gte``, ``$lt``, ``$lte``."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(wanted)
                and all(_matches(a, b) for a, b in zip(value, wanted)))
    return value == wanted


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return value == operand
    if op == "$ne":
        return value != operand
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise InvalidInput("filter", f"unknown operator {quote(op)}; use $eq, $ne, $gt, $gte, $lt or $lte")
    try:
        return {"$gt": value > operand, "$gte": value >= operand, "$lt": value < operand, "$lte": value <= operand}[op]
    except TypeError:  # a field of another type (or missing) does not match an ordering
        return False


class KnotworkStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are knotwork memories (see the module's docstring for the mapping).

    ``mem``: an open :class:`knotwork.Knotwork`, or a path or URL that the store opens (and :meth:`close`
    closes). ``index``: ``{"fields": [...]}``, the value fields whose text is indexed (default: the whole
    value); knotwork embeds with its own model, so ``dims`` and ``embed`` are refused rather than ignored.
    ``ttl``: LangGraph's ``TTLConfig`` (``default_ttl`` in minutes; ``refresh_on_read`` must stay False).
    """

    supports_ttl = True

    def __init__(
        self,
        mem: Knotwork | str | Path,
        *,
        workspace: str = "langgraph",
        agent_id: str | None = None,
        index: IndexConfig | Mapping[str, Any] | None = None,
        ttl: TTLConfig | Mapping[str, Any] | None = None,
    ) -> None:
        name = rules.workspace(workspace)
        if name is None:
            raise InvalidInput("workspace", "give the store a workspace name: the global scope is read by every workspace")
        self.workspace, self.agent_id = name, rules.agent_id(agent_id)
        self.fields = self._index_fields(index)
        config = dict(ttl or {})
        if config.get("refresh_on_read"):
            raise InvalidInput("ttl", "refresh_on_read: knotwork's expiry counts from the last put and does not move on a read")
        unknown = set(config) - {"refresh_on_read", "default_ttl", "sweep_interval_minutes"}
        if unknown:
            raise InvalidInput("ttl", f"unknown setting(s) {', '.join(sorted(unknown))}")
        self.ttl_config = TTLConfig(refresh_on_read=False, **{k: v for k, v in config.items() if k != "refresh_on_read"})
        self._owned = not isinstance(mem, Knotwork)
        self.mem = knotwork.open(mem) if self._owned else mem

    @staticmethod
    def _index_fields(index: Mapping[str, Any] | None) -> list[str]:
        if index is None:
            return ["$"]
        if not isinstance(index, Mapping):
            raise InvalidInput("index", f"expected {{'fields': [...]}}, got {type(index).__name__}")
        extra = set(index) - {"fields"}
        if extra:
            raise InvalidInput("index", f"{', '.join(sorted(extra))}: knotwork embeds with its own model; give only 'fields'")
        return KnotworkStore._paths(index.get("fields") or ["$"], "index.fields")

    @staticmethod
    def _paths(fields: Any, field: str) -> list[str]:
        if not isinstance(fields, list | tuple) or not all(isinstance(f, str) and f for f in fields):
            raise InvalidInput(field, f"expected a list of field paths such as ['text', 'notes[*]'], got {quote(fields)}")
        for path in fields:
            if path != "$":
                tokenize_path(path)
        return list(fields)

    def close(self) -> None:
        """Close the knotwork store if this object opened it (from a path)."""
        if self._owned:
            self.mem.close()

    def __enter__(self) -> KnotworkStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- BaseStore ------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order (a get after a put of the same batch sees the put). Every op is checked first:
        one bad op refuses the batch before anything is written. Puts of new keys in a row are stored together
        (``add_many``: one transaction, the embedder run once for all of them)."""
        plans = [self._plan(op) for op in list(ops)]
        results: list[Result] = [None] * len(plans)
        fresh: dict[tuple[tuple[str, ...], str], _Put] = {}
        for i, plan in enumerate(plans):
            if isinstance(plan, _Put):
                found = [] if (plan.ns, plan.key) in fresh else self._find(plan.ns, plan.key)
                if not found and (plan.ns, plan.key) not in fresh:
                    fresh[(plan.ns, plan.key)] = plan
                    continue
                self._add_new(list(fresh.values()))
                fresh.clear()
                self._put(plan, found or self._find(plan.ns, plan.key))
            else:
                self._add_new(list(fresh.values()))
                fresh.clear()
                results[i] = plan()
        self._add_new(list(fresh.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread: knotwork's calls block (SQLite, PostgreSQL, the embedder)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _plan(self, op: Op) -> Any:
        """The op checked, as a call that runs it."""
        if isinstance(op, GetOp):
            ns, key = _namespace(op.namespace, whole=True), _key(op.key)
            return lambda: self._get(ns, key, op.refresh_ttl)
        if isinstance(op, PutOp):
            ns, key = _namespace(op.namespace, whole=True), _key(op.key)
            if op.value is None:
                return lambda: self._delete(ns, key)
            return _Put(ns, key, self._draft(ns, key, op.value, op.index, op.ttl))
        if isinstance(op, SearchOp):
            prefix = _namespace(op.namespace_prefix, whole=False)
            for name in ("limit", "offset"):
                n = getattr(op, name)
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise InvalidInput(name, f"must be a whole number >= 0, got {quote(n)}")
            if op.filter is not None and not isinstance(op.filter, Mapping):
                raise InvalidInput("filter", f"expected a mapping of value fields, got {type(op.filter).__name__}")
            if op.query:  # an empty query is no query, as in LangGraph's own stores
                rules.query(op.query)
                if op.offset + op.limit > SEARCH_MAX:
                    raise InvalidInput("limit", f"offset + limit is {op.offset + op.limit}; a query search ranks at most {SEARCH_MAX}")
            return lambda: self._search(prefix, op)
        if isinstance(op, ListNamespacesOp):
            conditions = [self._condition(c) for c in op.match_conditions or ()]
            if op.max_depth is not None and (isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int) or op.max_depth < 1):
                raise InvalidInput("max_depth", f"must be a whole number >= 1, got {quote(op.max_depth)}")
            return lambda: self._namespaces(conditions, op)
        raise InvalidInput("op", f"unknown operation {type(op).__name__}")

    @staticmethod
    def _condition(c: MatchCondition) -> MatchCondition:
        if c.match_type not in ("prefix", "suffix"):
            raise InvalidInput("match_type", f"must be 'prefix' or 'suffix', got {quote(c.match_type)}")
        return MatchCondition(c.match_type, _namespace(c.path, whole=False, wildcard=True))

    # -- writes ---------------------------------------------------------------------------------------------
    def _draft(self, ns: tuple[str, ...], key: str, value: Any, index: Any, ttl: Any) -> dict[str, Any]:
        """The memory fields of a put, every one checked as knotwork's add checks it."""
        stored = _json_value(value)
        if index is False:
            paths: list[str] = []
        elif index is None:
            paths = self.fields
        else:
            paths = self._paths(index, "index")
        texts = [t for path in paths for t in get_text_at_path(stored, path) if t.strip()]
        label = f"[{'/'.join(ns)}: {key}]"
        content = "\n".join([*texts, label])
        try:
            rules.content(content, self.mem.settings.max_content_bytes)
        except InvalidInput as exc:
            raise InvalidInput("value", f"its indexed text: {exc.problem}") from None
        minutes = None
        if ttl is not None:
            if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl) or ttl <= 0:
                raise InvalidInput("ttl", f"must be a number of minutes > 0, got {quote(ttl)}")
            minutes = float(ttl)
        meta = {META: {"namespace": list(ns), "key": key, "value": stored, "ttl": minutes}}
        try:
            rules.metadata(meta)
        except InvalidInput as exc:
            raise InvalidInput("value", f"{exc.problem} (as JSON, with its namespace and key)") from None
        tags = {**{f"{NS}{i}": label for i, label in enumerate(ns)}, DEPTH: str(len(ns)), KEY: key,
                INDEXED: "1" if texts else "0"}
        rules.tags(tags)
        return {"content": content, "tags": tags, "metadata": meta, "ttl": minutes}

    def _expiry(self, minutes: float | None) -> datetime | None:
        return None if minutes is None else now() + timedelta(minutes=minutes)

    def _put(self, put: _Put, found: list[Memory]) -> None:
        """A put of a key the store holds (``found``, newest first): its memory takes the new value."""
        first, *extra = found
        self.mem.update(first.id, content=put.fields["content"], tags=put.fields["tags"],
                        metadata=put.fields["metadata"], expires_at=self._expiry(put.fields["ttl"]))
        for m in extra:  # two processes put a new key at once: the newest holds it
            self.mem.delete(m.id)

    def _add_new(self, puts: list[_Put]) -> None:
        """Puts of keys the store does not hold yet, as new memories (one ``add``, or one ``add_many``)."""
        items = [{"content": p.fields["content"], "workspace": self.workspace, "agent_id": self.agent_id,
                  "tags": p.fields["tags"], "metadata": p.fields["metadata"], "expires_at": self._expiry(p.fields["ttl"])}
                 for p in puts]
        if not items:
            return
        if len(items) == 1:
            content = items[0].pop("content")
            added = [self.mem.add(content, **items[0], consolidate=False, force=True)]
        else:
            added = self.mem.add_many(items, consolidate=False, force=True)
        for p, m in zip(puts, added):
            if m.duplicate and m.tags != p.fields["tags"]:  # only labels or keys that differ in inner spaces meet
                raise Conflict(f"memory {m.id} already holds the content of {'/'.join(p.ns)}: {p.key}")

    def _delete(self, ns: tuple[str, ...], key: str) -> None:
        for m in self._find(ns, key):
            self.mem.delete(m.id)

    # -- reads ----------------------------------------------------------------------------------------------
    def _find(self, ns: tuple[str, ...], key: str) -> list[Memory]:
        """The memories holding ``ns``/``key``, newest first (one, unless two writers raced)."""
        tags = {KEY: key, **_prefix_tags(ns), DEPTH: str(len(ns))}  # the key first: it drives the read
        page = self.mem.list(workspace=self.workspace, agent_id=self.agent_id, tags=tags, limit=10)
        return [m for m in page if m.workspace == self.workspace]

    def _item(self, m: Memory, score: float | None = None, cls: type = Item) -> Any:
        meta = m.metadata.get(META) or {}
        ns = tuple(meta.get("namespace") or [m.tags[f"{NS}{i}"] for i in range(int(m.tags.get(DEPTH, "0")))])
        key = meta.get("key", m.tags.get(KEY, ""))
        value = meta.get("value", {"content": m.content})  # an item whose metadata was edited by hand
        if cls is SearchItem:
            return SearchItem(namespace=ns, key=key, value=value, created_at=m.created_at, updated_at=m.updated_at, score=score)
        return Item(value=value, key=key, namespace=ns, created_at=m.created_at, updated_at=m.updated_at)

    @staticmethod
    def _refresh(refresh: bool, found: Iterable[Memory]) -> None:
        if refresh and any(m.expires_at is not None for m in found):
            raise NotImplementedError(
                "refresh_ttl: knotwork's expiry counts from the last put and does not move on a read; pass refresh_ttl=False"
            )

    def _get(self, ns: tuple[str, ...], key: str, refresh: bool) -> Item | None:
        found = self._find(ns, key)[:1]
        self._refresh(refresh, found)
        return self._item(found[0]) if found else None

    def _pages(self, tags: Mapping[str, str | None]) -> Iterator[Memory]:
        """Every memory of the store's workspace and partition with ``tags``, newest first, a page at a time."""
        cursor = None
        while True:
            page = self.mem.list(workspace=self.workspace, agent_id=self.agent_id, tags=dict(tags), limit=PAGE, cursor=cursor)
            yield from (m for m in page if m.workspace == self.workspace)
            cursor = page.next_cursor
            if cursor is None:
                return

    def _search(self, prefix: tuple[str, ...], op: SearchOp) -> list[SearchItem]:
        want = op.offset + op.limit
        if op.limit == 0:
            return []
        tags: dict[str, str | None] = dict(_prefix_tags(prefix))
        flt = op.filter or {}
        picked: list[tuple[Memory, float | None]] = []
        if not op.query:
            tags[DEPTH] = None  # any depth: the store's items, not other memories of the workspace
            for m in self._pages(tags):
                if all(_matches(self._value(m).get(k), v) for k, v in flt.items()):
                    picked.append((m, None))
                    if len(picked) >= want:
                        break
        else:
            tags[INDEXED] = "1"
            n = want if not flt else min(SEARCH_MAX, 4 * want)
            while True:  # a value filter that lets few of the best through: rank further down
                hits = self.mem.search(op.query, workspace=self.workspace, agent_id=self.agent_id, tags=tags, limit=n)
                picked = [(h.memory, h.score) for h in hits if h.memory.workspace == self.workspace
                          and all(_matches(self._value(h.memory).get(k), v) for k, v in flt.items())]
                if len(picked) >= want or len(hits) < n or n >= SEARCH_MAX:
                    break
                n = min(SEARCH_MAX, 4 * n)
        page = picked[op.offset:want]
        self._refresh(op.refresh_ttl, (m for m, _ in page))
        return [self._item(m, score, SearchItem) for m, score in page]

    @staticmethod
    def _value(m: Memory) -> dict[str, Any]:
        value = (m.metadata.get(META) or {}).get("value")
        return value if isinstance(value, dict) else {}

    def _namespaces(self, conditions: list[MatchCondition], op: ListNamespacesOp) -> list[tuple[str, ...]]:
        tags: dict[str, str | None] = {}
        for c in conditions:
            if c.match_type == "prefix":
                tags.update(_prefix_tags(c.path, wildcard=True))
        tags[DEPTH] = None
        found: set[tuple[str, ...]] = set()
        for m in self._pages(tags):
            ns = self._item(m).namespace
            if all(self._fits(ns, c) for c in conditions):
                found.add(ns[: op.max_depth] if op.max_depth is not None else ns)
        return sorted(found)[op.offset: op.offset + op.limit]

    @staticmethod
    def _fits(ns: tuple[str, ...], c: MatchCondition) -> bool:
        path = tuple(c.path)
        if len(path) > len(ns):
            return False
        part = ns[: len(path)] if c.match_type == "prefix" else ns[len(ns) - len(path):]
        return all(p == "*" or p == label for p, label in zip(path, part))
