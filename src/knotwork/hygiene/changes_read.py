"""Changes written as project text writes them: change-log lines, decision records, "instead of", a negation
lifted.

Readers of the later of two texts for consolidation (:mod:`~knotwork.hygiene.consolidate`), for changes that
no frame rule sees because the later text is not the earlier one with a value swapped:

- a decision record that names the one it supersedes ("ADR-0067 supersedes ADR-0023: ...") retires the memory
  that record opens with ("ADR-0023 (implemented): MongoDB is Larch's primary database") and no other
  (:func:`named_superseded`);
- a change-log line's tag ("BREAKING:", "0.3.0:") and closing reference ("(Ferry 0.3.0)") say which release,
  not what holds (:func:`changelog_body`);
- a change said with a verb, from A to B, with no subject ("Update default timeout from 30 to 60 seconds",
  "migrate the Tamarack database from MySQL to PostgreSQL") (:func:`from_to`), and new versions of several
  named things at once ("update Vite to v4 and Rollup to v3") (:func:`upgrades`): consolidation reads them
  against the older text as that text with the values swapped, and its frame rules must still find each value
  in its place;
- two values swapped in one frame ("Laravel 8 and PHP 7.4" -> "Laravel 10 and PHP 8.2"): the text between the
  two (:func:`two_swaps`), each step of which the frame rules must read as one value changed;
- "B instead of A" / "Instead of A, ..." where the earlier text states A in the same frame (:func:`instead_of`);
- a negation lifted for a value ("are not retried by default" -> "are retried 3 times by default") or a value
  negated (:func:`negation_lifted`);
- "Stop <doing> X" where the earlier text states exactly X (:func:`stopped`);
- one thing's version floor in any of its wordings ("requires Python 3.8 or newer", "minimal supported Python
  version is 3.6", "the minimum is Python 3.9") (:func:`floor_change`), and one thing's cadence ("every two
  weeks on Monday" -> "monthly, on the first Monday") (:func:`cadence_change`), the rest said alike;
- "A handed X over to B" (:func:`handed_over`), "A left <org>" against A's role there (:func:`left_org`);
- a version's tag read with it ("Node.js 18 LTS") (:func:`untagged`), a version moved with its verb ("We moved
  the game servers to Node.js 20 LTS") (:func:`moved_to_version`), another tool after "with"
  (:func:`tool_after_with`).

Precision first, as everywhere in consolidation: each reader needs the earlier text to state the very thing the
later one changes (the record's own id, the value written once in it, every content word of it), so that a
statement about another thing is never retired. Pure functions over texts; nothing here imports the rules.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from knotwork.hygiene.spans import (MAX_SPAN, MIN_LEAD, NEGATIONS, PERSON as _PERSON, RAW_WORD as _RAW,
                                    SWAP_MAX as _SWAP_MAX, names_kept, words as _words)

# Words that say nothing of which thing a statement is about.
_FUNCTION = frozenset(
    "a an the of to in on at by for from with as and or but is are was were be been being it its this that these "
    "those we our you your they their he she his her i my me us them can could will would should may might must "
    "now then than when while if so do does did done has have had not no only also just all any each every "
    "use uses used using via into onto over under per".split()
)


def _stem(word: str) -> str:
    """A crude stem, enough to tell "redirecting" / "redirection" / "redirect" or "writes" / "write" apart from
    other words: a common suffix off, then the first five letters."""
    for suffix in ("ing", "ion", "ed", "es", "er", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:5]


def _content(text: str) -> set[str]:
    """The stems of a text's content words (no function word, no bare number)."""
    return {_stem(w) for w in _words(text) if w not in _FUNCTION and not w.isdigit() and len(w) > 1}


# -- decision records ------------------------------------------------------------------------------------------
_DOC_ID = r"(?P<kind>ADR|RFC|KEP|PEP|DEP|DR)[- ]?(?P<num>\d{1,5})\b"
_SUPERSEDES_ID = re.compile(rf"\b(?:supersedes|supersede|replaces|obsoletes)\s+(?:{_DOC_ID})")
_FIRST_ID = re.compile(_DOC_ID)


def _doc_id(match: re.Match[str]) -> tuple[str, int]:
    return match["kind"].upper(), int(match["num"])


def _label(text: str) -> tuple[str, int] | None:
    """The record a text is about: the first record id written in it, unless it is one the text supersedes."""
    first = _FIRST_ID.search(text)
    if first is None:
        return None
    named = _SUPERSEDES_ID.search(text)
    if named is not None and named.start("kind") == first.start():
        return None
    return _doc_id(first)


