"""Consolidation on add: is a new memory new, an update of one already stored, or the same again?

Pure functions over texts and cosine similarities; the service finds the
candidates (same workspace and partition, current) and acts on the decision.

- ``NOOP``: the new text says nothing the old one does not: its words are the
  old one's in the same order with some left out (case and punctuation aside)
  or with only a filler lead ("as I said, ..."), it keeps at least
  ``NOOP_OVERLAP`` of the old one's words, and it drops no negation.
- ``UPDATE``: the new text says everything the old one did, in order, and more
  (no negation added): the old memory takes the new text, its earlier version
  kept in the history.
- ``SUPERSEDE``: the same statement with one value changed ("uses Python
  3.11" → "uses Python 3.12"): one short span differs, after a shared lead of
  at least two words, and either the span is a number or version on both
  sides right after a word of state or quantity ("uses", "was", "costs",
  "around", ... among the three words before it), or one of those three is a
  single-valued word ("is", "prefers", "lives", ...). The new memory is stored and supersedes the old
  one, which retires at the new ``valid_at``.
- ``SUPERSEDE`` also when the same frame holds another value
  (:func:`frame_change`): the texts, or their first clauses, are the same but
  for one short span, and that span is a value on both sides (a number,
  version or date; a name written with a capital; a time word such as
  "Tuesday" or "weekday"; a word of state such as "deprecated"; any word
  after a noun of kind: "status: stable"), in the value's place (not naming
  which thing the clause is about: "Celery 5.4 supports Django 2.2" and
  "Celery 5.5 supports …" both hold). What follows the first clause may
  differ ("… is MySQL 5.7, on one RDS instance" → "… is PostgreSQL 16 since
  the March migration"). A role with "the" has one holder, so a new name
  before "is the tech lead of T", or before a role's verb and "the" group it
  holds ("chairs the Releases working group"), is a new value too
  (:func:`_holder_change`).
  Which of the two memories is the newer is the service's to decide, by
  ``valid_at``: an older value arriving late is stored retired.
- ``ADD``: anything else.

A wrong NOOP or SUPERSEDE loses a true memory, so every rule also needs a high
cosine and the thresholds were chosen on labelled pairs (bench/consolidation.py,
results in bench/RESULTS.md) for precision first.

The two SUPERSEDE rules only propose: the pair scorer (:mod:`~knotwork.hygiene.pair_scorer`, a logistic
model fitted on the dev halves of the labelled pairs) drops a proposal it finds more likely wrong than right
(two dependencies' floors, "needs typing-inspection 0.4.1" / "needs python-multipart 0.0.9"); a role's new
holder and a standing given or taken away are left to their rule (:func:`supersedes`).

When neither rule finds one changed span, a slot read whole from both texts (:mod:`~knotwork.hygiene.slots`: a
role's holders, a person's employer, a meeting's schedule, one path, a default) may still show a value that
cannot hold beside the other ("The chairs of G are A, B and C" -> "... are D and C").
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from knotwork.hygiene import pair_scorer
from knotwork.hygiene.slots import holder_left, slot_change
from knotwork.hygiene.spans import NEGATIONS, frame_tokens, short_swap

# Thresholds on the embedder's cosine (all-MiniLM-L6-v2), chosen on the dev half of
# bench/data/consolidation_pairs.jsonl for precision first (bench/consolidation.py).
NOOP_COSINE = 0.94
UPDATE_COSINE = 0.70
SUPERSEDE_COSINE = 0.80
# frame_change, chosen on the dev half of bench/data/supersession_pairs.jsonl (bench/supersession.py --sweep):
FRAME_COSINE = 0.75  # the whole texts differ in the one value (dev: the same figures from 0.50 to 0.75)
CLAUSE_COSINE = 0.80  # only the first clauses do ("..., on one RDS instance" / "... since March")
# ... and when the value follows a copula ("X's primary database is MySQL 5.7, ..."; "Alice Chen is the tech lead
# of ..."), where the differing tails or names weigh on the cosine more than the one frame does:
COPULA_COSINE = 0.55
# A slot read whole (knotwork.hygiene.slots: a role's holders, a person's employer, a meeting's schedule) needs no
# more than the candidate floor: the names or times that differ weigh on the cosine more than the frame does.
SLOT_COSINE = COPULA_COSINE
_COPULA = "copula: "
_COPULAS = frozenset({"is", "are", "was", "were", "equals", "now", "remains"})
NOOP_OVERLAP = 0.5  # share of the old memory's words the new one repeats
CANDIDATE_COSINE = min(NOOP_COSINE, UPDATE_COSINE, SUPERSEDE_COSINE, COPULA_COSINE)
MIN_LEAD = 2  # shared words before the changed value
LEAD_WINDOW = 3  # how many of them may hold the word of state ("costs $30", "is now 3.12")

_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_RAW_WORD = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*")  # the same tokens, case kept
SINGLE_VALUED = frozenset({"is", "are", "prefers", "prefer", "favorite", "favourite", "lives", "live", "located",
                           "moved", "switched", "changed", "default", "set", "now", "called", "named", "equals"})
STATE_WORDS = SINGLE_VALUED | frozenset({"uses", "use", "using", "runs", "run", "version", "requires", "needs",
                                         "pinned", "targets", "costs", "cost", "takes", "took", "has", "have", "had",
                                         "was", "were", "paid", "around", "about", "approximately", "roughly",
                                         "nearly", "over", "under", "averaging", "for", "at", "limit", "timeout"})
# Words a restatement may lead with ("As I said, ...") without saying anything new.
FILLERS = frozenset({"as", "i", "said", "just", "to", "repeat", "reminder", "like", "mentioned", "again", "note",
                     "noted", "fyi", "btw", "by", "the", "way", "recall", "once", "more", "also", "so", "well",
                     "ok", "okay", "yes", "yeah", "said", "before", "earlier", "previously"})


@dataclass(frozen=True, slots=True)
class Decision:
    kind: str  # ADD, UPDATE, SUPERSEDE or NOOP
    target: str | None = None  # the existing memory's id
    reason: str | None = None
    cosine: float | None = None


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of two texts' word sets (0-1)."""
    sa, sb = set(words(a)), set(words(b))
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def _value_like(tokens: list[str]) -> bool:
    return any(any(ch.isdigit() for ch in t) for t in tokens)


