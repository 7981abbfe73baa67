"""Two conversations and a stray turn in one workspace, the question they answer, and the default recipe with
``thread_score`` as its first step: shared by the tests of threads and of neighbourhoods in time."""

from __future__ import annotations

from dataclasses import replace

from knotwork import Knotwork
from knotwork.search.recipes import RECIPES, THREAD_SCORE


#: The default's sources and steps with ``thread_score`` for its first step (the default before ``neighbourhood_score``,
#: which is ``thread_score`` where every memory names a thread), and without it.
THREADS = replace(RECIPES["memory_hybrid"], name="threads", rerankers=(THREAD_SCORE, *RECIPES["memory_hybrid"].rerankers[2:]))
NO_THREAD_STEPS = replace(THREADS, rerankers=THREADS.rerankers[1:])


def chat(mem: Knotwork, thread: bool) -> dict[str, str]:
    """Two conversations and a stray turn: the answer ("Lisbon") shares no word with the question; another
    conversation's turn says "trip"."""
    turns = {
        "booked": ("User: We finally booked the flights for our anniversary trip.", "t1", "2024-05-01T10:00:00Z"),
        "asked": ("Assistant: Congratulations! Where are you heading for the anniversary?", "t1", "2024-05-01T10:01:00Z"),
        "answer": ("User: Lisbon, five nights in October.", "t1", "2024-05-01T10:02:00Z"),
        "porto": ("User: My colleague keeps talking about his trip to Porto next month.", "t2", "2024-05-03T09:00:00Z"),
        "train": ("Assistant: Porto is lovely in spring; the trip by train from Lisbon takes three hours.", "t2", "2024-05-03T09:01:00Z"),
        "gift": ("User: Can you suggest a gift idea for a coworker?", "t3", "2024-05-04T09:00:00Z"),
    }
    return {
        key: mem.add(text, workspace="w", metadata={"thread": t} if thread else {}, valid_at=at, force=True).id
        for key, (text, t, at) in turns.items()
    }


QUESTION = "Where are we going on our anniversary trip?"
