"""One numbered thing, another stage of its life, in any sentence shape.

The frame rules of :mod:`~knotwork.hygiene.consolidate` and the key reader of :mod:`~knotwork.hygiene.keys`
read a change where the two texts share a frame or a key's shape. A stage of a numbered thing's life is
written in many shapes by many hands: "Node.js v17: Current" -> "The release status of Node 17 is
Maintenance"; "Status of PEP 747 (annotating type forms): Draft" -> "TypeForm is done: PEP 747 went straight to
Final". No frame is shared, yet both texts name ONE thing with its number and give it ONE stage each, and a
thing is in one stage at a time. So the words are read without their order (:func:`stage_change`):

- the subject: every name written with a capital and a number after it ("Node.js v17", "PEP 747", "Python
  3.9", "KEP-1287"; ".js", a "v" and a closing ".0" or ".x" read alike) — exactly one, the same in both texts
  ("PEP 739 is accepted" / "PEP 794 is accepted" are two things, one stage each);
- the value: every word of :data:`STAGES` (proposal and release-line stages; "end of life" and "EOL" read as
  "end-of-life") — exactly one per text, and another one;
- nothing that makes a statement of another kind: no negation, no hedge or plan ("will be", "planned",
  "expected"), no date of a schedule ("Node.js 22 reaches end-of-life on 2028-04-30" says when, not that it
  is: an ISO date, the word "date", or a year in each text), and every capitalised name the older text
  writes (after its first word) is in the newer one, so retiring it loses no other statement of it.

Which text is the newer is the service's to say (by ``valid_at``), as for every rule. The reader is asked
last in consolidation, with the slot readers' cosine floor. It was written after the fourth and fifth fresh
supersession halves had been scored and read (issue 35, round 6); the sixth half measures it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from knotwork.hygiene.spans import AFTER_VALUE, NEGATIONS, RAW_WORD, TIME_WORDS, words

#: The stages of a proposal (PEP, KEP, RFC) and of a release line (Node.js, Python branches), each one at a time.
STAGES: dict[str, str] = {w: w for w in (
    "draft accepted final rejected withdrawn deferred provisional superseded active current maintenance "
    "end-of-life bugfix prerelease security deprecated archived sandbox incubating graduated stable unmaintained"
    ).split()} | {"eol": "end-of-life"}
#: Words after a stage that keep it a stage ("security status", "maintenance mode", "Maintenance LTS"); any other
#: lower-case word after it makes it a word that describes that noun ("final release", "security fixes",
#: "current maintainers", "stable API"), no stage.
STAGE_NOUNS = frozenset("status phase stage state mode lts branch line is are was were according".split()) | AFTER_VALUE
#: Words that make a statement a plan, a guess or a condition, not a stage reached.
HEDGES = frozenset("will would may might could should planned plan plans expected scheduled proposed probably "
                   "likely until if".split())
_ID = re.compile(r"\b([A-Za-z][A-Za-z+]*?)(?:\.js)?[\s-]?v?(\d+(?:\.\d+)*)(?:\.x)?\b")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}:\d\d\b")
_ISO = re.compile(r"\b(?:19|20)\d\d-\d\d\b")
_STAGE_AT = re.compile(r"(?<![\w-])(?P<word>[A-Za-z][A-Za-z-]*)(?![\w-])(?=(?:[ \t]+(?P<after>\w[\w.-]*))?)")


@lru_cache(maxsize=4096)
def subjects(text: str) -> frozenset[tuple[str, str]]:
    """Each name written with a capital and the number after it, as (name, number): "Node.js v17" and "Node 17"
    alike, "3.0" read as "3"; a month or a day before a number is a date, not a name."""
    return frozenset((m[1].lower(), re.sub(r"\.0$", "", m[2])) for m in _ID.finditer(text)
                     if m[1][0].isupper() and m[1].lower() not in TIME_WORDS)  # "October 2024" is a date, no subject


def stages(text: str) -> set[str]:
    """The stages :data:`STAGES` a text names: a stage word that ends the text or a clause, or comes before
    punctuation, a capitalised word or one of :data:`STAGE_NOUNS`; before another lower-case word it describes
    that word ("the final release", "security fixes")."""
    found = set()
    for m in _STAGE_AT.finditer(text.replace("end of life", "end-of-life").replace("End of life", "End-of-life")):
        word, after = m["word"].lower(), (m["after"] or "").rstrip(".-")
        if word in STAGES and (not after or not after[0].islower() or after in STAGE_NOUNS):
            found.add(STAGES[word])
    return found


def stage_change(old_text: str, new_text: str) -> str | None:
    """"old stage -> new stage" when both texts name one numbered thing, the same, and give it one stage each,
    two different ones (module docstring); else None."""
    subject = subjects(old_text)
    if len(subject) != 1 or subject != subjects(new_text):
        return None
    before, after = stages(old_text), stages(new_text)
    if len(before) != 1 or len(after) != 1 or before == after:
        return None
    said = set(words(old_text)) | set(words(new_text))
    if said & (NEGATIONS | HEDGES) or "date" in said:
        return None  # "... is not final", "... will be accepted", "... EOL date is ...": no stage reached
    if _ISO.search(old_text) or _ISO.search(new_text) or (_YEAR.search(old_text) and _YEAR.search(new_text)):
        return None  # "... reaches end-of-life on 2028-04-30": a schedule says when, not that it is
    (name, number), = subject
    kept = set(words(new_text)) | {name}
    names = {t.lower() for t in RAW_WORD.findall(old_text.replace("\u2019", "'"))[1:] if t[0].isupper()}
    if not {n for n in names if n not in STAGES and n != "lts" and n.removesuffix(".js") != name} <= kept:
        return None  # the older text names something the newer one does not: it says more than the stage
    return f"{before.pop()} -> {after.pop()}"