def value_change(old: list[str], new: list[str]) -> str | None:
    """The changed value when ``new`` is ``old`` with one short span replaced after a stateful lead, else None."""
    found = short_swap(old, new)
    if found is None or found[0] < MIN_LEAD:
        return None
    i1, i2, j1, j2 = found
    gone, came = old[i1:i2], new[j1:j2]
    if NEGATIONS & (set(gone) | set(came)):
        return None  # "is" -> "is not" is a contradiction to keep, not a value to overwrite
    if _NO_VALUE & (set(gone) | set(came)) or _respelled(gone, came) or _passive_pair(gone, came):
        return None  # "him" -> "them", "PEP8" -> "PEP 8", "is published" / "is executed": no value changed
    lead = set(old[max(0, i1 - LEAD_WINDOW) : i1])  # the words just before the value say what it is
    if (_value_like(gone) and _value_like(came) and lead & STATE_WORDS) or lead & SINGLE_VALUED:
        return f"{' '.join(gone)} -> {' '.join(came)}"
    return None


def _edits(old: list[str], new: list[str]) -> tuple[list[str], list[str], bool]:
    """(words only ``old`` has, words only ``new`` has, whether any span was replaced) in order."""
    gone: list[str] = []
    came: list[str] = []
    replaced = False
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        gone += old[i1:i2]
        came += new[j1:j2]
        replaced |= op == "replace"
    return gone, came, replaced


def decide(new_text: str, candidates: list[tuple[str, str, float]]) -> Decision:
    """The decision for ``new_text`` against ``candidates`` (id, text, cosine), nearest first."""
    new = words(new_text)
    if not new:
        return Decision("ADD")
    for target, old_text, cosine in candidates:
        old = words(old_text)
        if not old:
            continue
        gone, came, replaced = _edits(old, new)
        kept = len(set(new) & set(old)) / len(set(old))
        filler_only = not came or (not replaced and set(came) <= FILLERS)
        if (cosine >= NOOP_COSINE and filler_only and kept >= NOOP_OVERLAP and not NEGATIONS & set(gone)
                and not holder_left(old_text, new_text)):  # "championed by A and B" -> "by A": B left
            return Decision("NOOP", target, "says nothing the stored memory does not", cosine)
        if cosine >= UPDATE_COSINE and not gone and came and not set(came) <= FILLERS and not NEGATIONS & set(came):
            return Decision("UPDATE", target, "adds to the stored memory", cosine)
        if change := supersedes(old_text, new_text, cosine, old, new):
            return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
    return Decision("ADD")


