"""Search recipes: frozen, named data saying which sources, which fusion, which rerankers.

Derive a variant with ``dataclasses.replace(RECIPES["memory_hybrid"], limit=5)``;
the registered recipes themselves never change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knotwork.errors import InvalidInput, quote


@dataclass(frozen=True, slots=True)
class Step:
    """One reranker and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


def step(name: str, **params: Any) -> Step:
    return Step(name, tuple(sorted(params.items())))


@dataclass(frozen=True, slots=True)
class Recipe:
    """How one search runs: candidate sources → fusion → rerankers in order → limit."""

    name: str
    sources: tuple[str, ...] = ("bm25", "vector")
    candidates: int = 100
    # A weighted mean of the sources' absolute scores (lexical relevance, cosine):
    # the fused score means the same in every query (see search/fusion.py).
    fusion: str = "convex"
    rrf_k: int = 60
    # How BM25 becomes a relevance in [0, 1]: "coverage" divides a document's score by
    # what it would score holding every query term once (the share of the query's
    # information it holds); "query" by the most any document could score.
    lexical_scale: str = "query"
    weights: tuple[tuple[str, float], ...] = ()
    rerankers: tuple[Step, ...] = ()
    min_score: float = 0.0
    # Cosine below which a vector candidate is noise, not a match (MiniLM puts
    # unrelated sentences at about -0.1..0.15), so a query about nothing stored
    # finds nothing instead of the least-unrelated memories.
    min_similarity: float = 0.2
    # The names source (an evidence id, artifact or tag value equal to an identifier in the
    # query) keeps a name only when at most this many memories of the searched scopes hold it: a
    # name on every memory of a workspace (its project's tag) is a topic, not an identifier.
    name_holders: int = 3

    def stages(self) -> list[str]:
        """Every stage this recipe runs, in order (what a trace must show)."""
        return [*(f"source:{s}" for s in self.sources), f"fusion:{self.fusion}", *(f"rerank:{r.name}" for r in self.rerankers)]


#: How much each source counts in the default fusion (see bench/RESULTS.md, "A default
#: that generalizes": chosen on the dev halves of every data set measured). The names
#: source counts for nothing in the fused score: it only brings in, and marks, the
#: memories the query names (an evidence id, artifact or tag value equal to an
#: identifier in it), which the ``named_first`` step then puts first.
HYBRID_WEIGHTS = (("bm25", 0.8), ("vector", 0.2), ("names", 0.0))
NAMED = ("bm25", "vector", "names")
NAMED_FIRST = step("named_first")

#: A recipe for stores of chat turns, tuned on LongMemEval: a length prior (short
#: memories that match say more than long ones that mention the same words), the time
#: the query names, MMR and restatements. The length prior encodes where that data
#: set's answers sit (short user turns) and costs recall on other conversations, so it
#: is opt-in, never the default.
CHAT_TURNS = (step("brevity", weight=0.3), step("time_window", boost=0.5), step("mmr", lambda_=0.7), step("restated", threshold=0.75))

#: A memory's conversation, when the store knows it (``metadata.thread``): each thread
#: scored by the share of what matched that it holds, then each of its turns moved toward
#: its best one by that share. The search often finds the right conversation through the
#: turn that says the question's words and misses the turn beside it that answers. A
#: memory without a thread is left as it is.
THREAD_SCORE = step("thread_score")
#: The same for memories without a thread: those close to each other in time (the turns of
#: one chat follow each other within minutes) scored together; with threads, ``thread_score``.
NEIGHBOURHOOD_SCORE = step("neighbourhood_score", gap_minutes=30.0)
#: The turn after a question that matched, when it is short: the question says the query's
#: words, the reply ("In Seattle.") holds the answer and no word of it. A long reply says
#: enough on its own (and lifting one moved other sessions out of LongMemEval's top 5);
#: notes seldom end in a question mark. Either way they are left as they are.
REPLY_LIFT = step("reply_lift", weight=0.5, max_words=40)
#: Conversations without thread keys, or where the turn beside a match is the answer:
#: each turn lifted by its neighbours' scores (in its thread, else in time). Not in the
#: default: in a store of separate notes the memory written before another is not its
#: context, and on LongMemEval it costs session recall (bench/RESULTS.md, "Threads in search").
NEIGHBOURS = step("thread_neighbours", weight=0.2, in_time=True)
#: The time the query names. Not stretched past its end (``late_days``): what happened then is often told a
#: day or two later, but a month's window stretched into the next month lifts that month's turns too
#: (bench/RESULTS.md, "Search round 4: dates, several events, source leaders").
TIME_WINDOW = step("time_window", boost=0.5)
#: Questions that ask for a count, a total or an order of events ("how many plants did I buy?", "which did I do
#: first, X or Y?"; ``search.shapes.tallies``): BM25's best and the vectors' best, each on its own, moved up to
#: the third place when the fused score put them lower. The answer is in several memories, and the one that
#: matches most of the question's words is often not one of them. Only for those questions: for every
#: question, it costs conversational sets and codemem recall (bench/RESULTS.md, "Search round 4").
SOURCE_LEADERS = step("source_leaders", place=3, tallies_only=True)
#: A question that names a person (a capitalised word not starting a sentence) lifts, by a fifth, the
#: memories that person said ("Name: …" at the start of the content; lower-case roles are never named).
#: Measured on both conversational sets, both halves, with and without threads: R@5 up in five runs of six
#: and level in the sixth, R@1 up in all six; LongMemEval and codemem identical (bench/RESULTS.md, "After the
#: merge of round 5"). It reads the start of the first 50 candidates' texts only when the question names someone.
SPEAKER = step("speaker", boost=0.2)
#: Questions whose answer is spread over several conversations: at most one turn of a thread
#: in the first five, unless that thread holds 30% or more of what matched. Not in the default:
#: where one conversation holds the answer in several turns (two-person chats) it pushes
#: them out of the top five (bench/RESULTS.md, "Search round 3: query-side stages").
SPREAD = step("thread_spread", k=5, per_thread=1, max_share=0.3)