def named_superseded(old_text: str, new_text: str) -> str | None:
    """``"<old id> superseded by <new id>"`` when ``new_text`` says it supersedes (replaces, obsoletes) the
    record ``old_text`` is about ("ADR-0067 supersedes ADR-0023: ..." against "ADR-0023 (implemented): MongoDB
    is Larch's primary database"; "... it supersedes ADR-0003" against "ADR-0003: each page fetches ..."), and
    is not itself about that record; else None. The record's own memory is the one the text opens its id
    with; a memory that only mentions it elsewhere ("ADR-0067 supersedes ADR-0023") is about another record."""
    old_id = _label(old_text)
    if old_id is None:
        return None
    named = {_doc_id(m) for m in _SUPERSEDES_ID.finditer(new_text)}
    new_id = _label(new_text)
    if old_id not in named or new_id == old_id:
        return None
    said = f"{new_id[0]}-{new_id[1]}" if new_id else "a later record"
    return f"{old_id[0]}-{old_id[1]} superseded by {said}"


def names_superseded(text: str) -> bool:
    """Whether ``text`` says it supersedes a record by its id (the service then reads its date)."""
    return _SUPERSEDES_ID.search(text) is not None


# -- change-log lines ------------------------------------------------------------------------------------------
# A tag or release before the line ("BREAKING:", "BREAKING CHANGE:", "0.3.0:", "v1.2 -", "[1.2.0]", "Fix:"), and
# a record's label before a decision ("ADR-002, decision:"): which release or record, not what holds.
_TAG = re.compile(
    r"^\s*(?:(?:breaking(?:\s+change)?|fix(?:ed)?|feat(?:ure)?|chore|changed?)\s*[:!-]\s*"
    r"|\[?v?\d+(?:\.\d+){1,3}\]?\s*[:\u2014-]\s*"
    rf"|(?:{_DOC_ID})\s*,?\s*(?:decision\s*)?:\s*)", re.IGNORECASE)
# ... and a closing reference in brackets ("(Ferry 0.3.0)", "(ADR-0009)", "(#123)").
_CLOSING_REF = re.compile(r"\s*\((?:[^()]*\d[^()]*)\)\s*$")
# A closing reason after "for" ("... to PostgreSQL for performance and scalability"): why, not what.
_FOR_REASON = re.compile(
    r"\s+for\s+(?:better\s+|more\s+)?(?:performance|scalability|reliability|security|speed|maintainability|"
    r"consistency|simplicity|cost)(?:\s+(?:and|or)\s+(?:performance|scalability|reliability|security|speed|"
    r"maintainability|consistency|simplicity|cost))?$", re.IGNORECASE)


@lru_cache(maxsize=2048)  # asked of each text once per candidate pair
def changelog_body(text: str) -> str:
    """``text`` without a change-log tag or release before it, a bracketed reference or a reason after it."""
    body = text.strip().rstrip(".")
    body = _TAG.sub("", body, count=1)
    body = _CLOSING_REF.sub("", body)
    return _FOR_REASON.sub("", body).strip()


_VERBS = (r"(?:update|updated|change|changed|increase|increased|raise|raised|lower|lowered|reduce|reduced|"
          r"decrease|decreased|bump|bumped|move|moved|migrate|migrated|switch|switched)")
_FROM_TO_VERB = re.compile(
    rf"^(?:we\s+(?:will\s+|have\s+)?)?{_VERBS}\s+(?P<what>[^,;]+?)\s+from\s+(?P<a>[^,;]+?)\s+to\s+(?P<b>[^,;]+?)$",
    re.IGNORECASE)


# ... and with no "from": "0.3.0: increase default timeout to 5 seconds" (an amount with its unit).
_SET_TO = re.compile(rf"^(?:we\s+(?:have\s+)?)?{_VERBS}\s+(?P<what>[^,;]+?)\s+to\s+(?P<b>\d+(?:\.\d+)?\s+[a-z]+)$",
                     re.IGNORECASE)


def from_to(clause: str) -> tuple[list[str], str | None, str] | None:
    """(the words naming the thing, A, B) of a change-log line "Update default timeout from 30 to 60 seconds"
    or "migrate the Tamarack database from MySQL to PostgreSQL", else None. With no subject, the words after
    the verb name the thing; consolidation finds them in the older text (in any order: "default timeout" in
    "The client's default request timeout is 30 seconds") and A written there once. With no "from" ("increase
    default timeout to 5 seconds"), A is None: an amount in B's unit (:func:`changelog_swapped`)."""
    body = changelog_body(clause)
    m = _FROM_TO_VERB.match(body) or _SET_TO.match(body)
    if m is None:
        return None
    what = [w for w in _words(m["what"]) if w not in ("the", "our", "its", "a", "an")]
    return (what, m["a"] if "a" in m.re.groupindex else None, m["b"]) if what else None


_UPGRADE_ONE = r"(?P<name{i}>[A-Z][\w.+-]*)\s+to\s+v?(?P<v{i}>\d+(?:\.\d+)*)"
_UPGRADES = re.compile(
    r"^(?:we\s+(?:have\s+)?)?(?:upgrade|upgraded|update|updated|bump|bumped)\s+"
    + _UPGRADE_ONE.format(i=1) + r"(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+)" + _UPGRADE_ONE.format(i=2) + "$")