def proposed(old_text: str, new_text: str, cosine: float, old: list[str] | None = None,
             new: list[str] | None = None) -> tuple[str | None, str | None]:
    """(which rule, the changed value) when a rule reads ``new_text`` as ``old_text`` with one value changed,
    else (None, None)."""
    old = words(old_text) if old is None else old
    new = words(new_text) if new is None else new
    if cosine >= SUPERSEDE_COSINE and (change := value_change(old, new)):
        return "value", change
    if change := frame_change(old_text, new_text, cosine):
        return "frame", change
    return None, None


def supersedes(old_text: str, new_text: str, cosine: float, old: list[str] | None = None,
               new: list[str] | None = None) -> str | None:
    """The changed value when the newer text retires the older one, else None.

    The rules above and a looser reading (:func:`knotwork.hygiene.pair_scorer.swap`: the texts, or their
    first clauses, differ in one short span) propose; the pair scorer keeps a proposal only when its
    probability reaches the shipped threshold: 0.5 for a rule's proposal (dropped when more likely wrong
    than right), a higher one chosen on dev pairs for precision first for the looser reading's. Without the
    weights file the rules decide alone."""
    rule, change = proposed(old_text, new_text, cosine, old, new)
    found = _scored(old_text, new_text, cosine, rule, change)
    if found is None and cosine >= SLOT_COSINE:
        return slot_change(old_text, new_text)  # a slot read whole: holders, employer, schedule
    return found


def _scored(old_text: str, new_text: str, cosine: float, rule: str | None, change: str | None) -> str | None:
    """The rules' proposal as the pair scorer keeps or drops it (:func:`supersedes`)."""
    model = pair_scorer.load()
    if model is None or (rule is None and model.threshold(None) == float("inf")):
        return change  # no weights: the rules alone; no rule and the looser reading off: nothing to score
    found = pair_scorer.swap(old_text, new_text)
    if found is None:
        return None
    if rule == "frame" and (found.i1 == 0 or _standing_swap(found)):
        # A role's new holder ("Alice Chen is the tech lead of T" -> "Marcus Lee is ..."): the holder rule's narrow
        # frame decides alone; on the dev half of the memory-wording pairs every pair it proposed was a change.
        # So does a standing given or taken away ("is a chair of" -> "is now an emeritus lead of"): the scorer
        # reads it as a word swapped for a word, like "chair" -> "tech lead" (two roles, both held), and a refit
        # that learned the one learned the other too (bench/RESULTS.md, issue 35 round 5).
        return change
    if model.probability(pair_scorer.features(old_text, new_text, cosine, found, rule)) < model.threshold(rule):
        return None
    return change or f"{' '.join(found.gone).lower()} -> {' '.join(found.came).lower()}"


def _standing_swap(found: pair_scorer.Swap) -> bool:
    """Is the one span where two texts differ a standing in a body (:func:`_standing_change`)?"""
    low = [t.lower() for t in found.old]
    return found.i1 > 0 and _standing_change(low, found.i1, found.i2, [t.lower() for t in found.gone],
                                             [t.lower() for t in found.came])


def _respelled(gone: list[str], came: list[str]) -> bool:
    """One spelling of one thing ("PEP8" -> "PEP 8", "Jinja2" -> "Jinja"), or one name inside the other
    ("DirtyArbiter" / "Arbiter": a kind of it, not a value swapped): the joined letters and digits of one side
    begin or end the other's."""
    a, b = "".join(gone).replace(".", ""), "".join(came).replace(".", "")
    return a.startswith(b) or b.startswith(a) or a.endswith(b) or b.endswith(a)


def _passive_pair(gone: list[str], came: list[str]) -> bool:
    """Two events, not two values: "a task is published" / "a task is executed" (one word each side, both
    past participles, neither a word of state)."""
    return (len(gone) == len(came) == 1 and gone[0].endswith("ed") and came[0].endswith("ed")
            and not {gone[0], came[0]} & STATUS_VALUES)


