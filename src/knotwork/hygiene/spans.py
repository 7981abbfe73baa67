"""Where two token lists differ: the one replaced span both the supersession rules
(:mod:`~knotwork.hygiene.consolidate`) and the learned pair check (:mod:`~knotwork.hygiene.pair_scorer`) read,
with the bounds and the negations they share (the check imports nothing of the rules: they call it)."""

from __future__ import annotations

import difflib

MAX_SPAN = 3  # words a changed value may take on either side
# Words that mark a change and hold no value ("X now works for B"): left out when two frames are compared.
CHANGE_MARKS = frozenset({"now"})
NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "won't",
                       "can't", "cannot", "shouldn't", "nor", "without", "none", "nobody", "nothing", "longer"})


def short_swap(old: list[str], new: list[str]) -> tuple[int, int, int, int] | None:
    """``(i1, i2, j1, j2)`` when ``new`` is ``old`` with exactly one span replaced (``old[i1:i2]`` by
    ``new[j1:j2]``), neither side longer than ``MAX_SPAN`` words; else None."""
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    if i2 - i1 > MAX_SPAN or j2 - j1 > MAX_SPAN:
        return None
    return i1, i2, j1, j2


def frame_tokens(raw: list[str]) -> list[str]:
    """The tokens a frame is compared by: "now", which marks a change and says no value ("X works for A" ->
    "X now works for B"; "is an active member" -> "is now an emeritus member"), left out, and "an" read as
    "a" (the article follows the next word's sound, not the value)."""
    return [("a" if t[0] == "a" else "A") if t.lower() == "an" else t for t in raw if t.lower() not in CHANGE_MARKS]