def upgrades(clause: str) -> list[tuple[str, str]] | None:
    """[(name, version), (name, version)] of a change-log line that upgrades two named things at once
    ("BREAKING: update Vite to v4 and Rollup to v3"), else None (one thing: consolidate's ``_UPGRADED``)."""
    m = _UPGRADES.match(changelog_body(clause))
    return [(m["name1"], m["v1"]), (m["name2"], m["v2"])] if m else None


# A tag after a version that says which kind of release ("Node.js 20 LTS"), the same on both sides: part of it.
_RELEASE_TAGS = r"LTS|beta|alpha|RC|stable|final|preview"
_TAGGED = re.compile(rf"(?<![\w.])(v?\d+(?:\.\d+)*)\s+({_RELEASE_TAGS})\b")


def untagged(old_text: str, new_text: str) -> tuple[str, str] | None:
    """Both texts without the one tag each writes after a version, when it is the same tag ("Kestrel's game
    servers run Node.js 18 LTS" / "... Node.js 20 LTS" read as "... Node.js 18" / "... Node.js 20"), else None."""
    found = [list(_TAGGED.finditer(t)) for t in (old_text, new_text)]
    if any(len(f) != 1 for f in found) or found[0][0][2].lower() != found[1][0][2].lower():
        return None
    return tuple(t[: f[0].end(1)] + t[f[0].end():] for t, f in zip((old_text, new_text), found))  # type: ignore[return-value]


_MOVED_TO_VERSION = re.compile(
    r"^(?:[Ww]e\s+(?:have\s+)?)?(?:[Mm]oved|[Uu]pgraded|[Ss]witched|[Mm]igrated|[Uu]pdated|[Bb]umped)\s+(?P<what>(?:the|our)\s+[^,;]+?)\s+to\s+"
    rf"(?P<name>[A-Z][\w.+-]*?)\s+v?(?P<v>\d+(?:\.\d+)*)(?:\s+(?:{_RELEASE_TAGS}))?$")


def moved_to_version(clause: str) -> tuple[list[str], str, str] | None:
    """(the words naming the thing, the name, the version) of "We moved the game servers to Node.js 20 LTS",
    else None: consolidation reads it against the older text that states the thing and "<name> <version>"."""
    m = _MOVED_TO_VERSION.match(changelog_body(clause))
    if m is None:
        return None
    what = [w for w in _words(m["what"]) if w not in ("the", "our")]
    return (what, m["name"], m["v"]) if what else None


def with_unit(a: str, b: str) -> str | None:
    """A bare number said "from 30 to 60 seconds" with the unit B carries: "30 seconds" (how the earlier text
    writes it), else None."""
    aw, bw = a.split(), b.split()
    if len(aw) == 1 and aw[0].replace(".", "").isdigit() and len(bw) == 2 and bw[0].replace(".", "").isdigit():
        return f"{a} {bw[1]}"
    return None


# -- two values in one frame -----------------------------------------------------------------------------------
_JOINS = frozenset({"and", "with", "on", "at", "plus", "over"})


def two_swaps(old_text: str, new_text: str) -> str | None:
    """The text between two whose words differ in exactly two replaced spans, each at most ``MAX_SPAN`` words a
    side, said together ("Tamarack runs on Laravel 8 and PHP 7.4" -> "... Laravel 10 and PHP 8.2": at most two
    words between them, one of "and", "with", "on"): ``old_text`` with the first span replaced ("... Laravel 10
    and PHP 7.4"), so each step is one value swapped; else None. Two values far apart may be a holder and the
    thing held ("Larry Hastings is the release manager for Python 3.4" / "Georg Brandl ... for Python 3.2": two
    releases, two managers), and are not read."""
    old_tokens = list(_RAW.finditer(old_text.replace("\u2019", "'")))
    old = [t[0].lower() for t in old_tokens]
    if not _JOINS.intersection(old):
        return None  # no word that joins two values, so no gap below can hold one: no need to align the texts
    new_tokens = list(_RAW.finditer(new_text.replace("\u2019", "'")))
    new = [t[0].lower() for t in new_tokens]
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 2 or any(op[0] != "replace" or op[2] - op[1] > MAX_SPAN or op[4] - op[3] > MAX_SPAN
                            for op in ops):
        return None
    _, i1, i2, j1, j2 = ops[0]
    gap = old[i2: ops[1][1]]
    if i1 == 0 or len(gap) > 2 or not set(gap) & _JOINS:
        return None  # two values said together ("A and B", "A with B"), not a holder and the thing held
    start, end = old_tokens[i1].start(), old_tokens[i2 - 1].end()
    return old_text[:start] + new_text[new_tokens[j1].start(): new_tokens[j2 - 1].end()] + old_text[end:]