# -- the same frame, another value ---------------------------------------------------------------------------
# Words that may follow a value without making it a modifier of the next word ("Python 3.8+ with ...",
# "MySQL 5.7 on RDS"); any other word after the changed span means it names which thing the clause is about
# ("the Couchbase server", "Celery 5.4.x supports ...") and two such clauses can both hold.
_AFTER_VALUE = frozenset(
    "and or but with for in on to by as at from than since until via per so because while when if after "
    "before every each now".split()
)
# Nouns after which a number names which one rather than a value ("note number 6", "PR 123", "marker mk6").
_WHICH_ONE = frozenset(
    "number no num id pr mr issue ticket bug marker note item step position page chapter section line row column "
    "figure table case test example option rule task job build commit part episode lesson round phase stage "
    "session volume slide".split()
)
# Time words are values ("deploys happen every Tuesday" -> "every weekday").
TIME_VALUES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays weekday weekdays weekend weekends day night morning evening afternoon daily nightly "
    "hourly weekly biweekly fortnightly monthly quarterly yearly annually january february march april may "
    "june july august september october november december early mid late q1 q2 q3 q4".split()
)
# Words of state are values ("the API is deprecated" -> "... is archived"); see also knowledge's STATUSES.
STATUS_VALUES = frozenset(
    "done blocked deprecated complete completed finished shipped merged broken fixed released live paused "
    "archived cancelled canceled stale flaky alpha beta stable experimental unmaintained maintained supported "
    "unsupported enabled disabled on off open closed active inactive".split()
)
# Words that never carry a value of their own (a rewording, not a change: "him" -> "them", "we" -> "you").
_NO_VALUE = frozenset(
    "i me my we us our you your he him his she her they them their it its this that these those one the a an "
    "someone somebody people".split()
)
# A person's standing in a body: one at a time ("is an active member of" -> "is now an emeritus member of",
# "is a chair of" -> "is an emeritus lead of", "a voting member" -> "a non-voting alternate").
STANDING_VALUES = frozenset(
    "active emeritus retired former current inactive past honorary voting non alternate shadow".split()
)
# Frames whose value is one place or employer at a time ("works at", "is based in"): like a copula, the name
# that ends them weighs on the cosine more than the frame does, so they take ``COPULA_COSINE``.
PLACE_FRAMES = frozenset({("works", "at"), ("works", "for"), ("work", "at"), ("work", "for"), ("employed", "by"),
                          ("based", "in"), ("lives", "in"), ("live", "in"), ("living", "in"), ("located", "in"),
                          ("relocated", "to")})
# A lower-case tool after "with", "using" or "via" ("runs its tests with jest" -> "with vitest") is a value too.
TOOL_LEADS = frozenset({"with", "using", "via"})
_TOOL = re.compile(r"[a-z][a-z0-9-]*[a-z0-9]")
# Nouns that name a kind of value: the word in their place is a value of that kind ("status: stable").
KIND_NOUNS = frozenset("status state phase stage tier plan mode level".split())
# Where a first clause ends: punctuation, or a word that opens another clause ("... is PostgreSQL 16 since the
# March migration").
_CLAUSE_END = re.compile(
    r"[,;()\u2014]|\s[-\u2013]\s|\.(?:\s|$)"
    r"|\s(?=(?:since|after|because|following|until|starting|effective|when|while|which|but)\b)", re.IGNORECASE
)


def _value_span(raw: list[str], low: list[str]) -> bool:
    """Is this span (case kept / lower case) a value: digits in every word, a capitalised name, a time word, or
    a word of state? Pronouns and articles never are."""
    if not raw or set(low) & _NO_VALUE or any(_opaque(t) for t in raw):
        return False
    if all(any(ch.isdigit() for ch in t) for t in raw):
        return True
    if any(re.search(r"[A-Za-z]\.[A-Za-z]", t) for t in raw):
        return False  # a dotted name is code ("Request.max_form_parts"), one of many
    if all(t in TIME_VALUES or any(ch.isdigit() for ch in t) for t in low):
        return True  # "late 2020", "every Tuesday"
    if len(low) == 1 and low[0] in STATUS_VALUES:
        return True  # "deprecated"
    return raw[0][0].isupper() and all(t[0].isupper() or t in _NAME_PARTICLES or any(ch.isdigit() for ch in t) for t in raw)


