"""Knowing when nothing matches (search/floor.py): with a floor, a search whose best hit scores below it answers
with nothing, and a search that finds its answer keeps every hit in order; without one (the default), hits are
as before. The learned rule (search/answerable.py) is on by default: nonsense and off-topic questions find
nothing, answers keep their hits; ``search_answerable=False`` gives every hit back. On both backends, with the
real model."""

from __future__ import annotations

import knotwork
from knotwork import Settings
from knotwork.views import elsewhere

NOTES = [
    "We deploy the billing service with blue-green releases behind the load balancer.",
    "The reports module caches query results in Redis for ten minutes.",
    "Maria prefers oat milk in her coffee.",
    "Our CI pipeline runs the integration tests against a real PostgreSQL.",
]
UNRELATED = ["volcanic eruption on the island of Hawaii", "what is the capital of Peru?", "who won the football match"]
ANSWERED = "how do we deploy the billing service"
#: The learned rule judges a search only when it sees at least search/floor.FEWEST memories: NOTES and these.
MORE = [
    "The mobile app release train leaves every second Thursday.",
    "Database migrations are reviewed by two engineers before they run.",
    "The staging environment is rebuilt from the latest backup every Monday.",
    "Feature flags are cleaned up one sprint after a full rollout.",
    "On-call engineers hand over at 09:00 with a written summary.",
    "The design system's colour tokens live in a shared package.",
    "Support tickets about invoices go to the billing team's queue.",
    "Load tests run against a copy of production traffic from last week.",
]
RULE_NOTES = NOTES + MORE
FLOOR = 0.10


def test_a_query_no_better_than_unrelated_text_finds_nothing(target: str) -> None:
    with knotwork.open(target, settings=Settings(search_answerable=False)) as mem:  # the floor alone (its default: off)
        mem.add_many([{"content": n, "workspace": "w", "evidence": ["ADR-0042"] if i == 1 else []} for i, n in enumerate(NOTES)])
        before = {q: [(h.memory.id, h.score) for h in mem.search(q, workspace="w")] for q in [*UNRELATED, ANSWERED]}
    assert all(before[q] and before[q][0][1] < FLOOR for q in UNRELATED)  # what the floor is for
    with knotwork.open(target, settings=Settings(search_floor=FLOOR, search_answerable=False)) as mem:
        for q in UNRELATED:
            assert mem.search(q, workspace="w") == []
        assert [(h.memory.id, h.score) for h in mem.search(ANSWERED, workspace="w")] == before[ANSWERED]  # untouched
        assert before[ANSWERED][0][1] >= FLOOR
        miss = elsewhere.search(mem, ANSWERED, workspace="other")  # a miss still names where a hit passes
        assert list(miss) == [] and miss.elsewhere == {"w": len(before[ANSWERED])}
        assert elsewhere.search(mem, UNRELATED[0], workspace="other").elsewhere == {}


def test_a_relative_fusion_and_a_named_memory_are_never_emptied(target: str) -> None:
    with knotwork.open(target, settings=Settings(search_floor=0.99)) as mem:  # the rule on, as by default
        mem.add_many([{"content": n, "workspace": "w", "evidence": ["ADR-0042"] if i == 1 else []} for i, n in enumerate(NOTES)])
        assert mem.search(ANSWERED, workspace="w") == []  # 0.99: nothing passes
        assert mem.search(ANSWERED, workspace="w", recipe="memory_chat_turns")  # scores of this query alone
        named = mem.search("ADR-0042", workspace="w")
        assert named and named[0].memory.content == NOTES[1]


def test_the_learned_rule_answers_off_topic_questions_with_nothing_and_keeps_answers(target: str) -> None:
    """``search_answerable`` (search/answerable.py): questions about what the store never mentions find nothing,
    a question it answers keeps every hit in order, and what the rule reads does not depend on ``limit``."""
    with knotwork.open(target, settings=Settings(search_answerable=False)) as mem:  # off: ``explain`` shows what it would read
        mem.add_many([{"content": n, "workspace": "w"} for n in RULE_NOTES])
        before = {q: [(h.memory.id, h.score) for h in mem.search(q, workspace="w")] for q in [*UNRELATED, ANSWERED]}
        mem.search(ANSWERED, workspace="w", limit=1, explain=True)
        one = mem.last_trace.answerable
        mem.search(ANSWERED, workspace="w", limit=10, explain=True)
        assert one is not None and one == mem.last_trace.answerable
    assert all(before[q] for q in UNRELATED)  # without the rule, off-topic questions find something
    with knotwork.open(target) as mem:  # the default: on
        assert mem.settings.search_answerable
        assert [q for q in UNRELATED if mem.search(q, workspace="w")] == []
        assert [(h.memory.id, h.score) for h in mem.search(ANSWERED, workspace="w")] == before[ANSWERED]
        miss = elsewhere.search(mem, ANSWERED, workspace="other")  # a miss names where the rule keeps a hit
        assert list(miss) == [] and miss.elsewhere == {"w": len(before[ANSWERED])}
        assert elsewhere.search(mem, UNRELATED[1], workspace="other").elsewhere == {}


