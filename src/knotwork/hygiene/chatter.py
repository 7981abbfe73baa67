"""Is a short text that opens like debugging chatter really chatter, or a statement worth keeping?

The ignore rule of :mod:`~knotwork.hygiene.instructions` turns away a short text that opens with "running",
"checking", "trying", "let me", "hmm" … as transient debugging chatter. An opening is not enough: "Running the
tests again" is chatter, "Running tests requires Docker" and "Running in production since March 2026" are
facts a user chose to keep, and a wrong ignore loses a true memory for good (a missed one costs a stored line).
So the opening only proposes, and :func:`is_chatter` decides, keeping the text on any sign of a statement:

- **a finite verb**: an auxiliary, copula or modal ("is", "cannot", "has"), a verb of a closed list in the third
  person or the past ("requires", "takes", "showed"), a past form in ``-ed`` after a noun ("… the migration
  failed"), or a pronoun with its verb ("…, you see …"). A verb inside a clause opened by "if", "whether",
  "what" … belongs to that clause ("Checking if there is an error" states nothing), so there a second verb is
  needed; a verb after "to" is an infinitive, and a word after a determiner ("the costs") is a noun;
- **a time that dates a state**: "since …", a cadence ("every", "nightly"), a month or a year;
- for "running", "trying" and "checking" (words with senses outside debugging: "Running a bakery in Leeds",
  "Trying to lose five kilos", "Checking in at the Hilton"), **no sign of work under way**: chatter needs a
  marker of an action in progress ("again", "now", "next", "once more", "…", a closing colon) or an object of
  the work (a code-like token, an acronym, a word such as "tests", "build", "logs", "server"). "Retrying" and
  "re-running" are debugging words whatever follows.

"Let me …" is an intention whatever follows ("let me rebuild to verify it builds"), so the verb test applies
there only to a later clause (after a comma, "and", "but"); "let me tell you", "let me explain" … open a
statement and keep the text.

Measured on every labelled memory set of the repository and on a labelled chatter set (``bench/ignore_rules.py``;
figures in bench/RESULTS.md).
"""

from __future__ import annotations

import re

# The openings this module judges: group "gerund" for the debugging gerunds, "intent" for "let me", "let's try"
# and "let's see if" (an intention whatever follows).
OPENING = re.compile(
    r"^(?:(?P<intent>(?:now,? )?(?:let me|let's (?:try|see if|check)|let us try))"
    r"|(?:now |still )?(?P<gerund>re-?running|retrying|running|trying|checking)"
    r"|(?P<other>hmm+|ok(?:ay)?,? (?:so|now)|still (?:failing|broken)|debug(?:ging)?:))\b",
    re.IGNORECASE,
)
# Gerunds that name debugging whatever their object; the others need a sign of work under way.
ALWAYS_DEBUG = frozenset({"rerunning", "retrying"})
# "let me" + one of these opens a statement ("Let me tell you, my sister lives in Lyon").
TELLING = re.compile(
    r"^(?:now,? )?let me (?:tell|share|clarify|explain|mention|remind|introduce|describe|give you|be (?:clear|honest)|"
    r"add that|note that|say)\b", re.IGNORECASE,
)