def _opaque(token: str) -> bool:
    """An identifier, not a value: a hash, a uuid, a long token of letters and digits mixed
    ("35e3ea103a994619a9b6", "01JQ5ZZZZZA00000000000000K"). It says which thing, as "PR 123" does."""
    return len(token) >= 12 and "." not in token and any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


_NAME_PARTICLES = frozenset("van von der den de del della da di du la le bin al".split())  # "Hugo van Kemenade"


def _first_clause(text: str) -> str:
    match = _CLAUSE_END.search(text)
    return text[: match.start()] if match else text


def _clauses(text: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """(tokens case kept, lower-case words) of the whole text and of its first clause, read as one frame
    (:func:`frame_tokens`)."""
    text = text.replace("\u2019", "'")
    whole, clause = frame_tokens(_RAW_WORD.findall(text)), frame_tokens(_RAW_WORD.findall(_first_clause(text)))
    return whole, [t.lower() for t in whole], clause, [t.lower() for t in clause]



def frame_change(old_text: str, new_text: str, cosine: float = 1.0) -> str | None:
    """The changed value when ``old_text`` and ``new_text`` are one frame with one value swapped: the whole
    texts, or their first clauses ("Harbor's primary database is MySQL 5.7, ..." -> "... is PostgreSQL 16
    since ..."), differ in one short span; else None.

    The span must be at least ``MIN_LEAD`` words in, a value on both sides (:func:`_value_span`), and in the
    value's place: it ends the text or clause, or a function word follows it ("Python 3.8+ with ..."), or it
    is an amount before its unit ("over 6,000,000 downloads"; not "note number 6 about ..."). A span
    followed by another word names which thing the clause is about ("the Couchbase server", "Celery 5.4.x
    supports ...", "the release manager of Python 2.7 is ..."), and two clauses about two things both hold.
    No negation may come or go. The whole texts' match needs ``cosine`` >= ``FRAME_COSINE``, a match of the
    first clauses only (their tails differ) ``CLAUSE_COSINE``; a value right after a copula ("... is MySQL
    5.7") or a role's new holder (:func:`_holder_change`), where the tails or the names weigh on the cosine
    more than the frame does, ``COPULA_COSINE``."""
    old_all, old_words, old_first, old_first_words = _clauses(old_text)
    new_all, new_words, new_first, new_first_words = _clauses(new_text)
    if NEGATIONS & (set(old_words) | set(new_words)):
        return None
    for old_raw, old, new_raw, new, floor in ((old_all, old_words, new_all, new_words, FRAME_COSINE),
                                              (old_first, old_first_words, new_first, new_first_words, CLAUSE_COSINE)):
        if len(old) <= MIN_LEAD or old == new or cosine < min(floor, COPULA_COSINE):
            continue
        change = _swapped_value(old_raw, old, new_raw, new)
        if change and (cosine >= floor or change.startswith(_COPULA)):
            return change.removeprefix(_COPULA)
    return None


def _swapped_value(old_raw: list[str], old: list[str], new_raw: list[str], new: list[str]) -> str | None:
    """``frame_change`` over one pair of token lists (case kept, lower case)."""
    if len(old_raw) != len(old) or len(new_raw) != len(new):
        return None  # a letter whose lower case tokenizes otherwise ("İ"): the two lists do not align
    found = short_swap(old, new)
    if found is None:
        return None
    i1, i2, j1, j2 = found
    gone, came = old[i1:i2], new[j1:j2]
    if _respelled(gone, came):
        return None
    if i1 == 0:
        return _holder_change(old_raw, old, new_raw, i2, j2)
    if i1 < MIN_LEAD:
        return None
    after = old[i2] if i2 < len(old) else None
    # "Status of X: stable" -> "bugfix", "X is in bugfix status" -> "security status": the noun names the kind
    # of value, so any single word in its place is one.
    if _standing_change(old, i1, i2, gone, came):
        return f"{_COPULA}{' '.join(gone)} -> {' '.join(came)}"
    of_a_kind = (after in KIND_NOUNS or bool(KIND_NOUNS & set(old[:i1]))) and (
        len(gone) <= 3 and len(came) <= 3 and not (set(gone) | set(came)) & _NO_VALUE)
    if _tool_change(old, i1, old_raw[i1:i2], new_raw[j1:j2], after):
        return f"{' '.join(gone)} -> {' '.join(came)}"
    if not of_a_kind and not (_value_span(old_raw[i1:i2], gone) and _value_span(new_raw[j1:j2], came)):
        return None
    numeric = all(any(ch.isdigit() for ch in t) for t in gone + came)
    before = old[i1 - 1]
    if numeric and before in _WHICH_ONE:
        return None  # "note number 6", "marker mk6", "PR 123": which one, not how much
    if after is not None and after not in _AFTER_VALUE and after not in KIND_NOUNS:
        quantity = numeric and not old_raw[i1 - 1][0].isupper()  # "over 7,000,000 downloads", not "Celery 5.4 supports"
        dated = set(gone + came) <= TIME_VALUES and any(ch.isdigit() for ch in after)  # "mid 2020" -> "September 2020"
        if not (quantity or dated):
            return None
    single = old[i1 - 1] in _COPULAS or tuple(old[i1 - 2 : i1]) in PLACE_FRAMES
    return f"{_COPULA if single else ''}{' '.join(gone)} -> {' '.join(came)}"


def _standing_change(old: list[str], i1: int, i2: int, gone: list[str], came: list[str]) -> bool:
    """Another standing of one holder in one body: the span comes right after a copula (and its article), a
    word of standing (:data:`STANDING_VALUES`) is on one side and not the same on the other, and the body
    follows within two words ("is a active member of X" -> "is a emeritus member of X", as
    :func:`frame_tokens` reads them). "X is a chair of T" / "X is a tech lead of T" name no standing: both
    hold."""
    if set(gone) & STANDING_VALUES == set(came) & STANDING_VALUES:
        return False
    lead = old[i1 - 1] in _COPULAS or (old[i1 - 1] in {"a", "the"} and i1 >= 2 and old[i1 - 2] in _COPULAS)
    return lead and (i2 == len(old) or bool({"of", "in", "on", "at", "for"} & set(old[i2 : i2 + 2])))


def _tool_change(old: list[str], i1: int, gone_raw: list[str], came_raw: list[str], after: str | None) -> bool:
    """A lower-case tool swapped after "with", "using" or "via" ("runs a single test file with jest" ->
    "with vitest"), one word a side, at the end of the frame or before a function word."""
    return (old[i1 - 1] in TOOL_LEADS and len(gone_raw) == len(came_raw) == 1
            and all(_TOOL.fullmatch(t) and t not in _NO_VALUE for t in gone_raw + came_raw)
            and (after is None or after in _AFTER_VALUE))


# "X is the tech lead of T": a role with "the" has one holder at a time; "one of the", "a", "an" have many.
_HOLDER_VERBS = (("is", "the"), ("is", "now", "the"), ("became", "the"), ("remains", "the"), ("was", "named", "the"),
                 ("has", "become", "the"))
# ... and a verb of the role before "the" group it holds ("Shelley Vohr chairs the Releases working group" ->
# "Keeley Hammond chairs ..."): one chair, lead or head at a time. "Alice leads platform" / "Marcus leads data"
# differ in the group too, so they never reach this.
_HOLDER_ROLE_VERBS = frozenset({"chairs", "leads", "heads", "manages", "champions"})


def _holder_change(old_raw: list[str], old: list[str], new_raw: list[str], i2: int, j2: int) -> str | None:
    """Another holder of one role: the two texts differ only in the name they start with, both names written
    with capitals, and what follows is "is the <role> of/for <thing>" ("Alice Chen is the tech lead of
    Payments" -> "Marcus Lee is the tech lead of Payments"). "Alice leads platform" / "Marcus leads data" and
    "Alice is a maintainer of X" / "Bob is a maintainer of X" both hold and differ elsewhere or lack the "the"."""
    rest = old[i2:]
    names = old_raw[:i2] + new_raw[:j2]
    if not all(t[0].isupper() and t.lower() not in _NO_VALUE for t in names):
        return None
    held = any(tuple(rest[:len(verbs)]) == verbs and len(rest) > len(verbs) + 2
               and {"of", "for", "on", "at"} & set(rest[len(verbs) + 1:]) for verbs in _HOLDER_VERBS)
    if held or (len(rest) > 2 and rest[0] in _HOLDER_ROLE_VERBS and rest[1] == "the"):
        return f"{_COPULA}{' '.join(old_raw[:i2])} -> {' '.join(new_raw[:j2])}"
    return None
