"""Every field that names something is searchable, and a query that names a memory finds it first."""

from __future__ import annotations

import knotwork
from knotwork import Knotwork
from knotwork.search.lexical import identifiers, name_key
from knotwork.search.rerankers import Candidate, named_first


def test_evidence_id_is_the_first_hit_for_itself(mem: Knotwork) -> None:
    cited = mem.add("We keep one SQLite file per workspace and back it up nightly", evidence=["ADR-019"], workspace="w")
    # Competitors that say the identifier in their text, more than once, and a near-miss id.
    mem.add("ADR-019 came up again: ADR-019 is long, and ADR-019 needs a summary", workspace="w")
    mem.add("Review notes on the ADR-019 draft and on ADR-020", workspace="w")
    mem.add("Connection pooling for the team server", evidence=["ADR-020"], workspace="w")
    hits = mem.search("ADR-019", workspace="w", explain=True)
    assert hits[0].memory.id == cited.id
    assert mem.last_trace is not None and "source:names" in mem.last_trace.names()
    assert hits[0].explain["names"] == 1.0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # Inside a question, in another case, with punctuation around it.
    assert mem.search("what did we decide in adr-019?", workspace="w")[0].memory.id == cited.id


def test_artifacts_and_tag_values_are_searchable_words(mem: Knotwork) -> None:
    ledger = mem.add("Rounding happens once, at the end of the month", artifacts=["src/billing/ledger.py"])
    flag = mem.add("The new checkout is behind a flag until the audit", tags={"flag": "checkout-v2"})
    mem.add("Invoices are rendered as PDF by a worker")
    # A word of a path or of a tag value finds the memory, though its content never says it.
    assert mem.search("ledger")[0].memory.id == ledger.id
    assert mem.search("checkout v2")[0].memory.id == flag.id
    # The whole path or value names it exactly.
    assert mem.search("src/billing/ledger.py")[0].memory.id == ledger.id
    assert mem.search("is checkout-v2 live?")[0].memory.id == flag.id


def test_issue_number_matches_hash_evidence(mem: Knotwork) -> None:
    fix = mem.add("Send the ALPN identifier with every TLS handshake", evidence=["#1894"])
    mem.add("Pull 1893 tidied the TLS handshake docs and the ALPN list", evidence=["#1893"])
    assert mem.search("What did pull 1894 change?")[0].memory.id == fix.id
    assert mem.search("#1894")[0].memory.id == fix.id


def test_named_memory_outside_the_scope_is_not_found(mem: Knotwork) -> None:
    there = mem.add("Tokens rotate every 90 days", evidence=["SEC-7"], workspace="a")
    mem.add("Audit log retention is a year", workspace="b")
    assert mem.search("SEC-7", workspace="a")[0].memory.id == there.id
    assert there.id not in {h.memory.id for h in mem.search("SEC-7", workspace="b")}


def test_changed_names_are_seen_by_another_process(target: str) -> None:
    with knotwork.open(target) as writer, knotwork.open(target) as reader:
        m = writer.add("The cache is warmed at deploy time", evidence=["PR-123"])
        assert reader.search("PR-123")[0].memory.id == m.id  # the reader's index loads here
        writer.update(m.id, evidence=["PR-456"])  # names change, content does not
        assert reader.search("PR-456")[0].memory.id == m.id
        assert not any(h.explain and h.explain.get("names") for h in reader.search("PR-123", explain=True))
        writer.update(m.id, tags={"ticket": "OPS-88"})
        assert reader.search("OPS-88")[0].memory.id == m.id


def test_identifiers_are_the_query_words_that_look_like_ids() -> None:
    assert identifiers("What did we decide in ADR-019?") == ["adr-019"]
    assert identifiers("was #1894 merged, and is src/app/db.py still used") == ["1894", "src/app/db.py"]
    assert identifiers("the ReportsModule and parse_config") == ["reportsmodule", "parse_config"]
    # Plain words (a tag value like role=user) are left to BM25.
    assert identifiers("what did the user say about the cache") == []
    assert name_key("  #PR-12 ") == "pr-12"


def test_named_first_puts_named_candidates_first_and_keeps_scores_falling() -> None:
    cands = [
        Candidate("a", 0.9, {"fused": 0.9}),
        Candidate("b", 0.6, {"fused": 0.6, "names": 1.0}),
        Candidate("c", 0.5, {"fused": 0.5}),
        Candidate("d", 0.2, {"fused": 0.2, "names": 1.0}),
    ]
    out = named_first(cands)
    assert [c.id for c in out] == ["b", "d", "a", "c"]
    assert [c.score for c in out] == [0.9, 0.9, 0.9, 0.5]
    assert out[0].scores["named_first"] == 0.9
    # Nothing named: order and scores unchanged.
    plain = [Candidate("a", 0.9), Candidate("c", 0.5)]
    assert [(c.id, c.score) for c in named_first(plain)] == [("a", 0.9), ("c", 0.5)]


def test_a_name_many_memories_hold_is_a_topic_not_an_identifier(mem: Knotwork) -> None:
    for i in range(4):
        mem.add(f"Release note {i}: the connection pool grew by {i} slots", tags={"project": "urllib3"}, workspace="w")
    retry = mem.add("Retries back off with jitter", tags={"project": "urllib3"}, evidence=["#3331"], workspace="w")
    hits = mem.search("urllib3 #3331 retries", workspace="w", explain=True)
    # The tag every memory holds marks none of them; the issue number marks its one memory.
    assert [h.memory.id for h in hits if h.explain.get("names")] == [retry.id]
    assert hits[0].memory.id == retry.id
    assert not any(h.explain.get("names") for h in mem.search("urllib3 connection pool", workspace="w", explain=True))
