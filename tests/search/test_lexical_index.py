"""The in-memory BM25 index: exact against BM25 computed from the file, whoever wrote it,
and in step with other writers' inserts, rewrites and deletes."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

import knotwork
from knotwork import ALL_WORKSPACES, Settings
from knotwork.search.lexical import analyze, analyze_query
from knotwork.search import lexical_index
from knotwork.search.lexical_index import B, K1, LexicalIndex
from tests._sql import execute, query
from tests._fakes import open_fake

SPACES = [None, None, "a", "b", "c"]
WORDS = "alpha beta gamma delta epsilon zeta theta iota kappa lambda deploy retry policy billing cache redis".split()


Docs = list[tuple[str, str, Counter]]


def stored_docs(target: str) -> Docs:
    """Every memory in the database as (id, workspace, term counts): read once for all the checks of one moment."""
    return [(mid, ws, Counter(analyze(text))) for mid, ws, text in query(target, "SELECT id, workspace, content FROM memories")]


def brute_force(stored: Docs, terms: list[str], k: int, workspace: str | None) -> list[tuple[str, float, float, float]]:
    """BM25 (Lucene idf) over every memory of ``stored`` that ``workspace`` can see, from scratch."""
    docs = [(mid, c) for mid, ws, c in stored if workspace == ALL_WORKSPACES or ws in ("", workspace or "")]
    if not docs:
        return []
    avgdl = sum(sum(c.values()) for _, c in docs) / len(docs)
    dfs = {t: sum(t in c for _, c in docs) for t in terms}
    idf = {t: math.log(1 + (len(docs) - dfs[t] + 0.5) / (dfs[t] + 0.5)) for t in terms}
    best = sum(idf.values()) * (K1 + 1)
    out = []
    for mid, c in docs:
        dl = sum(c.values())
        s = sum(idf[t] * c[t] * (K1 + 1) / (c[t] + K1 * (1 - B + B * dl / avgdl)) for t in terms if c[t])
        whole = sum(idf.values()) * (K1 + 1) / (1 + K1 * (1 - B + B * dl / avgdl))  # every term once, at this length
        if s > 0:
            out.append((mid, s, s / best, min(1.0, s / whole)))
    return sorted(out, key=lambda h: (-h[1], h[0]))[:k]


def close(a: float, b: float) -> bool:
    """``a == pytest.approx(b, rel=1e-4)``, without building an approx object per comparison (thousands per check)."""
    return abs(a - b) <= max(1e-4 * abs(b), 1e-12)


def assert_exact(index: LexicalIndex, path: str, rng: random.Random) -> None:
    stored = stored_docs(path)  # nothing writes during the check: one read of the database serves every query
    for _ in range(6):
        terms = analyze_query(" ".join(rng.sample(WORDS, rng.randint(1, 4))))
        for workspace in [ALL_WORKSPACES, None, "a", "b", "nobody-writes-here"]:
            got = index.search(terms, 8, workspace)
            every = brute_force(stored, terms, 10**9, workspace)
            want = every[:8]
            assert [h.bm25 for h in got] == pytest.approx([s for _, s, _, _ in want], rel=1e-4), workspace
            assert [h.relevance for h in got] == pytest.approx([r for _, _, r, _ in want], rel=1e-4)
            # ties may come in either order: each hit is a memory the brute force scores the same
            for h in got:
                assert h.memory_id in {m for m, s, _, _ in every if close(s, h.bm25)}
            assert sorted(h.coverage for h in got) == pytest.approx(sorted(c for *_, c in want), rel=1e-4)
            assert all(0 < h.relevance <= h.coverage <= 1 for h in got)


def text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 25)))


def test_searches_match_bm25_from_the_database_while_another_writer_writes(target: str) -> None:
    rng = random.Random(3)
    with open_fake(target) as reader, open_fake(target) as writer:
        live: list[str] = []
        for step in range(12):
            live += [m.id for m in writer.add_many([{"content": text(rng), "workspace": rng.choice(SPACES)} for _ in range(rng.randint(1, 30))])]
            if step % 3 == 2:
                writer.delete(live.pop(rng.randrange(len(live))))
                writer.update(rng.choice(live), content=text(rng))  # new text: old postings must go
            assert_exact(reader.lexical, target, rng)
        assert len(reader.lexical) == len(live)


def test_a_reader_that_fell_behind_the_kept_changes_loads_everything_again(target: str) -> None:
    rng = random.Random(5)
    with open_fake(target) as reader, open_fake(target) as writer:
        writer.add_many([{"content": text(rng)} for _ in range(20)])
        assert_exact(reader.lexical, target, rng)
        doomed = writer.add_many([{"content": "zeta zeta unique-word-qq"} for _ in range(1)])[0]
        writer.delete(doomed.id)
        writer.add_many([{"content": text(rng)} for _ in range(5)])
        # the oldest changes pruned, as the store does past 10,000
        execute(target, "DELETE FROM memory_changes WHERE seq < (SELECT max(seq) - 2 FROM memory_changes)")
        assert_exact(reader.lexical, target, rng)
        assert reader.lexical.search(analyze_query("qq"), 5, ALL_WORKSPACES) == []
        assert len(reader.lexical) == 25


@pytest.mark.parametrize("dense_from", [2.0, 0.0], ids=["postings", "dense"])
def test_compaction_keeps_searches_exact(target: str, monkeypatch: pytest.MonkeyPatch, dense_from: float) -> None:
    monkeypatch.setattr(lexical_index, "_KEEP_WEIGHTS", 1)  # kept term weights too must follow the renumbering
    monkeypatch.setattr(lexical_index, "_DENSE_FROM", dense_from)
    monkeypatch.setattr(lexical_index, "_COMPACT_FROM", 20)  # the rule as at 1,000, on fewer rows
    rng = random.Random(9)
    with open_fake(target) as mem, open_fake(target) as other:
        stored = mem.add_many([{"content": f"{text(rng)} n{i}", "workspace": rng.choice(SPACES)} for i in range(180)])
        assert_exact(mem.lexical, target, rng)
        before = {name: len(scope.alive) for name, scope in mem.lexical._scopes.items()}
        for m in stored[:150]:  # another writer deletes most of them
            other.delete(m.id)
        assert_exact(mem.lexical, target, rng)
        assert len(mem.lexical) == 30
        assert any(len(scope.alive) < before[name] for name, scope in mem.lexical._scopes.items())  # renumbered
        mem.add_many([{"content": text(rng), "workspace": rng.choice(SPACES)} for _ in range(30)])
        assert_exact(mem.lexical, target, rng)


def test_the_analyzer_keeps_identifiers_whole_and_in_parts() -> None:
    terms = analyze("parse_config() in ReportsModule, marker mk17, ADR-0012, Zürich")
    for term in ["parse_config", "pars", "config", "reportsmodul", "report", "modul", "mk17", "adr", "0012", "zurich"]:
        assert term in terms
    assert analyze("decisions running") == analyze("decision run")  # stems


def test_bm25_answers_only_memories_that_hold_a_word_of_the_query(target: str) -> None:
    """A thousand memories of random tokens (letters and digits, as ids and hashes are), random queries,
    some held by a memory and some by none: every row the lexical source returns holds the query's token (a
    query word's finest parts, such as ``ct`` of ``ct2m7``, must not match ``ct9q1``)."""
    rng = random.Random(34)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    token = lambda: "".join(rng.choice(alphabet) for _ in range(5))  # noqa: E731
    texts = [" ".join(token() for _ in range(6)) for _ in range(1200)]
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as m:
        m.add_many([{"content": t} for t in texts])
        held = found = 0
        for i in range(120):
            query = rng.choice(texts).split()[rng.randrange(6)] if i % 2 else token()
            hits = m.search(query, recipe="memory_bm25", limit=10)
            assert all(query in h.memory.content.split() for h in hits), (query, [h.memory.content for h in hits])
            held += i % 2
            found += bool(hits) and i % 2
        assert found == held  # every token some memory holds is found: the test is not passing by finding nothing
    assert analyze_query("parse_config ReportsModule") == ["parse_config", "pars", "config", "reportsmodul", "report", "modul"]


