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


NAMES = ["Élodie", "Łukasz", "Dr. Lee", "J. Smith", "Ørjan Åberg"]


def test_a_name_with_a_capital_beyond_ascii_or_after_a_title_is_one_the_question_says() -> None:
    for name in NAMES:
        said = speaker_of(f"{name}: the course starts in May")
        assert said == name.casefold()
        assert said in names_in(f"When did {name} say the course starts?"), name
        assert said not in names_in(f"when did {name.lower()} say the course starts?")  # no capital, no name
    # A period after a longer word still ends a sentence: its next word is capitalised anyway, not a name.
    assert names_in("I met Gustav. Where did he go?") == {"gustav"}
    assert names_in("I met Gus. Where did Ava go?") >= {"gus", "ava"}


def test_the_default_lifts_what_a_person_with_such_a_name_said(mem: knotwork.Knotwork) -> None:
    from dataclasses import replace

    from knotwork.search.recipes import RECIPES

    without = replace(
        RECIPES["memory_hybrid"], rerankers=tuple(s for s in RECIPES["memory_hybrid"].rerankers if s.name != "speaker")
    )
    for n, name in enumerate(("Élodie", "Dr. Lee")):
        ws = f"w{n}"
        mem.add(f"Ava: {name} says the marine biology course they signed up for starts soon", workspace=ws, thread="a")
        mem.add(f"{name}: the marine biology course starts in May, I signed up last week", workspace=ws, thread="b")
        mem.add("Ava: my sister works at the aquarium downtown", workspace=ws, thread="c")
        question = f"When does the marine biology course {name} signed up for start?"
        assert mem.search(question, workspace=ws, recipe=without, limit=1)[0].memory.content.startswith("Ava:")
        assert mem.search(question, workspace=ws, limit=1)[0].memory.content.startswith(f"{name}:"), name


def test_two_names_make_a_run_only_where_they_stand_side_by_side() -> None:
    assert names_in("Did Mary Ann call Gus?") == {"mary", "ann", "mary ann", "gus"}
    # "Ann" and "Gus" are consecutive names of the question but not side by side: no run, wherever else "Ann Gus" is.
    assert "ann gus" not in names_in("Did Ann call\nGus, or did McAnn Gus?")
    long = "Did " + " ".join(f"Ab{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(600)) + "?"
    assert len(names_in(long)) == 600 + 599  # every name and every run of two, in a question of 3,000 characters


def test_a_question_naming_someone_over_no_candidates_answers_nothing(mem: knotwork.Knotwork) -> None:
    assert mem.search("What did Gus say?", workspace="empty") == []
    assert mem.store.content_starts([], OPENING) == {}
