"""The search pipeline: candidates from each source → fusion → rerankers → limit.

Sources and rerankers are looked up by name from the recipe. The pipeline
gathers what each reranker needs (dates, vectors, link counts…) in one batch
before calling it, and records every stage it ran in a ``Trace``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from knotwork.domain.models import ALL_WORKSPACES, Memory, MemoryFilter, RankingFacts
from knotwork.graph.traverse import bfs, over_links
from knotwork.search.feedback import QUERY_STAGES, expansion_terms
from knotwork.search.fusion import FUSIONS, RELATIVE_FUSIONS
from knotwork.search.lexical import analyze, analyze_query, identifiers, query_parts
from knotwork.search.later import LATER_DEPTH, TEXT_CHARS, later_value
from knotwork.search.lexical_index import LexicalIndex
from knotwork.search.neighbourhoods import neighbourhood_score
from knotwork.search.replies import REPLY_DEPTH, reply_lift
from knotwork.search.recipes import Recipe, Step
from knotwork.search.rerankers import RERANKERS, THREAD_DEPTH, Candidate
from knotwork.search.shapes import tallies
from knotwork.search.speakers import OPENING, SPEAKER_STAGES, names_in, speaker_of
from knotwork.search.vector_index import VectorIndex
from knotwork.search.when import looks_back, time_window

_NON_WORD = re.compile(r"[^\w+#]+")


def _words(text: str) -> str:
    """Lower-case words joined by single spaces, for whole-phrase matching of names."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


GRAPH_DEPTH = 3
RESTATED_DEPTH = 50  # candidates the restatement check compares (bench/knowledge_update.py)
NEIGHBOUR_DEPTH = 30  # candidates whose neighbours in their thread are read (thread_neighbours)
STEPS = {**RERANKERS, **QUERY_STAGES, **SPEAKER_STAGES, "neighbourhood_score": neighbourhood_score, "reply_lift": reply_lift,
         "later_value": later_value}  # every step a recipe may name


@dataclass
class Trace:
    """What a search did: each stage in order, how many candidates it produced and how long it took."""

    stages: list[tuple[str, int, float]] = field(default_factory=list)
    answerable: dict[str, float] | None = None  # what the "nothing matches" rule read (search/answerable.py)
    tops: dict[str, float] = field(default_factory=dict)  # each source's best score, whatever the fusion kept

    def add(self, stage: str, count: int, started: float) -> None:
        self.stages.append((stage, count, (time.perf_counter() - started) * 1000))

    def names(self) -> list[str]:
        return [s for s, _, _ in self.stages]


@dataclass
class Query:
    text: str
    flt: MemoryFilter
    limit: int
    at: datetime
    center: str | None = None