def test_the_baseline_is_computed_once_per_workspace_kept_in_the_store_and_renewed_as_it_grows(target: str) -> None:
    """search/baseline.py: the off-topic probes run once per workspace; another opening of the store reads what
    the first wrote; a workspace grown by GROWTH gets a new one; ``explain`` shows the best hit against it once
    it is known and never asks a probe itself. With the rule on, nonsense finds nothing and the answer keeps
    its hits."""
    import json

    from knotwork.search.answerable import reads_relative
    from knotwork.search.baseline import GROWTH, META_KEY, PROBES

    with knotwork.open(target, settings=Settings(search_answerable=True)) as mem:
        mem.add_many([{"content": n, "workspace": "w"} for n in RULE_NOTES])
        assert mem.search("zxqvbnm", workspace="w") == []
        answer = mem.search(ANSWERED, workspace="w", explain=True)
        assert answer and answer[0].memory.content == NOTES[0]
        for q in UNRELATED:
            assert mem.search(q, workspace="w", explain=True) == []
        assert mem._baselines.computed == int(reads_relative())  # asked by a search only when the weights read it
        live = mem.lexical.frequencies([], "w")[1]
        first = mem._baselines("w", live)
        assert mem._baselines("w", live) == first and mem._baselines.computed == 1  # one probe set, then kept
        kept = json.loads(mem.store.get_meta(META_KEY + "w"))
        assert kept["live"] == live == len(RULE_NOTES) and 0 < kept["score"] < answer[0].score
        mem.search(ANSWERED, workspace="w", explain=True)
        assert abs(mem.last_trace.answerable["score_rel"] - (answer[0].score - kept["score"])) < 1e-9
    with knotwork.open(target, settings=Settings(search_answerable=True)) as mem:
        assert mem._baselines("w", len(RULE_NOTES)) == first and mem._baselines.computed == 0  # read back from the store
        more = int(len(RULE_NOTES) * GROWTH) - len(RULE_NOTES) + 1
        mem.add_many([{"content": f"Ticket {i}: the billing export to the finance team failed on retry {i}.", "workspace": "w"}
                      for i in range(more)])
        mem.search(ANSWERED, workspace="w", explain=True)
        assert ("score_rel" in mem.last_trace.answerable) == reads_relative()  # grown past GROWTH: no longer current
        mem._baselines("w", len(RULE_NOTES) + more)
        assert mem._baselines.computed == 1  # asked again
        assert json.loads(mem.store.get_meta(META_KEY + "w"))["live"] == len(RULE_NOTES) + more
        assert mem._baselines.probes == PROBES


def test_by_default_nonsense_finds_nothing_and_an_answer_still_returns(target: str) -> None:
    """The rule is on by default (config.Settings.search_answerable): a nonsense string and a question from
    another domain answer with nothing, a question the store answers returns its memory first, and the top
    hits' features (search/answerable.TOGETHER) are read only when asked for (``explain``) while the shipped
    weights do not read them."""
    from knotwork.search.answerable import TOGETHER, reads_together

    with knotwork.open(target) as mem:
        mem.add_many([{"content": n, "workspace": "w"} for n in RULE_NOTES])
        assert mem.search("zxqvbnm", workspace="w") == []
        assert mem.search(UNRELATED[0], workspace="w") == []
        answer = mem.search("Where do the reports cache their query results?", workspace="w")
        assert answer and answer[0].memory.content == NOTES[1]
        assert mem.last_trace.answerable is not None and set(TOGETHER).isdisjoint(mem.last_trace.answerable) != reads_together()
        mem.search("Where do the reports cache their query results?", workspace="w", explain=True)
        assert set(TOGETHER) <= set(mem.last_trace.answerable)
    with knotwork.open(target, settings=Settings(search_answerable=False)) as mem:  # turned off: hits as before
        assert mem.search(UNRELATED[0], workspace="w")


def test_searches_the_rule_was_not_fitted_on_keep_their_hits(target: str) -> None:
    """The rule was fitted on searches with both BM25 and vectors (search/floor.MEASURED_SOURCES): a store without
    an embedder and a one-source recipe would read missing scores as zeros, so they are not judged at all."""
    from knotwork.search.answerable import answerable

    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        mem.add_many([{"content": n, "workspace": "w"} for n in RULE_NOTES])
        hits = mem.search(ANSWERED, workspace="w", explain=True)
        assert hits and hits[0].memory.content == NOTES[0]
        assert not answerable(mem.last_trace.answerable)  # what the rule would say with no cosine: no answer
        assert mem.search(ANSWERED, workspace="w", recipe="memory_bm25", explain=True)
        assert mem.last_trace.answerable is None  # one source: not judged, not even measured


def test_a_search_that_sees_fewer_memories_than_the_rule_was_fitted_on_keeps_its_hits(target: str) -> None:
    """search/floor.FEWEST: in a store of two memories no word of a paraphrase is known, answer or not, so the rule
    (which reads how much of the query the store holds) measures such a search but does not cut it."""
    from knotwork.search.answerable import answerable
    from knotwork.search.floor import FEWEST

    with knotwork.open(target) as mem:
        mem.add_many([{"content": "Prefers vegetarian restaurants", "workspace": "u"},
                      {"content": "Loves a steakhouse", "workspace": "v"}])
        hits = mem.search("what food does the user like?", workspace="u", explain=True)
        assert [h.memory.content for h in hits] == ["Prefers vegetarian restaurants"]
        assert not answerable(mem.last_trace.answerable)  # what the rule says; too few memories to act on it
        assert mem.lexical.frequencies([], "u")[1] < FEWEST