# -- "instead of" ----------------------------------------------------------------------------------------------
_INSTEAD_AFTER = re.compile(r"^(?P<lead>.*)\b(?P<b>[\w.+-]+)\s+instead\s+of\s+"
                            r"(?P<a>[\w.+-]+(?:\s+[\w.+-]+){0,2}?)(?:\s+(?:on|in|for|when|at|by|during)\b.*)?$",
                            re.IGNORECASE)
_INSTEAD_FIRST = re.compile(r"^instead\s+of\s+(?P<rest>.+)$", re.IGNORECASE)
_NEW_AFTER = re.compile(r"\b(?:as|with|to|using|via)\s+(?P<b>[\w.+-]+(?:\s+[\w.+-]+){0,2})$", re.IGNORECASE)


def _written_once(value: str, text: str) -> re.Match[str] | None:
    found = list(re.finditer(rf"(?<![\w.-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE))
    return found[0] if len(found) == 1 else None


def instead_of(old_text: str, new_text: str) -> str | None:
    """``"A -> B"`` when ``new_text`` says B holds instead of A and ``old_text`` states A in the same frame.

    "Write to stderr instead of stdout on error" against "Osprey writes its errors to stdout ...": A ("stdout")
    written once in the older text, at least ``MIN_LEAD`` words in, and every content word before B ("write")
    among the older text's words before A. "Instead of python -m ferry you can now run the tool as ferry-cli"
    against "The command-line tool is started with python -m ferry": the longest opening after "instead of"
    written once in the older text, at least ``MIN_LEAD`` words in, a content word of the rest ("tool") in the
    older text, and B the one to three words after a last "as / with / to / using". Else None."""
    body = changelog_body(new_text)
    if ";" in body:
        return None
    if m := _INSTEAD_AFTER.match(body):
        a, b, lead = m["a"], m["b"], m["lead"]
        found = _written_once(a, old_text)
        if found is None or b.lower() == a.lower():
            return None
        before = old_text[: found.start()]
        if len(_words(before)) < MIN_LEAD or not _content(lead + " " + b) - _content(b) <= _content(before):
            return None
        if not _content(lead):
            return None
        return f"{a} -> {b}"
    if m := _INSTEAD_FIRST.match(body):
        tokens = m["rest"].split()
        for n in range(min(4, len(tokens) - 1), 0, -1):
            a = " ".join(tokens[:n]).rstrip(",")
            found = _written_once(a, old_text)
            if found is None:
                continue
            rest = " ".join(tokens[n:])
            after = _NEW_AFTER.search(rest.rstrip("."))
            if (after is None or len(_words(old_text[: found.start()])) < MIN_LEAD
                    or not (_content(rest) - _content(after["b"])) & (_content(old_text) - _content(a))):
                return None
            return f"{a} -> {after['b']}"
    return None


# -- a negation lifted, a value negated ------------------------------------------------------------------------
_NEGATION_WORDS = (("no", "longer"), ("not",), ("never",))


def _without_negation(tokens: list[str]) -> list[str] | None:
    """``tokens`` with their one negation ("not", "never", "no longer") left out, or None when there is none
    or more than one."""
    for neg in _NEGATION_WORDS:
        at = [i for i in range(len(tokens)) if tuple(tokens[i: i + len(neg)]) == neg]
        if len(at) == 1:
            rest = tokens[: at[0]] + tokens[at[0] + len(neg):]
            return rest if not NEGATIONS & set(rest) else None
    return None


def negation_lifted(old_text: str, new_text: str) -> str | None:
    """``"not -> <value>"`` (or the other way) when one text is the other with its one negation left out and a
    value of one to ``MAX_SPAN`` words with a number put in, at least ``MIN_LEAD`` words in ("Temporary download
    errors are not retried by default" -> "... are retried 3 times by default"; "... are retried 3 times" ->
    "... are no longer retried"); else None. A negation taken away with no value put in ("is not X" -> "is X")
    is a contradiction, left to the caller to keep."""
    old, new = _words(old_text), _words(new_text)
    for negated, valued, told in ((old, new, "not -> {}"), (new, old, "{} -> not")):
        if NEGATIONS & set(valued):
            continue
        plain = _without_negation(negated)
        if plain is None:
            continue
        ops = [op for op in difflib.SequenceMatcher(a=plain, b=valued, autojunk=False).get_opcodes()
               if op[0] != "equal"]
        if len(ops) != 1 or ops[0][0] != "insert":
            continue
        _, i1, _, j1, j2 = ops[0]
        span = valued[j1:j2]
        if i1 >= MIN_LEAD and len(span) <= MAX_SPAN and any(ch.isdigit() for t in span for ch in t):
            return told.format(" ".join(span))
    return None


# -- "stop doing X" --------------------------------------------------------------------------------------------
_STOP = re.compile(r"^(?:we\s+)?(?:stop|stopped|no\s+longer)\s+(?P<rest>\w+ing\b.+)$", re.IGNORECASE)


def stopped(old_text: str, new_text: str) -> str | None:
    """``"stopped: <what>"`` when ``new_text`` is a change-log line "Stop <doing> X" ("Stop using redirection to
    the Vite dev server when serving static files in dev mode") and ``old_text`` states X and nothing else: the
    two texts' content words are the same (by stem, at least three: "In dev mode static files are served by
    redirecting to the Vite dev server"). An older text that says more ("We use Redis for caching and
    sessions" against "Stop using Redis for caching") keeps what the change leaves true, and stays."""
    m = _STOP.match(changelog_body(new_text))
    if m is None or ";" in old_text:
        return None
    theirs, mine = _content(old_text), _content(m["rest"])
    if len(theirs) < 3 or theirs != mine:
        return None
    return f"stopped: {m['rest']}"



def _close_in_order(what: list[str], said: list[str]) -> bool:
    """Are ``what``'s words in ``said`` in order, at most one word between two of them ("default timeout" in "the
    default network timeout", not in "the default health check timeout")?"""
    starts = [i for i, w in enumerate(said) if w == what[0]]
    for i in starts:
        at, ok = i, True
        for w in what[1:]:
            nxt = next((j for j in (at + 1, at + 2) if j < len(said) and said[j] == w), None)
            if nxt is None:
                ok = False
                break
            at = nxt
        if ok:
            return True
    return False


def changelog_swapped(older: str, what: list[str], a: str | None, b: str, later: str) -> str | None:
    """``older`` with A replaced by B for a change-log line with no subject (:func:`from_to`): the words after
    the verb all in ``older`` (in any order: "default timeout" in "The client's default request timeout is 30
    seconds"), A written there once, at least ``MIN_LEAD`` words in (with B's unit when A is a bare number:
    "from 30 to 60 seconds"; a version after A goes with it when B has none: "MySQL 8.0" -> "PostgreSQL"), and
    every capitalised name ``older`` states after A in the ``later`` text too (retiring ``older`` loses no other
    statement of it). When A is not written there ("from 30 to 60 seconds" against "... is 45 seconds", or no
    A: "increase default timeout to 5 seconds"), the one amount in B's unit, when the words after the verb are
    there in order, at most one word apart ("the default network timeout"). Else None; the frame rules then
    still have to find B in A's place."""
    text = older.strip().rstrip(".")
    said = {w.removesuffix("'s") for w in _words(text)}  # "the API client's connect timeout"
    if not 0 < len(_words(b)) <= _SWAP_MAX or not set(what) <= said or set(what) & NEGATIONS:
        return None
    found = None
    for value in filter(None, (a, a and with_unit(a, b))):
        if 0 < len(_words(value)) <= _SWAP_MAX and (hit := _written_once(value, text)):
            found = hit
    unit = b.split()[-1] if len(b.split()) == 2 and b.split()[0].replace(".", "").isdigit() else None
    if found is None and unit and _close_in_order(what, [w.removesuffix("'s") for w in _words(text)]):
        # A written otherwise, or not at all ("increase default timeout to 5 seconds"): the one amount in B's unit
        amounts = list(re.finditer(rf"(?<![\w.])\d+(?:\.\d+)?\s+{re.escape(unit.rstrip('s'))}s?\b", text, re.IGNORECASE))
        found = amounts[0] if len(amounts) == 1 else None
    if found is None or len(_words(text[: found.start()])) < MIN_LEAD:
        return None
    end = found.end()
    if not any(ch.isdigit() for ch in b) and (version := re.match(r"\s+v?\d+(?:\.\d+)*(?![\w.])", text[end:])):
        end += version.end()
    after = text[end:]
    if not names_kept(after, later):
        return None
    return text[: found.start()] + b + after


# -- a floor: the lowest version supported -----------------------------------------------------------------------
_V = r"v?(?P<v>\d+(?:\.\d+)*)"
_FLOORS = (
    # "requires Python 3.8 or newer", "supports Python 3.7 and newer", "Python 3.8+"
    re.compile(rf"(?<![\w.-])(?P<name>[A-Za-z][\w.+-]*?)\s+{_V}(?:\+|\s+(?:or|and)\s+(?:newer|later|above|higher|up))",
               re.IGNORECASE),
    # "the minimum supported Go version for building Tiller is 1.21", "minimal supported Python version is 3.6"
    re.compile(rf"\b(?:minimum|minimal|lowest)\s+(?:supported\s+)?(?P<name>[A-Za-z][\w.+-]*)\s+version\b"
               rf"(?P<mid>[^,;:]*?)\s+(?:is|:)\s+(?:now\s+)?(?:(?P=name)\s+)?{_V}(?![\w.])", re.IGNORECASE),
    # "the minimum is Python 3.9", "at least Python 3.9"
    re.compile(rf"\b(?:minimum\s+(?:is|:)|at\s+least)\s+(?:now\s+)?(?P<name>[A-Za-z][\w.+-]*)\s+{_V}(?![\w.])",
               re.IGNORECASE),
    # a heading or "the oldest": "Oldest supported Python for Bramble: 3.11", "The oldest NumPy Bramble supports is
    # 1.23" (the subject before "supports" is the owner)
    re.compile(rf"\b(?:oldest|lowest|minimum|minimal)\s+(?:supported\s+)?(?P<name>[A-Za-z][\w.+-]*)(?:\s+version)?"
               rf"(?P<mid>(?:\s+(?:for|of)\s+[A-Z][\w.-]*|\s+[A-Z][\w.-]*\s+supports))\s*(?:is|:)\s+(?:now\s+)?{_V}"
               r"(?![\w.])", re.IGNORECASE),
    # a floor raised: "NumPy floor raised to 1.25", "The NumPy floor is 1.24"
    re.compile(rf"(?<![\w.-])(?P<name>[A-Za-z][\w.+-]*)\s+(?:version\s+)?floor\s+(?:(?:was\s+|has\s+been\s+|is\s+)?"
               rf"(?:raised|bumped|lowered|moved|set)\s+to|is|:)\s+(?:now\s+)?{_V}(?![\w.])", re.IGNORECASE),
    # the version first: "NumPy 2.0 is the minimum from the 2025 Q4 release on"
    re.compile(rf"^(?P<name>[A-Za-z][\w.+-]*)\s+{_V}\s+is\s+(?:now\s+)?the\s+(?:new\s+)?(?:minimum|floor|oldest)"
               r"(?:\s+supported)?(?:\s+version)?\b", re.IGNORECASE),
    # one version needed, with no "or newer" ("Bramble now needs Python 3.12"): the lowest it runs on
    re.compile(rf"\b(?:requires|needs)\s+(?P<name>[A-Z][\w.+-]*)\s+{_V}$"),
)
_FLOOR_WORDS = frozenset("requires require required needs need supports support supported minimum minimal lowest "
                         "oldest floor raised bumped set version versions newer later above higher up least or and now "
                         "the is to".split())
# When a floor came, not what it is: "this quarter", "from the 2025 Q4 release on", "in 2025 Q4"
_FLOOR_WHEN = re.compile(r"\s+(?:(?:this|last|next)\s+(?:quarter|month|year|week|release)|from\s+the\s+[^,;]{1,30}?"
                         r"\s+release(?:\s+on(?:wards)?)?|(?:in|from)\s+\d{4}(?:\s+q[1-4])?)(?=\s*$|\s*,)", re.IGNORECASE)


_OWNED = frozenset({"of", "for"})  # "the minimum Python version for Werkzeug": Werkzeug's floor


@lru_cache(maxsize=256)  # the later text is read against each candidate: once
def _floor(clause: str) -> tuple[str, str, str] | None:
    """(name, version, the rest of the clause) of a clause that states the lowest version of one named thing it
    supports, else None."""
    clause = _FLOOR_WHEN.sub("", _TAG.sub("", clause.strip().rstrip("."), count=1))  # "Breaking: ...", "this quarter"
    found = [m for pattern in _FLOORS for m in pattern.finditer(clause)]
    if len({(m["name"].lower(), m["v"]) for m in found}) != 1:
        return None
    m = found[0]
    mid = (m["mid"] or "") if "mid" in m.re.groupindex else ""
    after = clause[m.end():]
    if re.match(r"\s*,\s+the\s", after):  # an aside about the version: "22.12, the first release where ..."
        after = ""
    rest = f"{clause[: m.start()]} {mid} {after}"
    return m["name"].lower(), m["v"], " ".join(t for t in rest.split() if t.lower() not in _FLOOR_WORDS)


def _said_alike(a: str, b: str, neutral: frozenset[str] = frozenset(), owned: frozenset[str] = frozenset({"of"})) -> bool:
    """Do two texts say the rest alike: the same lower-case content words (by stem, ``neutral`` words aside), the
    same names, except an owner (a name that opens the text, one with "'s", one after "of": "Osprey requires
    ...", "Osprey's minimal ...", "releases of Heron") that one side leaves unsaid? Two owners must be one."""
    sides = []
    raws = [_RAW.findall(text.replace("\u2019", "'")) for text in (a, b)]
    for raw, other in zip(raws, raws[::-1]):
        owners, names, lower = set(), set(), set()
        for i, t in enumerate(raw):
            low = t.lower()
            if low in _FUNCTION or low in neutral:
                continue
            # a capital that only opens the sentence ("Stable releases ..." / "... stable releases") is no name
            if not t[0].isupper() or (i == 0 and low in {u.lower() for u in other[1:] if not u[0].isupper()}):
                lower.add(_stem(low))
            elif i == 0 or low.endswith("'s") or raw[i - 1].lower() in owned:
                owners.add(low.removesuffix("'s"))
            else:
                names.add(low)
        sides.append((owners, names, lower))
    (oa, na, la), (ob, nb, lb) = sides
    return la == lb and na == nb and (oa == ob or not oa or not ob)


def _release(version: str) -> tuple[int, ...]:
    """A version as numbers, trailing zeros dropped: "2.10.0" and "2.10" are one release."""
    parts = [int(p) for p in version.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def floor_change(earlier: str, later: str) -> str | None:
    """``"<name> <old> -> <new>"`` when both texts state the lowest supported version of one named thing, with
    another version, and say the rest alike ("Osprey's minimal supported Python version is 3.6" / "Osprey requires
    Python 3.8 or newer"; "The minimum supported Go version for building Tiller is 1.21" / "The minimum Go version
    to build Tiller is now 1.22"): the same other words (by stem), the same project named or one side naming
    none. The later text's clauses are read one by one; every clause of the earlier text must name the thing
    ("Removed support for Python 3.7; Ferry needs Python 3.8 or later"), so retiring it loses nothing else.
    Two things' floors ("requires Python 3.10" / "depends on markupsafe 3.0.3 or newer") or another scope's
    ("The docs build requires Python 3.9 or newer") both hold."""
    clauses = [c for c in earlier.split(";") if c.strip()]
    floors = [f for c in clauses if (f := _floor(c))]
    if len(floors) != 1:
        return None
    name, version, rest = floors[0]
    if not all(re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", c, re.IGNORECASE) for c in clauses):
        return None
    for clause in later.split(";"):
        if (f := _floor(clause)) and f[0] == name and _release(f[1]) != _release(version) and _said_alike(
                rest, f[2], owned=_OWNED):
            return f"{name} {version} -> {f[1]}"
    return None


# -- a cadence: how often a thing is done ------------------------------------------------------------------------
_PERIODS = frozenset("day days daily week weeks weekly biweekly bi-weekly fortnight fortnightly month months monthly "
                     "quarter quarters quarterly year years yearly annually annual weekday weekdays monday tuesday "
                     "wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays".split())
_CADENCE = _PERIODS | frozenset("every other each twice once first second third fourth last two three four five six "
                                "eight ten twelve a on the of at in".split()) | frozenset(
    "night nights morning mornings afternoon afternoons evening evenings midnight noon business working".split())
# A part of the day said or left out ("every Tuesday" / "on Tuesday mornings") makes a cadence more exact, not another.
_DAY_PARTS = frozenset("night nights morning mornings afternoon afternoons evening evenings midnight noon".split())
# Words around a cadence that say it changed or holds, not what is done: "From now on stable releases are ...",
# "The user sync happens ..." / "The user sync moved to ...".
_CADENCE_NEUTRAL = frozenset("now from henceforth onwards starting moved happens happen held occurs scheduled".split())
_HOUR = re.compile(r"^\d{1,2}(?::\d{2}(?:am|pm)?|am|pm)$")  # "07:00", "8am": a bare number is no time of day


@lru_cache(maxsize=256)  # the later text is read against each candidate: once
def _cadence(text: str) -> tuple[tuple[str, ...], str] | None:
    """(how often, in order; the rest of the text) when ``text`` says how often something is done with a
    period word ("weekly", "every two months", "on the first Monday"), else None; a negation or a second
    clause, None."""
    body = text.strip().rstrip(".")
    if ";" in body or NEGATIONS & set(_words(body)):
        return None
    tokens = re.findall(r"[\w:+'-]+", body)
    when = tuple(t.lower() for t in tokens if t.lower() in _CADENCE or _HOUR.match(t.lower()))
    if not set(when) & _PERIODS:
        return None
    glue = ("a", "on", "the", "of", "at", "in")  # kept in the rest: "releases of Heron" names an owner
    rest = " ".join(t for t in tokens if t.lower() in glue or not (t.lower() in _CADENCE or _HOUR.match(t.lower())))
    return _canon([t for t in when if t not in glue]), rest


_DAY_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def _canon(when: list[str]) -> tuple[str, ...]:
    """A cadence read one way: days singular ("Wednesdays" -> "wednesday"), no "every"/"each" before a day, and
    no "weekly" / "every week" beside a day ("weekly on Monday" and "every Monday" are one cadence)."""
    days = [t[:-1] if t.endswith("s") and t[:-1] in _DAY_NAMES else t for t in when]
    out = [t for i, t in enumerate(days) if not (t in ("every", "each") and i + 1 < len(days) and days[i + 1] in _DAY_NAMES)]
    if _DAY_NAMES & set(out):
        text = " ".join(out).replace("every week", "").replace("weekly", "")
        out = text.split()
    return tuple(out)


def cadence_change(earlier: str, later: str) -> str | None:
    """``"<old> -> <new>"`` when both texts say how often one thing is done, with another cadence, and say the
    rest alike (:func:`_said_alike`): "Releases are cut every two weeks on Monday" -> "Releases are cut monthly,
    on the first Monday"; "Stable releases of Heron are tagged quarterly" -> "From now on stable releases are
    tagged every two months". Two things' cadences ("Backups run daily" / "Reports run weekly") or another scope
    ("... monthly for LTS") both hold. A meeting's schedule is the slot reader's
    (:func:`knotwork.hygiene.slots.schedule_change`), which knows zones."""
    a, b = _cadence(earlier), _cadence(later)
    if a is None or b is None or a[0] == b[0] or not _content(a[1]):
        return None
    if not _said_alike(a[1], b[1], neutral=_CADENCE_NEUTRAL):
        return None
    if any(set(x[0]) < set(y[0]) and re.search(r"\b(?:and|or|plus)\b", t, re.IGNORECASE)
           for x, y, t in ((a, b, later), (b, a, earlier))):
        return None  # "daily" / "daily and weekly": one cadence more beside it, both hold
    if [t for t in a[0] if t not in _DAY_PARTS] == [t for t in b[0] if t not in _DAY_PARTS]:
        return None  # "every Tuesday" / "on Tuesday mornings": the same days, a part of the day more exact
    return f"{' '.join(a[0])} -> {' '.join(b[0])}"


# -- "A handed X over to B" ------------------------------------------------------------------------------------
_HANDED = re.compile(rf"^(?P<a>{_PERSON})\s+(?:has\s+)?handed\s+(?P<x>.+?)\s+over\s+to\s+(?P<b>{_PERSON})\b")


def handed_over(earlier: str, later: str) -> str | None:
    """``"A -> B"`` when the later text says "A handed X over to B" ("Hana Kowalski handed the Ferry client
    library over to Lucia Romero, who maintains it now") and the earlier one opens with A and says nothing the
    later one does not ("Hana Kowalski maintains the Ferry client library"; "Amara Obi is the product owner of
    Marlin"): X is in it, and its every content word is in the later text. An earlier text that says more of A
    ("... and the docs site") keeps what still holds, and stays."""
    m = _HANDED.match(later.strip())
    if m is None or not earlier.strip().startswith(m["a"] + " ") or m["a"] == m["b"]:
        return None
    if not _content(m["x"]) <= _content(earlier) or not _content(earlier) <= _content(later):
        return None
    return f"{m['a']} -> {m['b']}"


_LEFT = re.compile(rf"^(?P<a>{_PERSON})\s+(?:has\s+)?left\s+(?P<org>[A-Z][\w-]*)\b")


def left_org(earlier: str, later: str) -> str | None:
    """``"A left <org>"`` when a clause of the later text says so ("Felix Braun left Sable in August; Grace Liu is
    the head of engineering") and the earlier text states only A's role or work there ("Felix Braun is the head
    of engineering at Sable", "... works at Sable"), else None. Anything else the earlier text says of A ("lives
    in Berlin") may still hold."""
    for clause in later.split(";"):
        m = _LEFT.match(clause.strip())
        if m is None:
            continue
        a, org = re.escape(m["a"]), re.escape(m["org"])
        if re.fullmatch(rf"{a}\s+(?:(?:is|was)\s+(?:the|a|an)\s+[a-z][\w\s-]*?\s+(?:at|of|for)|works\s+(?:at|for))\s+{org}",
                        earlier.strip().rstrip(".")):
            return f"{m['a']} left {m['org']}"
    return None


# -- a tool after "with" ----------------------------------------------------------------------------------------
_WITH_TOOL = r"(?P<lead>.+?\bwith)\s+(?P<tool>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
_WITH_TOOL_OLD = re.compile(_WITH_TOOL)
_WITH_TOOL_NEW = re.compile(_WITH_TOOL + r"(?:\s+(?:in|on|via|inside)\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2})?")


def tool_after_with(earlier: str, later: str) -> str | None:
    """``"a -> b"`` when both texts are one frame that ends "with <tool>", one or two lower-case words a side
    that share none ("Link checking runs weekly with sphinx linkcheck" -> "... with lychee in GitHub Actions"):
    the later text may add where the tool runs. Else None (the frame rule reads one word a side)."""
    m = _WITH_TOOL_OLD.fullmatch(earlier.strip().rstrip("."))
    n = _WITH_TOOL_NEW.fullmatch(later.strip().rstrip("."))
    if m is None or n is None or _words(m["lead"]) != _words(n["lead"]) or len(_words(m["lead"])) < MIN_LEAD:
        return None
    a, b = _words(m["tool"]), _words(n["tool"])
    if set(a) & set(b) or (set(a) | set(b)) & (_FUNCTION | NEGATIONS):
        return None
    return f"{' '.join(a)} -> {' '.join(b)}"


def reads_by_date(text: str) -> bool:
    """Whether a reader here reads ``text`` as the later of two (the service then reads its stored date)."""
    body = changelog_body(text)
    tooled = _WITH_TOOL_NEW.fullmatch(body) and not _WITH_TOOL_OLD.fullmatch(body)  # "... with lychee in GitHub Actions"
    return bool(tooled or names_superseded(text) or from_to(text) or upgrades(text) or moved_to_version(text) or _STOP.match(body)
                or _HANDED.match(text.strip()) or _LEFT.match(text.strip()) or re.search(r"\binstead\s+of\b", body, re.IGNORECASE))