_TOKEN = re.compile(r"[A-Za-z][\w'’-]*|\d[\w.:/-]*|\.\.\.|…|[^\sA-Za-z\d]")
_AUX = frozenset(
    "is are was were am isn't aren't wasn't weren't can can't cannot could couldn't must mustn't should shouldn't "
    "will won't would wouldn't shall may does doesn't did didn't do don't has hasn't have haven't had hadn't "
    "it's that's there's here's".split()
)
# Verbs a statement about an action takes ("Running tests requires …", "Checking the logs showed …"); words that
# are as often nouns ("updates", "results", "runs", "sets") are left out, or they would make chatter a statement.
_VERBS = frozenset(
    "requires required needs need needed takes took makes made means meant causes breaks broke fails shows showed "
    "gives gave helps keeps kept saves costs uses leads led hangs hung crashes seems seemed sounds depends involves "
    "includes happens happened lasts lasted belongs matters inspects renumbers creates deletes removes adds writes "
    "wrote reads loads downloads installs passes succeeds slows speeds halves doubles beats outperforms exposes "
    "reveals exceeds stays remains becomes became goes went gets got comes came lets allows enables disables forces "
    "ensures guarantees catches misses finds found covers touches affects changes modifies returns produces "
    "triggers prevents avoids blocks ran began left sent built lost saw said told knew fell held brought "
    "see know think".split()
)
_NOT_PAST = frozenset("need speed feed seed embed shed bleed breed proceed succeed exceed indeed red bed".split())
_DETERMINERS = frozenset(
    "the a an this that these those my our your his her its their some any all each every no".split()
)
_PRONOUNS = frozenset("i we they he she".split())  # subjects wherever they stand
_OBJECT_TOO = frozenset({"it", "you"})  # subjects only after a comma ("…, you see …"), else objects ("Trying it")
_CLAUSE = frozenset("if whether what why how where when which that who whose".split())
_PREPOSITIONS = frozenset("with for on in of to at by from via into onto against through over under".split())
_MONTHS = frozenset(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_CADENCE = frozenset("every daily nightly weekly hourly monthly fortnightly biweekly yearly annually".split())
_UNDER_WAY = frozenset("again now next once locally meanwhile".split())
_WORK = frozenset(
    "test tests suite build builds job jobs script scripts command commands migration migrations server servers "
    "pipeline pipelines ci linter lint benchmark benchmarks query queries container containers program tool tools "
    "step steps install installer compile compiler compilation deploy deployment logs log error errors stack trace "
    "traceback output cache database db service services endpoint endpoints request requests connection config "
    "configuration branch commit code file files module modules package packages dependency dependencies version "
    "updates update docker image images cluster pod pods worker workers queue api app application implementation "
    "function method class source repository repo fix patch port proxy network health env environment venv make "
    "npm pip pytest cargo gradle mvn yarn git kubectl namespace header headers flag flags build's process "
    "upgrade setup connect reproduce debug".split()
)


_LATER_CLAUSE = re.compile(r"[,;:]|\s(?:and|but|so)\s", re.IGNORECASE)
# a path, a file name, a flag or an identifier: letters joined by "/", "\\", "`", "=", "_" or a dot between letters
# ("src/cli.py", "app.tsx", "--no-cache=1", "process_tasks"); not a version or a number ("Python 3.8", "v2.1")
_CODE_CHAR = re.compile(r"[A-Za-z][._][A-Za-z]|[/\\`=]\w|\w[/\\`=]")
_CODE_CASE = re.compile(r"[A-Z]{2,}\w*|[a-z]+[A-Z]\w*|[A-Z]\w*[a-z][A-Z]\w*")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _states(words: list[str]) -> bool:
    """Whether the words after the opening hold a statement: a finite verb outside a subordinate clause (a
    clause's first verb is its own), a time that dates a state, or a pronoun with its verb."""
    needed = 1
    found = 0
    before = earlier = ""
    for i, raw in enumerate(words):
        w = raw.lower().replace("’", "'")
        if w in _CLAUSE and before not in _DETERMINERS and needed == 1:
            needed = 2
        if w == "since" and i + 1 < len(words):
            return True  # "Running in production since March 2026"
        if w in _CADENCE or w in _MONTHS or re.fullmatch(r"(?:19|20)\d\d", w):
            return True
        verb = False
        if before == "to" or before in _DETERMINERS:
            verb = False
        elif w in _AUX or w in _VERBS:
            verb = True
        elif (w.endswith("ed") and len(w) > 4 and w not in _NOT_PAST and before
              and before not in _PREPOSITIONS and i > 0 and not before.endswith("ing") and before.isalpha()):
            verb = True  # "… the migration failed" (not "Retrying failed jobs", "with cached deps")
        elif ((before in _PRONOUNS or (before in _OBJECT_TOO and earlier in (",", ";")))
              and w.isalpha() and w not in _PREPOSITIONS and w not in _UNDER_WAY):
            verb = True  # "…, you see …"
        if verb:
            found += 1
            if found >= needed:
                return True
        earlier, before = before, w
    return False


def _work_under_way(words: list[str], rest: str) -> bool:
    """A marker of an action in progress or an object of the work, in the words after the opening."""
    if rest.rstrip().endswith((":", "...", "…")):
        return True
    if any(w.lower() in _UNDER_WAY or w.lower() in _WORK or w.lower().rstrip("s") in _WORK for w in words):
        return True
    # code-like: a path, a file, an identifier, an acronym
    return any(_CODE_CHAR.search(raw) or _CODE_CASE.fullmatch(raw.strip(".,;:!?()'\"")) for raw in rest.split())


def is_chatter(text: str) -> str | None:
    """The chatter opening of ``text`` (one short sentence, whitespace folded) when it reads as chatter, else None."""
    m = OPENING.match(text)
    if not m:
        return None
    rest = _tokens(text[m.end():])
    if m["intent"]:
        # "let me …" is an intention; a later clause with its own statement is not ("Let me know if it helps,
        # I live in Leeds now")
        later = _LATER_CLAUSE.split(text[m.end():])[1:]
        if TELLING.match(text) or any(_states(_tokens(part)) for part in later):
            return None
        return m.group(0)
    if _states(rest):
        return None
    gerund = (m["gerund"] or "").lower()
    if gerund and gerund.replace("-", "") not in ALWAYS_DEBUG and not _work_under_way(rest, text[m.end():]):
        return None
    return m.group(0)
