"""Names and speakers: a question that names a person favours what that person said.

"What did Gus say he is majoring in?" names Gus. A chat turn stored as
"Gus: I'm majoring in marine biology" was said by Gus; one stored as "Ava:
did Gus tell you?" only mentions him. BM25 scores both for the word; this
stage tells them apart. A memory's speaker is the name before a colon at
the start of its content ("Gus: …"), the way chat transcripts write it. A
speaker counts as named only when the question says that name with a
capital letter, so roles ("user: …", "assistant: …") and common words are
never speakers a question names, and nothing is fitted to a role.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from knotwork.search.rerankers import Candidate, _sorted

_WORD = 31  # the most characters of one word of a speaker's name
# "Ava: …", "Dr. Lee: …", "Mary Ann: …" at the very start of a memory.
_SPEAKER = re.compile(rf"^\s*([A-Z][\w'.-]{{0,{_WORD - 1}}}(?: [A-Z][\w'.-]{{0,{_WORD - 1}}})?):\s")
#: The characters of a memory's start that decide its speaker: two words, the space between, the colon and one
#: white space. Contents are stored trimmed (domain/rules.py), so no white space comes before the name, and the
#: pipeline reads only this much of each candidate (``Store.content_starts``).
OPENING = 2 * _WORD + 3
_NAME = re.compile(r"\b[A-Z][\w'-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)\W*$")  # searched in the text before a word: nothing, or an end of sentence


def speaker_of(content: str) -> str | None:
    """The speaker a memory's content starts with, folded to lower case; None when it names none.

    >>> speaker_of("Gus: I'm majoring in marine biology"), speaker_of("user: hi"), speaker_of("No colon here")
    ('gus', None, None)
    """
    m = _SPEAKER.match(content)
    return m.group(1).casefold() if m else None


def names_in(text: str) -> set[str]:
    """The capitalised words and two-word runs of ``text``, folded: the names a question may say. A word
    that starts a sentence is capitalised anyway and is left out.

    >>> sorted(names_in("What did Mary Ann tell Gus? Gus forgot."))
    ['ann', 'gus', 'mary', 'mary ann']
    """
    words = [m.group() for m in _NAME.finditer(text) if not _SENTENCE_START.search(text, 0, m.start())]
    out = {w.casefold() for w in words}
    out |= {f"{a} {b}".casefold() for a, b in zip(words, words[1:], strict=False) if f"{a} {b}" in text}
    return out


def speaker(
    cands: Sequence[Candidate], speakers: Mapping[str, str | None], named: Collection[str], boost: float = 0.2, depth: int = 50
) -> list[Candidate]:
    """``score·(1 + boost)`` for a candidate whose speaker the query names; every other score unchanged.

    ``speakers`` gives the speaker of (some of) the candidates (``speaker_of``),
    ``named`` the names the query says (``names_in``); ``depth`` is how many
    first candidates the pipeline reads speakers for. With no name in the
    query, nothing changes.
    """
    if not named:
        return [c.rescored("speaker", c.score) for c in cands]
    return _sorted([
        c.rescored("speaker", c.score * (1 + boost) if (s := speakers.get(c.id)) is not None and s in named else c.score)
        for c in cands
    ])


SPEAKER_STAGES = {"speaker": speaker}