def test_a_rare_exact_token_ranks_its_memory_first_with_the_default_recipe(mem) -> None:
    """200 near-identical notes, each with its own marker: the marker finds its note first."""
    notes = mem.add_many([
        {"content": f"Deploy note for the billing service: rolled out the retry policy to the payment workers; marker mk{i}.", "workspace": "ops"}
        for i in range(200)
    ])
    by_marker = {f"mk{i}": m.id for i, m in enumerate(notes)}
    for marker in random.Random(1).sample(sorted(by_marker), 20):
        for query in (marker, f"which billing retry note carries {marker}?"):
            hits = mem.search(query, workspace="ops")
            assert hits[0].memory.id == by_marker[marker], query



@pytest.mark.parametrize("dense", [False, True], ids=["postings", "dense"])
def test_kept_term_weights_stay_exact_through_writes_and_deletes(target: str, monkeypatch: pytest.MonkeyPatch, dense: bool) -> None:
    # every posting list keeps its weights between searches here (in a store this small none would), as
    # weights per posting or as one dense array per term (what the commonest terms of a large store do)
    monkeypatch.setattr(lexical_index, "_KEEP_WEIGHTS", 1)
    monkeypatch.setattr(lexical_index, "_DENSE_FROM", 0.0 if dense else 2.0)
    rng = random.Random(21)

    def kept() -> set[int]:
        return {id(w) for scope in reader.lexical._scopes.values() for _, w in (scope._dense if dense else scope._weights).values()}

    with open_fake(target) as reader, open_fake(target) as writer:
        stored = writer.add_many([{"content": f"{text(rng)} n{i}", "workspace": rng.choice(SPACES)} for i in range(200)])
        assert_exact(reader.lexical, target, rng)
        first = kept()
        assert first  # the weights were kept...
        assert_exact(reader.lexical, target, rng)
        assert first & kept()  # ...and used again
        writer.add_many([{"content": text(rng), "workspace": rng.choice(SPACES)} for _ in range(7)])
        writer.update(stored[0].id, content=text(rng))
        assert_exact(reader.lexical, target, rng)
        for m in stored[1:40]:
            writer.delete(m.id)
        assert_exact(reader.lexical, target, rng)
        assert len(reader.lexical) == 200 + 7 - 39


def test_ties_at_the_cut_do_not_depend_on_the_order_the_store_reads_rows_in(target: str) -> None:
    # twelve memories of equal score for "alpha"; updating the first moves its row to the end of a PostgreSQL
    # table, and a fresh index must still keep the same three at the cut
    with open_fake(target) as mem:
        others = "bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
        stored = mem.add_many([{"content": f"alpha {word}"} for word in others])
        before = [h.memory_id for h in LexicalIndex(mem.store).search(["alpha"], 3)]
        assert len({h.bm25 for h in LexicalIndex(mem.store).search(["alpha"], 12)}) == 1  # all tied
        mem.update(stored[0].id, importance=0.9)
        mem.update(stored[1].id, tags={"k": "v"})
        index = LexicalIndex(mem.store)
        assert [h.memory_id for h in index.search(["alpha"], 3)] == before
        rowids = [rowid for rowid, (_, _) in sorted(index._where.items(), key=lambda kv: kv[1][1])]
        assert rowids == sorted(rowids)  # slots in row-number order