class Pipeline:
    """Runs recipes against one store (and its vector index, when there is an embedder)."""

    def __init__(
        self,
        store: Any,
        index: VectorIndex | None,
        embed_query: Callable[[str], np.ndarray] | None,
        lexical: LexicalIndex,
    ) -> None:
        self.store = store
        self.index = index
        self.lexical = lexical
        self.embed_query = embed_query
        self._sources = {"bm25": self._bm25, "vector": self._vector, "graph": self._graph, "names": self._names}

    def close(self) -> None:
        pass

    # -- sources --------------------------------------------------------------
    def _bm25(self, q: Query, n: int, state: dict) -> list[tuple[str, float]]:
        """(memory id, lexical relevance in [0, 1]) of the best BM25 matches the filter lets through.

        The filter's tags are applied by the index itself (its tag postings): only memories holding them are
        scored, so a tag that few of the best matches hold does not send the search further down; the store
        checks the rest of the filter (and the tags again) on what comes back."""
        terms, parts = analyze_query(q.text), query_parts(q.text)
        take = 2 * n
        while True:
            hits = self.lexical.search(terms, take, q.flt.workspace, parts, q.flt.tags, q.flt.tags_mode)
            allowed = self.store.filter_memory_ids([h.memory_id for h in hits], q.flt, q.at)
            scale = state["recipe"].lexical_scale
            kept = [(h.memory_id, h.coverage if scale == "coverage" else h.relevance) for h in hits if h.memory_id in allowed]
            # A filter that lets few of the best through: look further down, until nothing more matched.
            if len(kept) >= n or len(hits) < take:
                return kept[:n]
            take *= 4

    def _vector(self, q: Query, n: int, state: dict) -> list[tuple[str, float]]:
        if self.index is None or self.embed_query is None:
            return []
        # The memories holding the filter's tags, from the lexical index's postings: the store need not list them
        # (None when too many hold them: the store's filter serves).
        among = self.lexical.tagged(q.flt.tags, q.flt.tags_mode, q.flt.workspace) if q.flt.tags else None
        return self.store.vector_candidates(
            self.index, self.embed_query(q.text), n, q.flt, q.at, state["recipe"].min_similarity, among=among
        )

    def _names(self, q: Query, n: int, state: dict) -> list[tuple[str, float]]:
        """(memory id, 1 / holders) of the memories an identifier in the query names: an evidence id, artifact or
        tag value equal to it, held by at most ``recipe.name_holders`` memories of the searched scopes."""
        keys = identifiers(q.text)
        if not keys:
            return []
        most = state["recipe"].name_holders
        named = {mid: h for mid, h in self.lexical.named(keys, q.flt.workspace).items() if h <= most}
        allowed = self.store.filter_memory_ids(list(named), q.flt, q.at)
        return sorted(((mid, 1.0 / h) for mid, h in named.items() if mid in allowed), key=lambda c: -c[1])[:n]

    def _graph(self, q: Query, n: int, state: dict) -> list[tuple[str, float]]:
        hops = self._hops(q, state)
        allowed = self.store.filter_memory_ids(list(hops), q.flt, q.at)
        ranked = sorted((h, mid) for mid, h in hops.items() if mid in allowed and h > 0)
        return [(mid, 1.0 / (1 + h)) for h, mid in ranked[:n]]

    def _hops(self, q: Query, state: dict) -> dict[str, int]:
        if "hops" not in state:
            hops: dict[str, int] = {}
            if q.center:
                steps, _ = bfs(q.center, over_links(self.store.stored_links_touching), max_depth=GRAPH_DEPTH)
                hops = {q.center: 0, **{s.node: s.depth for s in steps}}
            state["hops"] = hops
        return state["hops"]

    # -- reranker inputs ------------------------------------------------------
    # What each reranker needs besides the candidates, fetched in one batch.
    def _inputs(self, step: Step, q: Query, cands: list[Candidate], facts: dict[str, RankingFacts], state: dict) -> dict[str, Any]:
        ids = [c.id for c in cands]
        workspace = q.flt.workspace if q.flt.workspace != ALL_WORKSPACES else None

        def dates() -> dict[str, datetime]:  # valid_at by id: one map for every stage that reads it
            if "dates" not in state:
                state["dates"] = {i: f.valid_at for i, f in facts.items()}
            return state["dates"]

        def places(among: list[str]) -> dict[str, tuple[str, str, str]]:  # where each sits: read once per search
            known = state.setdefault("places", {})
            if missing := [i for i in among if i not in known]:
                known.update(self.store.memory_places(missing))
            return known

        gather: dict[str, Callable[[], dict[str, Any]]] = {
            "node_distance": lambda: {"hops": self._hops(q, state)},
            "episode_mentions": lambda: {"mentions": self.store.incoming_link_counts(ids)},
            "mmr": lambda: {"vectors": self.index.vectors_of(ids) if self.index else {}, "k": q.limit},
            "freshness": lambda: {"dates": dates(), "now": q.at},
            "diversity": lambda: {"keys": {i: f.artifact for i, f in facts.items()}},
            "novelty": lambda: {"surfaced": self.store.surfaced_counts(workspace, ids, q.at)},
            "importance": lambda: {"values": {i: f.importance for i, f in facts.items()}},
            "brevity": lambda: {"lengths": {i: f.words for i, f in facts.items()}},
            "time_window": lambda: {"dates": dates(), "window": time_window(q.text, q.at)},
            "source_leaders": lambda: {"tally": tallies(q.text)},
            "thread_score": lambda: {"threads": self.store.memory_threads(ids[: step.kwargs().get("depth", THREAD_DEPTH)])},
            "thread_neighbours": lambda: {"neighbours": self._neighbours(q, ids[:NEIGHBOUR_DEPTH])},
            "feedback": lambda: {
                "vectors": self.index.vectors_of(ids) if self.index else {},
                "query": self.embed_query(q.text) if self.index is not None and self.embed_query else None,
            },
            "lexical_feedback": lambda: {"relevance": self._expanded(q, cands, **step.kwargs())},
            "thread_spread": lambda: {
                "threads": self.store.memory_threads(ids[: max(step.kwargs().get("depth", 50), 2 * step.kwargs().get("k", 5))])
            },
            "speaker": lambda: self._speakers(q, ids[: step.kwargs().get("depth", 50)]),
            "reply_lift": lambda: self._replies(q, ids[: step.kwargs().get("depth", REPLY_DEPTH)]),
            "neighbourhood_score": lambda: {"places": places(ids[: step.kwargs().get("depth", THREAD_DEPTH)]), "dates": dates()},
            "later_value": lambda: {
                "texts": self.store.content_starts(ids[: step.kwargs().get("depth", LATER_DEPTH)], TEXT_CHARS),
                "dates": dates(),
                "places": places(ids[: step.kwargs().get("depth", LATER_DEPTH)]),
                # each memory's own vector (its first passage), only when the step reads vectors
                "vectors": self.index.vectors_of(ids[: step.kwargs().get("depth", LATER_DEPTH)])
                if self.index is not None and step.kwargs().get("cosine") is not None else {},
            },
            "restated": lambda: {"vectors": {}, "dates": {}} if looks_back(q.text, q.at) else {
                "vectors": self._closest_passages(q, ids[:RESTATED_DEPTH]),
                "dates": dates(),
                "topics": self._named_topics(q, ids[:RESTATED_DEPTH]) if step.kwargs().get("topic_threshold") else {},
            },
        }
        return gather[step.name]() if step.name in gather else {}

    def _expanded(self, q: Query, cands: list[Candidate], depth: int = 10, terms: int = 10, **_: Any) -> dict[str, float]:
        """The BM25 relevance of the query with the expansion terms of its first ``depth`` candidates (lexical_feedback)."""
        asked = analyze_query(q.text)
        top = cands[:depth]
        memories = self.store.get_memories([c.id for c in top])
        docs = [(analyze(memories[c.id].content), c.score) for c in top if c.id in memories]
        idf = self.lexical.idf(list({t for words, _ in docs for t in words}), q.flt.workspace)
        extra = expansion_terms(docs, asked, idf.__getitem__, terms)
        if not extra:
            return {}
        hits = self.lexical.search([*asked, *extra], max(len(cands), 1), q.flt.workspace)
        return {h.memory_id: h.relevance for h in hits}

    def _speakers(self, q: Query, ids: list[str]) -> dict[str, Any]:
        """The names the query says and, when it says any, the speaker of each of ``ids`` (speaker)."""
        named = names_in(q.text)
        if not named:
            return {"speakers": {}, "named": named}
        starts = self.store.content_starts(ids, OPENING)  # the start of each text, not whole memories
        return {"speakers": {mid: speaker_of(text) for mid, text in starts.items()}, "named": named}

    def _neighbours(self, q: Query, ids: list[str]) -> dict[str, tuple[str, list[str]]]:
        """Each of ``ids``' thread and the memories just before and after it there, those the query's filter lets through."""
        around = self.store.thread_neighbours(ids)
        allowed = self.store.filter_memory_ids(list({n for _, near in around.values() for n in near}), q.flt, q.at)
        return {mid: (thread, [n for n in near if n in allowed]) for mid, (thread, near) in around.items()}

    def _replies(self, q: Query, ids: list[str]) -> dict[str, Any]:
        """Which of ``ids`` ask a question, and the memory just after each, those the query's filter lets through."""
        replies = self.store.memory_replies(ids, q.flt, q.at)  # one read: the reply, whether each asks, the words
        return {
            "questions": {i: r.asks for i, r in replies.items()},
            "after": {i: (r.thread, r.reply, r.seconds) for i, r in replies.items()},
            "lengths": {r.reply: r.words for r in replies.values()},
        }

    def _closest_passages(self, q: Query, ids: list[str]) -> dict[str, np.ndarray]:
        """Each memory's passage closest to the query (the one its vector score came from)."""
        if self.index is None or self.embed_query is None:
            return {}
        # The query vector is cached: the vector source embedded it already.
        return self.index.closest_passages(ids, self.embed_query(q.text))

    def _named_topics(self, q: Query, ids: list[str]) -> dict[str, set[str]]:
        """For each memory, the knowledge-graph entities it mentions that the query names.

        Entities more than half of the memories mention (the speaker,
        "User") tell nothing apart and are left out.
        """
        mentions = {mid: set(es) for mid, es in self.store.kg_mentions(ids).items()}
        counts = Counter(e for es in mentions.values() for e in es)
        names = self.store.kg_entity_aliases([e for e, n in counts.items() if n <= max(2, len(ids) // 2)])
        text = f" {_words(q.text)} "
        named = {e for e, (name, aliases) in names.items() if any(f" {_words(n)} " in text for n in (name, *aliases) if _words(n))}
        return {mid: es & named for mid, es in mentions.items() if es & named}

    # -- run ------------------------------------------------------------------
    def run(self, recipe: Recipe, q: Query) -> tuple[list[Candidate], dict[str, Memory], Trace]:
        trace = Trace()
        state: dict[str, Any] = {"recipe": recipe}
        n = max(recipe.candidates, q.limit)
        # Sources run one after the other. The vector source used to run in a worker
        # beside BM25 when BM25 took 10+ ms in FTS5; with the in-memory index BM25 takes
        # about a millisecond, and the worker only added GIL hand-offs: on a loaded
        # machine each one waits for the scheduler (searches of seconds at load 17).
        ranked: dict[str, list[tuple[str, float]]] = {}
        for source in recipe.sources:
            ranked[source], took = self._timed(source, q, n, state)
            trace.stages.append((f"source:{source}", len(ranked[source]), took))
            if ranked[source]:
                trace.tops[source] = max(s for _, s in ranked[source])

        started = time.perf_counter()
        if recipe.fusion == "rrf":
            cands = FUSIONS["rrf"](ranked, k=recipe.rrf_k, weights=dict(recipe.weights))
        else:
            cands = FUSIONS[recipe.fusion](ranked, weights=dict(recipe.weights))
        # A fusion whose scores mean something only within one query (ranks, min-max) is
        # scaled so its best is 1, the scale the rerankers that blend in other signals expect.
        top = cands[0].score if recipe.fusion in RELATIVE_FUSIONS and cands and cands[0].score > 0 else 1.0
        cands = [Candidate(c.id, c.score / top, {**c.scores, "fused": c.score / top}) for c in cands]
        trace.add(f"fusion:{recipe.fusion}", len(cands), started)

        facts = self.store.ranking_facts([c.id for c in cands])
        cands = [c for c in cands if c.id in facts]
        for st in recipe.rerankers:
            started = time.perf_counter()
            cands = STEPS[st.name](cands, **self._inputs(st, q, cands, facts, state), **st.kwargs())
            if joined := [c.id for c in cands if c.id not in facts]:  # a step that brings in memories (thread_neighbours)
                facts.update(self.store.ranking_facts(joined))
                state.pop("dates", None)
                cands = [c for c in cands if c.id in facts]
            trace.add(f"rerank:{st.name}", len(cands), started)

        cands = [c for c in cands if c.score >= recipe.min_score][: q.limit]
        # Whole memories only for what is returned.
        memories = self.store.get_memories([c.id for c in cands])
        return [c for c in cands if c.id in memories], memories, trace

    def _timed(self, source: str, q: Query, n: int, state: dict) -> tuple[list[tuple[str, float]], float]:
        started = time.perf_counter()
        found = self._sources[source](q, n, state)
        return found, (time.perf_counter() - started) * 1000
