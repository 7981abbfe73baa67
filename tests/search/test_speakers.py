"""The speaker step's read: only the start of each candidate's text, which names the same speaker as the whole text."""

from __future__ import annotations

import knotwork
from knotwork import Settings
from knotwork.search.speakers import OPENING, names_in, speaker_of

LONGEST = "A" + "é" * 30 + " B" + "ø" * 30  # two words of the most characters a name's word may have, not ASCII after the capital
TEXTS = [
    f"{LONGEST}: the end of the longest name, then the talk goes on well past the opening " + "x " * 40,
    f"{LONGEST}x: a word one character too long names nobody",
    "Gus: I'm majoring in marine biology",
    "Dr. Lee: take two of these",
    "Mary Ann: see you at nine",
    "Zoë: the café opens at eight",
    "Élodie: an accented capital is not one the step reads as a name",
    "Gus:",  # only a name and a colon: no white space after it, no speaker
    "Gus:no space after the colon",
    "user: a role in lower case",
    "No colon in this one at all, however long it goes on " * 3,
    "Ava Lee Kim: three words name nobody",
]


def test_the_opening_names_the_speaker_the_whole_text_names() -> None:
    got = {t: speaker_of(t[:OPENING]) for t in TEXTS}
    assert got == {t: speaker_of(t) for t in TEXTS}
    assert got[TEXTS[0]] == LONGEST.casefold() and got[TEXTS[2]] == "gus" and got[TEXTS[5]] == "zoë"
    assert got[TEXTS[1]] is None and got[TEXTS[7]] is None
    assert speaker_of(TEXTS[0][: OPENING - 1]) is None  # OPENING is the least that holds the longest name


def test_the_store_reads_each_start_as_the_text_starts(mem: knotwork.Knotwork) -> None:
    """``content_starts`` counts characters, not bytes, on both engines: a name of two-byte letters is read whole."""
    ids = [mem.add(t, workspace="w", force=True).id for t in TEXTS]
    whole = {i: m.content for i, m in mem.store.get_memories(ids).items()}
    starts = mem.store.content_starts([*ids, "missing"], OPENING)
    assert set(starts) == set(ids)
    assert {i: speaker_of(s) for i, s in starts.items()} == {i: speaker_of(whole[i]) for i in ids}
    assert all(starts[i] == whole[i][:OPENING] for i in ids)


def test_a_search_that_names_someone_reads_whole_memories_only_for_what_it_returns(target: str) -> None:
    seen: list[str] = []
    with knotwork.open(target, settings=Settings(embedder="none"), tracer=lambda sql, params: seen.append(sql)) as mem:
        for n in range(30):
            who = ("Gus", "Ava", "Eli")[n % 3]
            mem.add(f"{who}: the marine biology course, part {n}", workspace="w", force=True)
        question = "What did Gus say about the marine biology course?"
        assert names_in(question) == {"gus"}
        seen.clear()
        hits = mem.search(question, workspace="w", limit=3, explain=True)
    assert [h.memory.content.split(":")[0] for h in hits] == ["Gus"] * 3
    assert all(h.explain["speaker"] > h.explain["fused"] for h in hits)  # the step ran on what it read
    whole = [s for s in seen if s.startswith("SELECT id, content, workspace, agent_id") and "content_hash, version" in s]
    assert len(whole) == 1, whole
