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
# "Ava: …", "Dr. Lee: …", "Mary Ann: …", "Élodie: …" at the very start of a memory (each word's capital is checked
# after the match: Python's re has no class for upper-case letters beyond ASCII).
_SPEAKER = re.compile(rf"^\s*([^\W\d_][\w'.-]{{0,{_WORD - 1}}}(?: [^\W\d_][\w'.-]{{0,{_WORD - 1}}})?):\s")
#: The characters of a memory's start that decide its speaker: two words, the space between, the colon and one
#: white space. Contents are stored trimmed (domain/rules.py), so no white space comes before the name, and the
#: pipeline reads only this much of each candidate (``Store.content_starts``).
OPENING = 2 * _WORD + 3
_WORD_START = re.compile(r"\b[^\W\d_]")  # a letter after a mark, a space or nothing: where a name may start
_NAME_REST = re.compile(r"[\w'-]*")  # the rest of a name ("Jean-Luc", "O'Neil")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)\W*$")  # searched in the text before a word: nothing, or an end of sentence
_SHORT = re.compile(r"(?:^|\W)([^\W\d_]{1,3})$")  # searched in the text before a period: a word of at most 3 letters


def _capital(word: str) -> bool:
    """Whether ``word`` starts with a capital letter, in any script that has them ("Gus", "Élodie", "Łukasz")."""
    return word[:1].isupper() or word[:1].istitle()


def _starts_sentence(text: str, at: int, after: int) -> bool:
    """Whether the word at ``at`` starts a sentence: nothing but marks before it, or the end of a sentence. The
    period of a title or an initial ("Dr. Lee", "J. Smith": after a capitalised word of at most three letters)
    ends none. ``after``: where the word before it starts (0 for the first), so that each search reads the text
    between two words only, not all of it before the word (a long question read in linear time)."""
    end = _SENTENCE_START.search(text, after, at)
    if end is None:
        return False
    short = _SHORT.search(text, max(0, end.start() - 4), end.start()) if text.startswith(".", end.start()) else None
    return short is None or not _capital(short.group(1))


def speaker_of(content: str) -> str | None:
    """The speaker a memory's content starts with, folded to lower case; None when it names none.

    >>> speaker_of("Gus: I'm majoring in marine biology"), speaker_of("user: hi"), speaker_of("No colon here")
    ('gus', None, None)
    >>> speaker_of("Élodie: bonjour"), speaker_of("Dr. Lee: two a day"), speaker_of("Gus and: no")
    ('élodie', 'dr. lee', None)
    """
    m = _SPEAKER.match(content)
    return m.group(1).casefold() if m and all(_capital(w) for w in m.group(1).split(" ")) else None


def names_in(text: str) -> set[str]:
    """The capitalised words and two-word runs of ``text``, folded: the names a question may say. A word
    that starts a sentence is capitalised anyway and is left out.

    >>> sorted(names_in("What did Mary Ann tell Gus? Gus forgot."))
    ['ann', 'gus', 'mary', 'mary ann']
    >>> sorted(names_in("What did Dr. Lee tell Élodie about the x-Ray of Jean-Luc?"))
    ['dr', 'dr. lee', 'jean-luc', 'lee', 'ray', 'élodie']
    """
    words: list[tuple[int, int]] = []  # where each name starts and ends
    end = before = 0
    for start in _WORD_START.finditer(text):
        at, after, before = start.start(), before, start.start()
        if at < end or not _capital(text[at]):  # inside the name before, or a lower-case word ("x-Ray" names "Ray")
            continue
        end = _NAME_REST.match(text, at + 1).end()
        if not _starts_sentence(text, at, after):
            words.append((at, end))
    out = {text[a:b].casefold() for a, b in words}
    # Two names one after the other, with a space between ("Mary Ann") or a period and a space ("Dr. Lee").
    out |= {text[a:d].casefold() for (a, b), (c, d) in zip(words, words[1:], strict=False) if text[b:c] in (" ", ". ")}
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
