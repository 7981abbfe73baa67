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
- ``SUPERSEDE`` also when the statements the texts make are such a frame
  (:func:`_core_change`): an opening phrase of time and a closing purpose
  left aside, a change said with its verb read as the statement it makes
  ("Bumped the default timeout to 20 minutes"), a change said from A to B read
  against the older text (:func:`_swap_stated`), as is a new version said of
  one name ("MLflow was upgraded to 2.12" against "... uses MLflow 2.9"), a
  closing phrase of when or why on the later text set aside (:data:`_TRAIL`),
  a change-log line's dropped article put back (:func:`_headline`), change-log lines with no subject or
  two upgrades in one ("update Vite to v4 and Rollup to v3") and a version's tag ("Node.js 18 LTS") read
  with :mod:`~knotwork.hygiene.changes_read`, the later text's clauses
  read one by one and the earlier text whole; and once a word said twice and
  dropped once is left out (:func:`_without_repeated_word`).
- ``SUPERSEDE`` also for a change written as project text writes it (:mod:`~knotwork.hygiene.changes_read`,
  :func:`_project_text`, after the rules above): two values said together, "instead of", a negation lifted,
  "Stop <doing> X", a version floor or a cadence in other words, a hand-over, a departure, another tool
  after "with". A decision record that names the record it supersedes by id ("ADR-0067 supersedes
  ADR-0023: ...") is read first, before every other rule, in either arrival order.
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
cannot hold beside the other ("The chairs of G are A, B and C" -> "... are D and C"). A meeting's schedule is
read whole before every word rule: "every other Thursday" -> "every Thursday" is a change, not a word left out, and
"09:00 China Standard Time" / "09:00 UTC+8" no value swapped.

Last, after every other rule (:func:`_keyed`; before an ``UPDATE``, right after :func:`_core_change`): one key
read in any sentence shape (:mod:`~knotwork.hygiene.keys`: "Kubernetes 1.15's next patch release will be
1.15.3." -> "The upcoming patch release for the Kubernetes 1.15 branch is 1.15.4.") with two values of one
type. What the project-text readers and the key reader decide themselves (whole statements, not one span)
does not pass the pair scorer; the steps they hand to :func:`supersedes` (two values, a tag set aside) do.
After it, one numbered thing given another stage of its life in any shape (:mod:`~knotwork.hygiene.lifecycle`:
"Node.js v17: Current" -> "The release status of Node 17 is Maintenance"), with the same floor.

The readers keyed on a name (:func:`_named`: a seat's holder, a person's standing, term, employer or address,
:mod:`~knotwork.hygiene.seats`; one thing's version floor) run after the key reader and also on the candidates
below every rule's floor, down to ``READER_COSINE``: a name weighs little on the cosine. Project pages that
change a value without repeating the older sentence (:mod:`~knotwork.hygiene.project_read`) end
:func:`_project_text`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

from knotwork.hygiene import changes_read, pair_scorer, project_read, seats, wording
from knotwork.hygiene.keys import key_change
from knotwork.hygiene.lifecycle import stage_change
from knotwork.hygiene.slots import holder_left, same_schedule, schedule_change, slot_change
from knotwork.knowledge.attributes import ROLES
from knotwork.hygiene.spans import (AFTER_VALUE, CLAUSE_END, KIND_NOUNS, MIN_LEAD, NEGATIONS, PERSON as _PERSON,
                                    RAW_WORD as _RAW_WORD, STATUS_WORDS, SWAP_MAX as _SWAP_MAX, TIME_WORDS, NUMBERED,
                                    WORD as _WORD, frame_tokens, heading_crossed, names_kept, respelled, short_swap,
                                    which_year, words)

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
# Verbs that say a value holds, never a value themselves ("The default path is X" / "... stays X"): a span of
# them swapped for another (:func:`_being_swap`) changes no value in any rule, whatever the words before it.
_BEING = _COPULAS | frozenset({"stays", "stay", "stayed", "remain", "remained", "keeps", "keep", "kept", "still"})
NOOP_OVERLAP = 0.5  # share of the old memory's words the new one repeats
CANDIDATE_COSINE = min(NOOP_COSINE, UPDATE_COSINE, SUPERSEDE_COSINE, COPULA_COSINE)
# Below every rule's floor, a candidate is read by the readers keyed on a person's or a seat's name alone
# (:mod:`~knotwork.hygiene.seats`): "Tomasz Lewicki's employer: Stacklok." / "... works at VMware." are at 0.54.
READER_COSINE = 0.2
LEAD_WINDOW = 3  # how many of them may hold the word of state ("costs $30", "is now 3.12")

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


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of two texts' word sets (0-1)."""
    sa, sb = set(words(a)), set(words(b))
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def _being_swap(gone: list[str], came: list[str]) -> bool:
    """Whether a verb of being or staying gives way to another ("is" -> "stays", "is" -> "remains"): the
    value after it is the same one (:data:`_BEING`)."""
    return bool(gone) and bool(came) and set(gone) <= _BEING and set(came) <= _BEING


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
    if (_NO_VALUE & (set(gone) | set(came)) or respelled(gone, came) or _passive_pair(gone, came)
            or _being_swap(gone, came)):
        return None  # "him" -> "them", "PEP8" -> "PEP 8", "is published" / "is executed", "is" -> "stays": no value
    if _value_like(gone) and (old[i1 - 1] in NUMBERED  # "is delegate for PEP 792" -> "PEP 763": which one
                              or which_year(old[i1 - 1], gone, came, old[i2] if i2 < len(old) else None)):
        return None
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


def decide(new_text: str, candidates: list[tuple[str, str, float]], later: Collection[str] = ()) -> Decision:
    """The decision for ``new_text`` against ``candidates`` (id, text, cosine), nearest first; ``later`` names
    the candidates stated after ``new_text`` (a later ``valid_at``: ``new_text`` is an older value arriving
    late), whose clauses :func:`_core_change` reads one by one instead of ``new_text``'s."""
    new = words(new_text)
    if not new:
        return Decision("ADD")
    for target, old_text, cosine in candidates:
        old = words(old_text)
        if not old:
            continue
        if cosine < CANDIDATE_COSINE:  # below every rule's floor: only the readers keyed on a name (_named)
            if (change := _named(old_text, new_text, target in later)) and not wording.beside(old_text, new_text):
                return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
            continue
        if wording.restated(old_text, new_text):  # one value in other words ("every Friday" / "on Fridays"): no change
            if cosine >= NOOP_COSINE:
                return Decision("NOOP", target, "says nothing the stored memory does not", cosine)
            continue
        beside = wording.beside(old_text, new_text)  # "The lab also deploys on Mondays": both may hold
        # A decision record that names the one it supersedes retires that record's memory, in either order.
        if cosine >= SLOT_COSINE and (change := (changes_read.named_superseded(new_text, old_text) if target in later
                                                 else changes_read.named_superseded(old_text, new_text))):
            return Decision("SUPERSEDE", target, change, cosine)
        gone, came, replaced = _edits(old, new)
        kept = len(set(new) & set(old)) / len(set(old))
        # One meeting's schedule read whole decides before the word rules, which read "every other Thursday" ->
        # "every Thursday" as a word left out and "09:00 China Standard Time" / "09:00 UTC+8" as a value swapped.
        if cosine >= SLOT_COSINE and not beside and (change := wording.real_change(schedule_change(old_text, new_text))):
            return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
        if same_schedule(old_text, new_text):
            if cosine >= NOOP_COSINE:
                return Decision("NOOP", target, "says nothing the stored memory does not", cosine)
            continue
        filler_only = not came or (not replaced and set(came) <= FILLERS)
        if (cosine >= NOOP_COSINE and filler_only and kept >= NOOP_OVERLAP and not NEGATIONS & set(gone)
                and not holder_left(old_text, new_text)  # "championed by A and B" -> "by A": B left
                and not wording.cadence_swap(old_text, new_text)):  # "twice weekly" -> "weekly": a word left, a change
            return Decision("NOOP", target, "says nothing the stored memory does not", cosine)
        if cosine >= UPDATE_COSINE and not gone and came and not set(came) <= FILLERS and not NEGATIONS & set(came):
            # the old words inside the new text may be a later clause's new value around them ("Alice Chen is the
            # tech lead of H" -> "Alice Chen left in April; Bob Martinez is the tech lead of H now"): a change
            if not beside and (change := (_core_change(old_text, new_text, cosine, target in later)
                                          or _keyed(old_text, new_text, cosine, target in later)
                                          or wording.cadence_swap(old_text, new_text))):  # "weekly" -> "bi-weekly"
                return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
            return Decision("UPDATE", target, "adds to the stored memory", cosine)
        change = wording.real_change(supersedes(old_text, new_text, cosine, old, new)
                                     or _core_change(old_text, new_text, cosine, target in later)
                                     or _without_repeated_word(old_text, new_text, cosine, old, new)
                                     or _project_text(old_text, new_text, cosine, target in later)
                                     or _keyed(old_text, new_text, cosine, target in later)
                                     or _named(old_text, new_text, target in later)
                                     or (stage_change(old_text, new_text) if cosine >= SLOT_COSINE else None))
        if change and not beside:
            return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
    return Decision("ADD")


# An opening phrase of time or occasion before the statement ("After the storage review, raw event data is kept
# for 30 days ..."; "As of June, ..."), and a purpose after it ("... runs daily at 04:30 UTC so that the exports
# have finished"): neither says which thing the statement is about. Openers of place or scope ("In Harbor, ...",
# "For EU merchants, ...") do, and are kept.
_LEAD = re.compile(r"^(?:after|since|following|as of|starting|effective|from)\b[^,;:.()]{1,60},\s+(?=\S)", re.IGNORECASE)
_PURPOSE = re.compile(r",?\s+so\s+that\b.*$", re.IGNORECASE | re.DOTALL)
# ... and, on the later text, a closing phrase of when or why the value came ("... is powered by OpenSearch 2.11
# after the licence review", "... from June on", "... starting January", "... once CI is green", "... since the
# spring upgrade"): it says when the statement began to hold, not what it states. Only an event after "after",
# "since" or "following" (a review, a migration, ...): "after the standup" or "after the nightly export" may be
# the value itself ("runs after the nightly export"). A release or window the value came with ("... 3.6 from the
# 2.4.0 firmware release on", "... to 2.12 in the platform release of April 1", "... during the June maintenance
# window") says when too.
_MONTHS = (r"january|february|march|april|may|june|july|august|september|october|november|december|"
           r"spring|summer|autumn|fall|winter|q[1-4]|today|now|next\s+\w+|this\s+\w+|\d{4}")
_EVENTS = ("review|migration|upgrade|move|switch|audit|incident|outage|rewrite|reorg|reorganisation|"
           "reorganization|change|decision|cutover|rollout|renegotiation|negotiation|evaluation|vote|spike|launch|"
           "release")
_TRAIL = re.compile(
    rf",?\s+(?:(?:after|since|following)\s+(?:the|our|a|an|last\s+\w+'s)\s+(?:[\w'-]+\s+){{0,3}}?(?:{_EVENTS})s?"
    rf"|since\s+(?:{_MONTHS})|(?:from|starting|effective)\s+(?:{_MONTHS})(?:\s+\d{{4}})?(?:\s+on(?:wards)?)?"
    rf"|once\s+(?!(?:a|an|per|every|each|more|again|or|and|daily|weekly|monthly)\b)[^,;]{{1,40}}|last\s+(?:week|month|quarter|year)"
    rf"|(?:from|with|in|during)\s+the\s+(?:[\w.'-]+\s+){{0,3}}?(?:release|rollout|maintenance\s+window)"
    rf"(?:\s+of\s+[^,;]{{1,25}})?(?:\s+on(?:wards)?)?)$", re.IGNORECASE)
# A change said with its verb: "Bumped the default timeout to 20 minutes", "The fraud threshold was lowered to
# 0.75", "Lena Novak took over as product manager for Lumen": read as the statement it makes ("The default
# timeout is 20 minutes", "Lena Novak is the product manager for Lumen"), which the frame rules compare.
_CHANGE_VERBS = r"(?:bumped|raised|lowered|increased|reduced|decreased|changed|upgraded|updated)"
_VERB_FIRST = re.compile(rf"^(?:we\s+(?:have\s+)?)?{_CHANGE_VERBS}\s+(?P<what>(?:the|our)\s+[^,;]+?)\s+to\s+(?P<value>\S.*)$",
                         re.IGNORECASE)
_VERB_AFTER = re.compile(rf"^(?P<what>[^,;]+?)\s+(?:was\s+|has\s+been\s+|is\s+)?{_CHANGE_VERBS}\s+to\s+(?P<value>\S.*)$",
                         re.IGNORECASE)
_TAKES_OVER = rf"^(?P<who>{_PERSON})\s+(?:has\s+)?(?:took|taken|takes)\s+over\s+as\s+(?:the\s+)?"
_TOOK_OVER = re.compile(rf"{_TAKES_OVER}(?P<role>[^,;]+?\s+(?:of|for)\s+\S.*)$")
# ... and "from" the holder it replaces, with no group named ("Priya Shah has taken over as firmware lead from Lars
# Nilsen"): "Priya Shah is the firmware lead", a role with "the" that the holder rule reads (:func:`_holder_change`).
_TOOK_OVER_FROM = re.compile(rf"{_TAKES_OVER}(?P<role>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){{0,2}})\s+from\s+{_PERSON}$")


# A change said with where it came from and went ("Background jobs moved from Celery to Dramatiq", "Replaced
# Elasticsearch with OpenSearch", "Dropped Amplitude for PostHog"): read against the older text, it states that
# text with the one value swapped (:func:`_swap_stated`).
_FROM_TO = re.compile(r"^(?P<what>[^,;]*?)\s*(?:has\s+|have\s+|was\s+|were\s+)?(?:moved|switched|migrated)\s+"
                      r"(?:(?P<what2>[^,;]+?)\s+)?from\s+(?P<a>[^,;]+?)\s+to\s+(?P<b>[^,;]+?)$", re.IGNORECASE)
_REPLACED = re.compile(r"^(?:we\s+(?:have\s+)?)?(?:(?:replaced)\s+(?P<a>[^,;]+?)\s+with|(?:dropped)\s+(?P<a2>[^,;]+?)"
                       r"\s+(?:for|in\s+favou?r\s+of))\s+(?P<b>[^,;]+?)$", re.IGNORECASE)
# ... and a new version said of one named thing with no "from" ("MLflow was upgraded to 2.12", "Upgraded Airflow to
# 2.9"): read against the older text, where that name is written once with its version ("Experiment tracking uses
# MLflow 2.9"), it states that text with the version swapped.
_UPGRADED = re.compile(r"^(?:(?:we\s+(?:have\s+)?)?(?:upgraded|bumped|updated)\s+(?P<name>[A-Z][\w.+-]*)"
                       r"|(?P<name2>[A-Z][\w.+-]*)\s+(?:was|has\s+been|is)\s+(?:upgraded|bumped|updated))"
                       r"\s+to\s+(?:v(?=\d))?(?P<b>\d+(?:\.\d+)*)$")
_VERSION_AFTER = r"(?<![\w.]){name}\s+v?(?P<a>\d+(?:\.\d+)*)(?![\w.])"


def _swap_stated(older: str, clause: str, later: str) -> str | None:
    """The statement a "from A to B" clause makes, read against the ``older`` text: ``older`` with A replaced by B,
    when A is written there once, at least ``MIN_LEAD`` words in; the words the clause names the thing with
    ("background jobs") come before A there, in order (the same frame: "Harbor's background jobs run on
    Celery ..."); and every capitalised name ``older`` states after A is in the ``later`` text too ("...;
    RabbitMQ stays as the broker"), so retiring ``older`` loses no other statement of it. Else None, and the
    frame rules still have to find the swapped value in its place (:func:`frame_change`)."""
    body = _PURPOSE.sub("", clause.strip().rstrip("."))
    if lead := _LEAD.match(body):
        body = body[lead.end():]
    if m := _FROM_TO.match(body):
        what = words(" ".join(filter(None, (m["what"], m["what2"]))))
        a, b = m["a"], m["b"]
    elif m := _REPLACED.match(body):
        what, a, b = [], m["a"] or m["a2"], m["b"]
    elif m := _UPGRADED.match(_TRAIL.sub("", body)):
        return _version_stated(older, m["name"] or m["name2"], m["b"], later)
    elif several := changes_read.upgrades(body):  # "BREAKING: update Vite to v4 and Rollup to v3"
        for name, version in several:
            older = _version_stated(older, name, version, later) or ""
        return older or None
    elif read := changes_read.moved_to_version(_TRAIL.sub("", body)):  # "We moved the game servers to Node.js 20 LTS"
        what, name, version = read
        return _version_stated(older, name, version, later) if set(what) <= set(words(older)) else None
    elif read := changes_read.from_to(body):  # a change-log line: "Update default timeout from 30 to 60 seconds"
        swapped = changes_read.changelog_swapped(older, *read, later)
        return _statement(swapped) if swapped else None
    else:
        return None
    a, b = re.sub(r"^(?:the|our)\s+", "", a, flags=re.IGNORECASE), re.sub(r"^(?:the|our)\s+", "", b, flags=re.IGNORECASE)
    if not 0 < len(words(a)) <= _SWAP_MAX or not 0 < len(words(b)) <= _SWAP_MAX or set(what) & NEGATIONS:
        return None
    text = older.strip().rstrip(".")
    found = list(re.finditer(rf"(?<![\w.]){re.escape(a)}(?![\w])", text, re.IGNORECASE))
    if len(found) != 1:
        return None
    before, after = words(text[: found[0].start()]), text[found[0].end():]
    if len(before) < MIN_LEAD or not _in_order(what, before):
        return None
    if not names_kept(after, later):
        return None
    return _statement(text[: found[0].start()] + b + after)


def _version_stated(older: str, name: str, version: str, later: str) -> str | None:
    """``older`` with ``name``'s version replaced by ``version`` (:data:`_UPGRADED`), when ``name`` is written
    there once, with a version right after it, at least ``MIN_LEAD`` words in, and every capitalised name
    ``older`` states after it is in the ``later`` text too; else None."""
    text = older.strip().rstrip(".")
    found = list(re.finditer(_VERSION_AFTER.format(name=re.escape(name)), text, re.IGNORECASE))
    if len(found) != 1 or found[0]["a"] == version or len(words(text[: found[0].start()])) < MIN_LEAD:
        return None
    after = text[found[0].end():]
    if not names_kept(after, later):
        return None
    return _statement(text[: found[0].start("a")] + version + after)


def _project_text(old_text: str, new_text: str, cosine: float, old_is_later: bool) -> str | None:
    """A change written as project text writes it (:mod:`~knotwork.hygiene.changes_read`): two values swapped
    in one frame, each step a change :func:`supersedes` reads; a version's tag read with it ("Node.js 18 LTS");
    "B instead of A"; a negation lifted for a value; "Stop <doing> X"; another floor of one thing's versions;
    another cadence of one thing; "A handed X over to B"; "A left <org>"; another tool after "with"; a proposal's
    status, a file moved, an option removed, a build no longer shipped, a team's duty, a tool's version said of
    what it serves (:mod:`~knotwork.hygiene.project_read`). The later
    text (the new one unless ``old_is_later``) is the one read as the change."""
    if cosine < SLOT_COSINE:
        return None
    if change := _two_values(old_text, new_text, cosine):
        return change
    earlier, later = (new_text, old_text) if old_is_later else (old_text, new_text)
    # ... or in the later text's first clause, the earlier one being that clause alone ("Live-ops events start
    # every Friday at 18:00 UTC" -> "... every Thursday at 17:00 UTC, one day earlier than before")
    head = _first_clause(later)
    if (cosine >= CLAUSE_COSINE and head != later and _first_clause(earlier).strip().rstrip(".") == earlier.strip().rstrip(".")
            and (change := _two_values(*((head, earlier) if old_is_later else (earlier, head)), cosine))):
        return change
    if (untagged := changes_read.untagged(old_text, new_text)) and (change := supersedes(*untagged, cosine)):
        return change
    return (changes_read.negation_lifted(old_text, new_text) or changes_read.instead_of(earlier, later)
            or changes_read.stopped(earlier, later) or changes_read.floor_change(earlier, later)
            or changes_read.cadence_change(_statement(earlier), _statement(later, later=True))
            or changes_read.handed_over(earlier, later)
            or changes_read.left_org(earlier, later) or changes_read.tool_after_with(earlier, later)
            or project_read.change(old_text, new_text, old_is_later))


def _two_values(old_text: str, new_text: str, cosine: float, floor: float = FRAME_COSINE) -> str | None:
    """Two values swapped in one frame ("Laravel 8 and PHP 7.4" -> "Laravel 10 and PHP 8.2"): both steps
    through the text between them (:func:`changes_read.two_swaps`) read by :func:`supersedes` as one value
    changed, else None."""
    if (mid := changes_read.two_swaps(old_text, new_text)) and (first := supersedes(old_text, mid, cosine, whole_floor=floor)):
        if second := supersedes(mid, new_text, cosine, whole_floor=floor):
            return f"{first}; {second}"
    return None


def _in_order(part: list[str], whole: list[str]) -> bool:
    """Are ``part``'s words in ``whole`` as one run ("background jobs" in "harbor's background jobs run on")?"""
    return any(whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1))


def read_by_date(text: str) -> bool:
    """Whether :func:`_core_change` reads ``text`` otherwise when it is the later of two: several clauses (a
    ";"), a closing phrase of when or why (:data:`_TRAIL`), a change said from A to B (:data:`_FROM_TO`,
    :data:`_REPLACED`), a version said of a name (:data:`_UPGRADED`). The service reads the stored dates of such
    candidates only (``decide``'s ``later``)."""
    body = text.strip().rstrip(".")
    return ";" in body or bool(_TRAIL.search(body) or _FROM_TO.match(body) or _REPLACED.match(body)
                               or _UPGRADED.match(body) or changes_read.reads_by_date(text) or seats.reads_by_date(text))


@lru_cache(maxsize=512)  # the new memory's statements are asked for once per candidate: read them once
def _statement(text: str, later: bool = False) -> str:
    """One statement without an opening phrase of time (:data:`_LEAD`) or a closing purpose (:data:`_PURPOSE`),
    nor, when it is the ``later`` text, a closing phrase of when or why (:data:`_TRAIL`); a change said with its
    verb read as the statement it makes."""
    text = _PURPOSE.sub("", text.strip().rstrip("."))
    if later:
        text = _TRAIL.sub("", text)
    if lead := _LEAD.match(text):
        text = text[lead.end():]
    if (m := _TOOK_OVER.match(text)) or (m := _TOOK_OVER_FROM.match(text)):
        text = f"{m['who']} is the {m['role']}"
    elif (m := _VERB_FIRST.match(text)) or (m := _VERB_AFTER.match(text)):
        text = f"{m['what']} is {m['value']}"
    return (text[:1].upper() + text[1:]).strip() + "."


def _without_repeated_word(old_text: str, new_text: str, cosine: float, old: list[str], new: list[str]) -> str | None:
    """:func:`supersedes` once a word one text drops or adds is left out, when that word is written elsewhere in
    both texts and nothing else but one replaced span differs ("The public API rate limit is 100 requests per
    minute per API key" -> "... is 300 requests per minute per key": "API" is said once already). The word
    repeats what both texts say, so leaving it out changes no statement."""
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 2 or sorted(op[0] for op in ops) not in (["delete", "replace"], ["insert", "replace"]):
        return None
    op, i1, i2, j1, j2 = next(o for o in ops if o[0] != "replace")
    side, text, at = (old, old_text, i1) if op == "delete" else (new, new_text, j1)
    dropped = side[at:(i2 if op == "delete" else j2)]
    if len(dropped) != 1 or dropped[0] in _NO_VALUE or old.count(dropped[0]) + new.count(dropped[0]) < 3:
        return None  # one word, said at least once more in each text
    tokens = list(_WORD.finditer(text.lower().replace("\u2019", "'")))
    if len(tokens) != len(side) or not (old.count(dropped[0]) and new.count(dropped[0])):
        return None
    cut = re.sub(r"\s{2,}", " ", text[: tokens[at].start()] + text[tokens[at].end():])
    old_text, new_text = (cut, new_text) if op == "delete" else (old_text, cut)
    if words(old_text) == words(new_text):
        return None
    return supersedes(old_text, new_text, cosine)


def _core_change(old_text: str, new_text: str, cosine: float, old_is_later: bool = False) -> str | None:
    """:func:`supersedes` over the statements the two texts make, when either reads otherwise than it is
    written: "Raw event data is kept for 90 days in the landing bucket." -> "After the storage review, raw event
    data is kept for 30 days in the landing bucket." is the frame with one value swapped, as is "The default
    timeout is 10 minutes" -> "Bumped the default timeout to 20 minutes; large repositories hit the limit".
    The later text's clauses (split at ";") are read one by one ("Priya Nair moved to the payments team; Lena
    Novak took over as product manager for Lumen"); the earlier text, the one that would retire, is read whole
    (its other clauses may still hold, so one clause's change does not retire it). Which is later is the new
    text unless ``old_is_later`` (the stored memory states a later value: the new one arrives late); the change
    is told from the stored text to the new one either way, as :func:`decide` tells every change. A rule must
    propose the change (:func:`proposed`), and the pair scorer must keep it, as for any pair, with the whole
    texts' cosine."""
    whole, split = (new_text, old_text) if old_is_later else (old_text, new_text)
    whole_core = _statement(whole)
    if ";" in whole_core or not words(whole_core):
        return None
    as_written = (whole.strip().rstrip(".") + ".", split.strip().rstrip(".") + ".")
    for clause in (c for c in split.split(";") if c.strip()):
        clause_core = _swap_stated(whole, clause, split) or _statement(clause, later=True)
        # a closing phrase of when or why set aside weighed on the whole texts' cosine as a differing tail does
        # after a copula: the statements' match takes that floor (COPULA_COSINE), not FRAME_COSINE
        floor = COPULA_COSINE if clause_core != _statement(clause) else FRAME_COSINE
        clause_core = _headline(clause_core, whole_core)
        if (whole_core, clause_core) == as_written or not words(clause_core):
            continue
        stored, added = (clause_core, whole_core) if old_is_later else (whole_core, clause_core)
        if untagged := changes_read.untagged(stored, added):  # "Node.js 18 LTS" -> "... 20 LTS": the tag is the version's
            stored, added = untagged
        rule, change = proposed(stored, added, cosine, whole_floor=floor)
        if rule is None:
            if change := _two_values(stored, added, cosine, floor):  # "update Vite to v4 and Rollup to v3"
                return change
            continue  # the scorer's looser reading alone (a verb of being swapped is no rule's value: _being_swap)
        if change := supersedes(stored, added, cosine, whole_floor=floor):
            return change
    return None


def _headline(statement: str, other: str) -> str:
    """``statement`` with the article a headline leaves out ("Fraud score threshold for manual review lowered to
    0.75" read as "Fraud score threshold ... is 0.75") put back where ``other`` opens with it on the same word
    ("The fraud score threshold for manual review is 0.85"): a change-log line's wording, not another thing."""
    mine, theirs = words(statement), words(other)
    if len(theirs) > 2 and theirs[0] == "the" and mine[:1] == theirs[1:2] and statement[:1].isupper():
        return f"The {statement[:1].lower()}{statement[1:]}"
    return statement


def proposed(old_text: str, new_text: str, cosine: float, old: list[str] | None = None,
             new: list[str] | None = None, whole_floor: float = FRAME_COSINE) -> tuple[str | None, str | None]:
    """(which rule, the changed value) when a rule reads ``new_text`` as ``old_text`` with one value changed,
    else (None, None)."""
    old = words(old_text) if old is None else old
    new = words(new_text) if new is None else new
    if cosine >= SUPERSEDE_COSINE and (change := value_change(old, new)):
        return "value", change
    if change := frame_change(old_text, new_text, cosine, whole_floor):
        return "frame", change
    return None, None


def supersedes(old_text: str, new_text: str, cosine: float, old: list[str] | None = None,
               new: list[str] | None = None, whole_floor: float = FRAME_COSINE) -> str | None:
    """The changed value when the newer text retires the older one, else None.

    The rules above and a looser reading (:func:`knotwork.hygiene.pair_scorer.swap`: the texts, or their
    first clauses, differ in one short span) propose; the pair scorer keeps a proposal only when its
    probability reaches the shipped threshold: 0.5 for a rule's proposal (dropped when more likely wrong
    than right), a higher one chosen on dev pairs for precision first for the looser reading's. Without the
    weights file the rules decide alone."""
    rule, change = proposed(old_text, new_text, cosine, old, new, whole_floor)
    found = wording.real_change(_scored(old_text, new_text, cosine, rule, change))  # "every friday -> on fridays": none
    if found is None and cosine >= SLOT_COSINE:
        return wording.real_change(slot_change(old_text, new_text))  # a slot read whole: holders, employer, schedule
    return found


def _keyed(old_text: str, new_text: str, cosine: float, old_is_later: bool = False) -> str | None:
    """One key, two values, whatever the sentence shapes (:func:`knotwork.hygiene.keys.key_change`), after every
    other rule: the slot floor, like the other readers of a whole text."""
    return key_change(old_text, new_text, old_is_later) if cosine >= SLOT_COSINE else None


def _named(old_text: str, new_text: str, old_is_later: bool) -> str | None:
    """The readers keyed on a name, asked of every candidate down to ``READER_COSINE``: a seat's holder, a
    person's standing, term, employer or address (:mod:`~knotwork.hygiene.seats`), one thing's version floor
    (:func:`changes_read.floor_change`: "NumPy floor raised to 1.25" / "The oldest NumPy Bramble supports is
    1.23", cosine 0.45)."""
    earlier, later = (new_text, old_text) if old_is_later else (old_text, new_text)
    return seats.change(old_text, new_text, old_is_later) or changes_read.floor_change(earlier, later)


def _scored(old_text: str, new_text: str, cosine: float, rule: str | None, change: str | None) -> str | None:
    """The rules' proposal as the pair scorer keeps or drops it (:func:`supersedes`)."""
    model = pair_scorer.load()
    if model is None or (rule is None and model.threshold(None) == float("inf")):
        return change  # no weights: the rules alone; no rule and the looser reading off: nothing to score
    found = pair_scorer.swap(old_text, new_text)
    if found is None or _being_swap([t.lower() for t in found.gone], [t.lower() for t in found.came]):
        return None  # no swap, or "is" -> "stays": the looser reading proposes no value either
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


def _passive_pair(gone: list[str], came: list[str]) -> bool:
    """Two events, not two values: "a task is published" / "a task is executed" (one word each side, both
    past participles, neither a word of state)."""
    return (len(gone) == len(came) == 1 and gone[0].endswith("ed") and came[0].endswith("ed")
            and not {gone[0], came[0]} & STATUS_WORDS)


# -- the same frame, another value ---------------------------------------------------------------------------
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


def _value_span(raw: list[str], low: list[str]) -> bool:
    """Is this span (case kept / lower case) a value: digits in every word, a capitalised name, a time word, or
    a word of state? Pronouns and articles never are."""
    if not raw or set(low) & _NO_VALUE - wording.named_the(raw) or any(_opaque(t) for t in raw):
        return False  # "the" only inside a name of capitals ("Read the Docs")
    if all(any(ch.isdigit() for ch in t) for t in raw):
        return True
    if any(re.search(r"[A-Za-z]\.[A-Za-z]", t) for t in raw):
        return False  # a dotted name is code ("Request.max_form_parts"), one of many
    if all(t in TIME_WORDS or any(ch.isdigit() for ch in t) for t in low):
        return True  # "late 2020", "every Tuesday"
    if len(low) == 1 and low[0] in STATUS_WORDS:
        return True  # "deprecated"
    return raw[0][0].isupper() and all(t[0].isupper() or t in _NAME_PARTICLES | wording.named_the(raw)
                                       or any(ch.isdigit() for ch in t) for t in raw)


def _opaque(token: str) -> bool:
    """An identifier, not a value: a hash, a uuid, a long token of letters and digits mixed
    ("35e3ea103a994619a9b6", "01JQ5ZZZZZA00000000000000K"). It says which thing, as "PR 123" does."""
    return len(token) >= 12 and "." not in token and any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


_NAME_PARTICLES = frozenset("van von der den de del della da di du la le bin al".split())  # "Hugo van Kemenade"


def _first_clause(text: str) -> str:
    match = CLAUSE_END.search(text)
    return text[: match.start()] if match else text


def _clauses(text: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """(tokens case kept, lower-case words) of the whole text and of its first clause, read as one frame
    (:func:`frame_tokens`)."""
    text = text.replace("\u2019", "'")
    whole, clause = frame_tokens(_RAW_WORD.findall(text)), frame_tokens(_RAW_WORD.findall(_first_clause(text)))
    return whole, [t.lower() for t in whole], clause, [t.lower() for t in clause]



def frame_change(old_text: str, new_text: str, cosine: float = 1.0, whole_floor: float = FRAME_COSINE) -> str | None:
    """The changed value when ``old_text`` and ``new_text`` are one frame with one value swapped: the whole
    texts, or their first clauses ("Harbor's primary database is MySQL 5.7, ..." -> "... is PostgreSQL 16
    since ..."), differ in one short span; else None.

    The span must be at least ``MIN_LEAD`` words in, a value on both sides (:func:`_value_span`), and in the
    value's place: it ends the text or clause, or a function word follows it ("Python 3.8+ with ..."), or it
    is an amount before its unit ("over 6,000,000 downloads"; not "note number 6 about ..."). A span
    followed by another word names which thing the clause is about ("the Couchbase server", "Celery 5.4.x
    supports ...", "the release manager of Python 2.7 is ..."), and two clauses about two things both hold.
    No negation may come or go. The whole texts' match needs ``cosine`` >= ``whole_floor`` (``FRAME_COSINE``;
    ``COPULA_COSINE`` when :func:`_core_change` set a closing phrase of when or why aside), a match of the
    first clauses only (their tails differ) ``CLAUSE_COSINE``; a value right after a copula ("... is MySQL
    5.7") or a role's new holder (:func:`_holder_change`), where the tails or the names weigh on the cosine
    more than the frame does, ``COPULA_COSINE``."""
    old_all, old_words, old_first, old_first_words = _clauses(old_text)
    new_all, new_words, new_first, new_first_words = _clauses(new_text)
    if NEGATIONS & (set(old_words) | set(new_words)):
        return None
    for old_raw, old, new_raw, new, floor in ((old_all, old_words, new_all, new_words, whole_floor),
                                              (old_first, old_first_words, new_first, new_first_words, CLAUSE_COSINE)):
        if len(old) <= MIN_LEAD or old == new or cosine < min(floor, COPULA_COSINE):
            continue
        if (found := short_swap(old, new)) and (heading_crossed(old_text, found[0], found[1])
                                                or heading_crossed(new_text, found[2], found[3])):
            continue  # "3.15.0 alpha 4: Tuesday" -> "alpha 5: Wednesday": another heading, not another value
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
    if respelled(gone, came) or _being_swap(gone, came):
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
    if numeric and (before in NUMBERED or which_year(before, gone, came, after)):
        return None  # "note number 6", "marker mk6", "PR 123", "PEP 788", "the 2025 term": which one, not how much
    if after is not None and after not in AFTER_VALUE and after not in KIND_NOUNS:
        quantity = numeric and not old_raw[i1 - 1][0].isupper()  # "over 7,000,000 downloads", not "Celery 5.4 supports"
        dated = set(gone + came) <= TIME_WORDS and any(ch.isdigit() for ch in after)  # "mid 2020" -> "September 2020"
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
            and (after is None or after in AFTER_VALUE))


# "X is the tech lead of T": a role with "the" has one holder at a time; "one of the", "a", "an" have many.
_HOLDER_VERBS = (("is", "the"), ("is", "now", "the"), ("became", "the"), ("remains", "the"), ("was", "named", "the"),
                 ("has", "become", "the"))
# ... and a verb of the role before "the" group it holds ("Shelley Vohr chairs the Releases working group" ->
# "Keeley Hammond chairs ..."): one chair, lead or head at a time. "Alice leads platform" / "Marcus leads data"
# differ in the group too, so they never reach this.
_HOLDER_ROLE_VERBS = frozenset({"chairs", "leads", "heads", "manages", "champions"})


def _one_holder(role: list[str]) -> bool:
    """After "is the": a role noun of the graph's (``knowledge.attributes.ROLES``: lead, manager, chair, …) right
    before "of/for/on/at" ("tech lead of", "release manager for"). The graph reads only those roles as held by one
    person (``has_<role>``), so consolidation and the graph agree on which roles a new name takes over; one more
    here, which the graph reads no attribute from: "the lead <kind> for T" ("the lead backend engineer for
    Kestrel"), a lead of one kind, one at a time."""
    at = next((i for i, t in enumerate(role) if t in ("of", "for", "on", "at")), None)
    # "the lead backend engineer for T": a lead of a kind, one at a time like "the tech lead"
    return at is not None and at >= 1 and (role[at - 1] in ROLES or (role[0] == "lead" and at <= 3))


def _ends_in_role(role: list[str]) -> bool:
    """After "is the": a role that ends the text, one to three words ending in a role noun of the graph's ("Lars
    Nilsen is the firmware lead", "... is the release manager"): the role of the one project the memories are
    about, one holder at a time."""
    return 1 <= len(role) <= 3 and role[-1] in ROLES and not {"of", "for", "on", "at"} & set(role)


def _holder_change(old_raw: list[str], old: list[str], new_raw: list[str], i2: int, j2: int) -> str | None:
    """Another holder of one role: the two texts differ only in the name they start with, both names written
    with capitals, and what follows is "is the <role> of/for <thing>" ("Alice Chen is the tech lead of
    Payments" -> "Marcus Lee is the tech lead of Payments"). "Alice leads platform" / "Marcus leads data" and
    "Alice is a maintainer of X" / "Bob is a maintainer of X" both hold and differ elsewhere or lack the "the"."""
    rest = old[i2:]
    names = old_raw[:i2] + new_raw[:j2]
    if not all(t[0].isupper() and t.lower() not in _NO_VALUE for t in names):
        return None
    held = any(tuple(rest[:len(verbs)]) == verbs and (len(rest) > len(verbs) + 2 and _one_holder(rest[len(verbs):])
                                                      or _ends_in_role(rest[len(verbs):]))
               for verbs in _HOLDER_VERBS)
    if held or (len(rest) > 2 and rest[0] in _HOLDER_ROLE_VERBS and rest[1] == "the"):
        return f"{_COPULA}{' '.join(old_raw[:i2])} -> {' '.join(new_raw[:j2])}"
    return None