#: Of two current memories that state one attribute with two values ("Analytics events are forwarded to
#: Amplitude" / "... to PostHog, self-hosted"), the later one moves right above the earlier one among the first ten;
#: only pairs the consolidation rules read as one value changed move, by a swap (search/later.py). In the default: on LongMemEval,
#: codemem, convo and convo2 (both halves each) it moved no ranked list at all, and on the project check it put the
#: current value first for 2 more of 31 dev changes (bench/RESULTS.md, "Issue 35, round 4: the later of two
#: current values"). ``restated``, which moves any later memory similar to an earlier one, cost each of those sets.
#: ``cosine``: a pair no rule reads moves too when the two memories' own vectors are that alike and the texts are one
#: frame with two values (no sentence shape; the same sets unmoved, 4 more of 128 project dev changes newer first:
#: bench/RESULTS.md, "Issue 35, round 6: the later of two alike memories").
LATER_VALUE = step("later_value", cosine=0.7)

RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        # The default: lexical relevance and cosine, each on its own absolute scale,
        # in a weighted mean; then each turn toward the best of its thread (or, without
        # one, of the memories close to it in time), by that group's share; then the turn
        # after a question that matched; then the time the query names, if it names one;
        # then what a person the query names said; then, for a question asking for a count,
        # a total or an order, each source's own best up to the third place; then, of two
        # current memories that state one attribute with two values, the later first; then the
        # memories the query names by an identifier, first. No stage that encodes one data
        # set's answers.
        Recipe(
            "memory_hybrid",
            sources=NAMED,
            weights=HYBRID_WEIGHTS,
            rerankers=(NEIGHBOURHOOD_SCORE, REPLY_LIFT, TIME_WINDOW, SPEAKER, SOURCE_LEADERS, LATER_VALUE, NAMED_FIRST),
        ),
        # For stores of conversations: the default, and each turn lifted by the turns around it.
        Recipe(
            "memory_threads",
            sources=NAMED,
            weights=HYBRID_WEIGHTS,
            rerankers=(NEIGHBOURHOOD_SCORE, REPLY_LIFT, NEIGHBOURS, TIME_WINDOW, NAMED_FIRST),
        ),
        # For pools of many conversations, where a question's evidence sits in several: the default,
        # then at most one turn per conversation in the top five (a dominant conversation excepted).
        Recipe("memory_sessions", sources=NAMED, weights=HYBRID_WEIGHTS, rerankers=(NEIGHBOURHOOD_SCORE, REPLY_LIFT, TIME_WINDOW, SPREAD, NAMED_FIRST)),
        # The name of the default's speaker step when it was opt-in: the default's steps, kept so that
        # recipes saved by name still answer.
        Recipe(
            "memory_speakers",
            sources=NAMED,
            weights=HYBRID_WEIGHTS,
            rerankers=(NEIGHBOURHOOD_SCORE, REPLY_LIFT, TIME_WINDOW, SPEAKER, SOURCE_LEADERS, LATER_VALUE, NAMED_FIRST),
        ),
        Recipe("memory_chat_turns", sources=NAMED, fusion="weighted", weights=(("names", 0.0),), rerankers=(*CHAT_TURNS, NAMED_FIRST)),
        # For questions about how things are now: later memories about an entity the query
        # names win at a lower similarity (bench/RESULTS.md, knowledge updates).
        Recipe(
            "memory_current",
            sources=NAMED,
            fusion="weighted",
            weights=(("names", 0.0),),
            rerankers=(*CHAT_TURNS[:3], step("restated", threshold=0.75, topic_threshold=0.4), NAMED_FIRST),
        ),
        Recipe("memory_bm25", sources=("bm25",)),
        Recipe("memory_vector", sources=("vector",)),
        Recipe("memory_mmr", sources=NAMED, weights=HYBRID_WEIGHTS, rerankers=(step("mmr", lambda_=0.5), NAMED_FIRST)),
        Recipe(
            "memory_node_distance",
            sources=(*NAMED, "graph"),
            weights=(*HYBRID_WEIGHTS, ("graph", 0.5)),
            rerankers=(step("node_distance", weight=0.5), NAMED_FIRST),
        ),
        Recipe(
            "ambient",
            weights=HYBRID_WEIGHTS,
            rerankers=(
                step("importance", weight=0.5),
                step("freshness", half_life_days=14.0, weight=0.5),
                step("novelty", weight=0.5),
                step("diversity", per_key=1),
            ),
        ),
    )
}
DEFAULT_RECIPE = "memory_hybrid"


def get_recipe(recipe: str | Recipe | None) -> Recipe:
    if recipe is None:
        return RECIPES[DEFAULT_RECIPE]
    if isinstance(recipe, Recipe):
        return recipe
    try:
        return RECIPES[recipe]
    except KeyError:
        raise InvalidInput("recipe", f"unknown recipe {quote(recipe)}; known: {', '.join(RECIPES)}") from None
