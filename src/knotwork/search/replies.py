"""The reply to a question that matched: a turn that asks lifts the turn after it.

A pure step over plain values, like the rerankers of search/rerankers.py. In a
conversation the words of a question are often in the turn that asks it ("Where
did you serve your mission?") and its answer in the next one, which shares no
word with it ("Sao Paulo, in Brazil"). Among the first ``depth`` candidates,
each one whose text ends in a question mark lifts the memory just after it in
its thread (or, when it names no thread, the next memory in time of its
workspace and partition, if it came within ``gap_minutes``) by ``weight`` × its
own score; with ``max_words``, only a reply of at most that many words (a long
reply holds enough words to be found on its own). With ``expand`` that reply
joins the candidates even if it matched nothing. A store of notes, whose
memories seldom end in a question mark, is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping

from knotwork.search.rerankers import Candidate

REPLY_DEPTH = 10  # the candidates whose reply is read


def asks(text: str) -> bool:
    """Whether a memory's text ends in a question (a question mark, maybe followed by closing marks).

    >>> asks("Eli: Where did you serve your mission? "), asks("Eli: In Seattle."), asks('"Why not?"')
    (True, False, True)
    """
    return text.rstrip().rstrip("\"')]»”’").endswith(("?", "？"))


def reply_lift(
    cands: list[Candidate],
    questions: Mapping[str, bool],
    after: Mapping[str, tuple[str, str, float]],
    weight: float = 0.5,
    depth: int = REPLY_DEPTH,
    gap_minutes: float = 30.0,
    expand: bool = True,
    lengths: Mapping[str, int] | None = None,
    max_words: int | None = None,
) -> list[Candidate]:
    """``score + weight × (score of the question just before it)`` for the reply to each of the first ``depth``
    candidates that ask (``questions``); ``after`` gives a memory's (thread or '', next memory, seconds between),
    ``lengths`` the words of each reply (read with ``max_words``).

    >>> cs = [Candidate("q", 0.8), Candidate("x", 0.5), Candidate("r", 0.2)]
    >>> [(c.id, round(c.score, 2)) for c in reply_lift(cs, {"q": True}, {"q": ("", "r", 40.0)})]
    [('q', 0.8), ('r', 0.6), ('x', 0.5)]
    """
    gap = gap_minutes * 60
    lift: dict[str, float] = {}
    for c in cands[:depth]:
        if not questions.get(c.id) or c.id not in after:
            continue
        thread, reply, seconds = after[c.id]
        if not thread and seconds > gap:  # no thread: only a turn that followed soon is a reply
            continue
        if max_words is not None and (lengths or {}).get(reply, 0) > max_words:  # a long reply says enough on its own
            continue
        lift[reply] = max(lift.get(reply, 0.0), c.score)
    out = [c.rescored("reply_lift", c.score + weight * lift.get(c.id, 0.0)) for c in cands]
    if expand:
        known = {c.id for c in cands}
        out += [Candidate(r, weight * s, {"reply_lift": weight * s}) for r, s in lift.items() if r not in known]
    return sorted(out, key=lambda c: -c.score)
