"""An attribute's key and value read from a memory whatever the sentence's shape.

The frame rules of :mod:`~knotwork.hygiene.consolidate` find one short span that differs between two texts,
so one change told in two shapes is missed: "Kubernetes 1.15's next patch release will be 1.15.3." ->
"The upcoming patch release for the Kubernetes 1.15 branch is 1.15.4."; "Nadia Petrov is the tech lead of
Tamarack." -> "Tom Eriksen is Tamarack's tech lead". This reader takes each statement a text makes and reads
a **key** (the words that say what the statement is about: its subject and its attribute) and a **value**:

- "the X of Y is V", "X for Y is V", "Y's X is V" (also "will be", "remains", "is now"), "Y X: V" and "X (Y):
  V" (a heading or status line), "V is Y's X" and "V is the X of Y" (a holder: X is a role with one holder,
  ``knowledge.attributes.ROLES``, or a tool), "Y uses V as its X", "the next Y X is V", "In Y, the X is V"
  (an opener of place or scope is part of the key);
- a place: "X lives in / is in V" (a path, a file, a name);
- a thing done in one place or with one tool: "X are hosted on V", "X go through V", "X are shipped to V"
  (the verb and its preposition are part of the key; verbs that gather values, "uses", "runs", are not read);
- said with its verb: "X is planned / targeted / scheduled / due for D" (the key gains "date"), "support for
  Y ends on D" and "Y reaches end of life on D" (Y's end-of-life date), "Y is in the V phase" (Y's status),
  "Y requires / supports X V or newer" (Y's minimum X version), "P took over as R" / "P became R for Y" (P
  holds R).

The key is the bag of the noun phrase's words, lower-cased, without articles, possessives and prepositions,
plurals made singular and a few words read as one ("upcoming" as "next", "the Kubernetes 1.15 branch" as
"Kubernetes 1.15", "end of life" as "end-of-life"). Which words are the subject and which the attribute
does not matter for the match, so the shape does not either; a version in the subject is part of the key
("Kubernetes 1.15" and "Kubernetes 1.16" are two keys, as "release manager for 4.2" and "for 4.3" are).

The value is typed: a date, a version, a number with its unit, a name written with capitals (a person, a
product, a place, with a version after it or not: "PostgreSQL 16"), or one lower-case word where the
attribute is a kind of state ("status", "phase", ...) or a kind of tool ("package manager", "bundler", ...).
What follows the value must be nothing, an aside after a comma or in brackets, a phrase of when ("since
...", "after the ... review", "now"), a detail of it ("with deploy previews"), or the same words in both texts
("100 requests per minute per key", "PostgreSQL 16 on RDS" is not "MySQL 8.0").

Two texts with one key and two values of one type are a change (:func:`key_change`), when:

- the earlier text (the one that would retire) makes one statement only, read whole, so that retiring it
  loses nothing else it says; the later text's statements are read one by one;
- no statement of the later text gives that key the earlier value again (a list that grew, both values
  held);
- neither value is a list ("A and B", "A, B"), a hedge, a negation or a question; a date made more exact
  ("2027-10" -> "2027-10-24") is no change;
- the key says what it is about: at least two words, one of them a lower-case attribute word, its head not
  vague ("problem", "idea", ...);
- both keys are the same, or one leaves out the subject the other names: it names none ("The minimal
  supported Python version is 3.7" / "Osprey requires Python 3.8 or newer"; "the head of engineering" / "...
  at Sable") and the other adds only names without digits (a version in the subject is the key; "the release
  manager for llvm-project" names its subject, so "for LLDB in llvm-project" is another key).

Precision first: a key that the shapes cannot read whole gives nothing, and the one-span rules, the slot
readers and the project-text readers (:mod:`~knotwork.hygiene.changes_read`) still run before this reader. The
reader is plain regular expressions over a few statements, no parse: it runs on every candidate pair of an add
(the new memory's statements are read once, :func:`statements`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from knotwork.hygiene.spans import KIND_NOUNS
from knotwork.knowledge.attributes import ROLES

# -- the statement's shape ------------------------------------------------------------------------------------
_COPULA = r"(?:is|are|will\s+be|remains|remain|stays|stay|became|has\s+become)(?:\s+now)?"
_DATE_VERB = r"(?:planned|targeted|scheduled|due|expected|set)(?:\s+to\s+be\s+released)?\s+(?:for|on|in)"
_SHAPES = [
    # "X is planned / targeted / due for D": a date; "are next due on" puts "next" in the key
    ("date", re.compile(rf"^(?P<np>.+?)\s+(?:is|are|will\s+be)\s+(?P<next>next\s+)?{_DATE_VERB}\s+(?P<value>.+)$")),
    # "The protocol types live in src/types.ts", "The default validator is in ajv-provider.ts": a place
    ("place", re.compile(r"^(?P<np>.+?)\s+(?:is|are|lives|live)\s+(?:now\s+)?(?P<prep>in|at|under)\s+(?P<value>.+)$")),
    ("copula", re.compile(rf"^(?P<np>.+?)\s+{_COPULA}\s+(?P<value>.+)$")),
    # "Docs are hosted on Netlify", "Payments go through Stripe", "Server logs are shipped to Datadog": a thing
    # done in one place, with one tool (a verb that gathers values, "uses", "supports", "runs", is none of these)
    ("verb", re.compile(r"^(?P<np>.+?)\s+(?P<verb>(?:is|are)\s+(?:hosted|served|shipped|sent|stored|kept|deployed|"
                        r"powered|built|handled|managed|tracked|published|compiled|bundled|installed|formatted|"
                        r"linted|tested|written)|goes|go)\s+(?P<prep>on|with|by|to|in|through|via|at)"
                        r"\s+(?P<value>.+)$")),
    # a heading or status line: "Asset bundling: Vite", "Primary on-call (Q2): Dana Reyes"
    ("heading", re.compile(r"^(?P<np>[A-Za-z][\w .'/-]{1,60}?)\s*(?:\((?P<sub>[^()]{1,40})\))?:\s+(?P<value>.+)$")),
]
# Verbs that say a date, a status or a tool, read as the "X is V" statement they make.
_FRAMES = [
    (re.compile(r"^support\s+for\s+(?P<s>.+?)\s+ends\s+(?:on|in)\s+(?P<v>.+)$", re.I),
     "the end-of-life date of {s}", "{v}"),
    (re.compile(r"^(?P<s>.+?)\s+reaches\s+(?:its\s+)?end[\s-]of[\s-]life\s+(?:on|in)\s+(?P<v>.+)$", re.I),
     "the end-of-life date of {s}", "{v}"),
    (re.compile(r"^(?P<s>.+?)\s+is\s+(?:now\s+)?in\s+(?:(?:the|its)\s+)?(?P<v>[\w-]+)\s+(?:phase|stage|status)$",
                re.I), "the status of {s}", "{v}"),
    (re.compile(r"^(?P<s>.+?)\s+(?:uses|use)\s+(?P<v>.+?)\s+as\s+(?:its|their|our|the)\s+(?P<x>[\w -]+)$", re.I),
     "{s}'s {x}", "{v}"),
    # a floor: "Osprey requires Python 3.8 or newer", "Wren supports Python 3.10 and newer" (the minimum Python
    # version of Osprey; "supports Python 3.12" alone is no floor: two versions supported both hold)
    (re.compile(r"^(?P<s>.+?)\s+(?:requires|needs|supports)\s+(?P<x>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+v?"
                r"(?P<v>\d+(?:\.\d+)*)\s+(?:or|and)\s+(?:newer|later|above|higher)$"),
     "the minimum {x} version of {s}", "{v}"),
    # an amount had: "Paid plans get a 30 second check interval from June on", "Harbor has a rate limit of 100
    # requests per minute" (the X for Y)
    (re.compile(r"^(?P<s>.+?)\s+(?:gets|get|has|have)\s+an?\s+(?P<x>[a-z][\w -]*?)\s+of\s+(?P<v>\d.*)$"),
     "the {x} for {s}", "{v}"),
    (re.compile(r"^(?P<s>.+?)\s+(?:gets|get|has|have)\s+an?\s+(?P<v>\d[\d.,]*[\s-][a-z]+)\s+(?P<x>[a-z][\w-]*"
                r"(?:\s+[a-z][\w-]*){0,2}?)(?P<t>\s+(?:from|since|starting|as\s+of)\b.*)?$"),
     "the {x} for {s}", "{v}{t}"),
    # a role taken: "Priya Shah has taken over as firmware lead", "Daniel Osei became release manager for Heron
    # 4.2 when Keiko Sato stepped down": the holder of that role now
    (re.compile(r"^(?P<p>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})\s+(?:has\s+)?(?:took|taken|takes|became|has\s+become)"
                r"\s+(?:over\s+as\s+)?(?:the\s+)?(?P<r>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}(?:\s+(?:of|for)\s+[^,;]+?)?)"
                r"(?:\s+(?:from\s+[A-Z][^,;]*|when\s+[^,;]+))?$"),
     "{p}", "the {r}"),
]
# An opening phrase of time ("After the storage review, ...", "As of June, ...") says nothing of the key; one of
# place or scope ("In Harbor, ...", "For EU merchants, ...") is part of it: read as "... of Harbor".
_LEAD = re.compile(r"^(?:after|since|following|as of|starting|effective|from)\b[^,;:()]{1,60},\s+(?=\S)", re.I)
_SCOPE = re.compile(r"^(?:in|for|at|on|within)\s+(?P<scope>[^,;:()]{1,40}),\s+(?=\S)", re.I)
# What may follow a value without changing what it states: an aside after a comma or in brackets, a phrase of
# when ("since the March migration", "from June on", "after the licence review"), "now".
_AFTER = re.compile(r"^(?:\s*[,(].*|\s+(?:now|currently|today)|\s+with\s.*|\s+(?:since|after|following|as\s+of|"
                    r"from|starting|effective|until|in\s+the\s+\w+\s+(?:cleanup|release|migration))\b.*)$", re.I | re.S)

# -- the key's words ------------------------------------------------------------------------------------------
_DROP = frozenset("the a an its their our his her this that these those of for in on at to by with from s current "
                  "currently present branch".split())
_SAME = {"upcoming": "next", "eol": "end-of-life", "targeted": "target", "minimal": "minimum"}
_KINDS = KIND_NOUNS  # a state in one lower-case word ("status", "phase")
# a tool in one lower-case word ("The package manager is pnpm"), comparable with one written with capitals
_TOOLS = frozenset("""manager runner bundler formatter linter database db framework library tool language backend
    frontend editor server broker queue store engine client driver provider host registry builder compiler
    checker orm cache runtime shell os platform cloud ci serializer validator""".split())
_VAGUE = frozenset("""problem issue question idea plan goal reason thing point way part concern worry job task
    fault name one kind sort type lot bit fact advantage disadvantage benefit downside upside strength weakness
    trick secret story mistake example note""".split())
_NOT_A_KEY = frozenset("we i you he she it they there this that what which who here".split())
_HEDGE = re.compile(r"\b(?:[Nn]ot|[Nn]o|[Nn]ever|n't|[Mm]aybe|[Pp]erhaps|[Pp]robably|might|may|could|should|would|"
                    r"[Ii]f|[Uu]nless|whether|either|or|proposed|considering|instead)\b|\?")
_TOKEN = re.compile(r"[A-Za-z0-9\u00C0-\u024F][\w\u00C0-\u024F.+-]*(?:'s)?")

# -- the value ------------------------------------------------------------------------------------------------
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# a word written with a capital, at its start or after a lower-case prefix ("iOS", "macOS")
_NAME_WORD = r"(?:[A-Z\u00C0-\u00DE\u0100-\u024F]|[a-z]{1,3}[A-Z])[\w\u00C0-\u024F'.+-]*"
_VALUES = [
    ("date", re.compile(rf"\d{{4}}-\d{{2}}(?:-\d{{2}})?|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
                        rf"|\d{{1,2}}\s+{_MONTH}(?:\s+\d{{4}})?|{_MONTH}\s+\d{{4}}", re.I)),
    ("version", re.compile(r"v?\d+(?:\.\d+)+[a-z0-9]*(?:\+)?(?![\w/])", re.I)),
    # a path, a package or a file name: "src/types.ts", "@scope/core", "ajv-provider.ts"
    ("path", re.compile(r"[@~.]?[\w.-]*/[\w./@:-]*"
                        r"|[\w-]+(?:\.[\w-]+)*\.(?:ts|js|py|json|toml|ya?ml|md|sh|txt|cfg|ini|lock)\b")),
    ("number", re.compile(r"[$\u20ac\u00a3]?\d+(?:[.,]\d+)?%?(?P<unit>(?:\s+[a-z]+(?:\s+per\s+[a-z]+)?)?)", re.I)),
    ("name", re.compile(rf"{_NAME_WORD}(?:\s+(?:(?:van|von|der|den|de|del|da|di|du|la|le)\s+)?{_NAME_WORD})"
                        rf"{{0,3}}(?:\s+v?\d+(?:\.\d+)*)?")),
    ("word", re.compile(r"[a-z][a-z0-9-]*[a-z0-9]")),
]
_LIST = re.compile(r",|\s(?:and|or|&)\s|/", re.I)
_CLAUSE_SPLIT = re.compile(r";|(?<=[a-z0-9)])\.\s+(?=[A-Z])")  # at ";" and between sentences
# Compiled once: every candidate pair of an add reads its statements with these.
_CAPITAL_OPENS = re.compile(r"[A-Z][a-z]+\s+[a-z]")  # "Paid plans get ...": a subject capitalised as the opening
_HYPHENED = re.compile(r"^(\d[\d.,]*)-(?=[a-z])")  # "a 30-second interval"
_HELD_KEY = re.compile(r"(?:the\s+|[A-Z][\w.+-]*(?:\s+[A-Z\d][\w.+-]*)*'s\s+)")  # "the X of Y", "Y's X"
_HELD_WHEN = re.compile(r"\s+(?:now|(?:starting|from|since)\s+(?:with\s+)?\S+(?:\s+on)?)$")
_PRONOUN = re.compile(r"\b(?:we|i|you|they|he|she|it)\b", re.I)
_END_OF_LIFE = re.compile(r"end[\s-]of[\s-]life", re.I)
_SCOPED = re.compile(r"'s\b|\b(?:of|for|at|in)\s+(?:the\s+)?(?:[A-Z0-9]|\w+[-._/]\w)")
_NOW = re.compile(r"^(?:now|currently|still)\s+")


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement a text makes: its key (what it is about), its value as written, the value's type and its
    comparable form."""

    key: frozenset[str]
    value: str
    kind: str
    norm: str
    tail: str = ""  # the words after the value that are part of what it states ("per key", "on RDS")
    names: frozenset[str] = frozenset()  # the key's words written as names ("harbor", "python", "3.13")
    scoped: bool = True  # whether the key names its subject ("Harbor's X", "the X of/for Harbor")


@lru_cache(maxsize=256)
def statements(text: str) -> tuple[Statement | None, ...]:
    """Each clause of ``text`` (sentences, and parts split at ";") as a :class:`Statement`, or None for a
    clause this reader cannot read whole. Kept for the texts last read: consolidation asks :func:`key_change`
    of the new memory against each of its candidates, so the new memory's statements are read once."""
    clauses = [c.strip() for c in _CLAUSE_SPLIT.split(text.replace("\u2019", "'")) if c.strip()]
    return tuple(_statement(c.rstrip(".").strip()) for c in clauses)


def _statement(clause: str) -> Statement | None:
    """One clause read in the first shape that reads it whole (:data:`_SHAPES`), after an opening phrase of time
    is set aside, an opener of scope moved into the key and a verb frame (:data:`_FRAMES`) rewritten as the
    "X is V" statement it makes."""
    if lead := _LEAD.match(clause):
        clause = clause[lead.end():]
    scope = ""
    if opener := _SCOPE.match(clause):
        clause, scope = clause[opener.end():], f" of {opener['scope']}"
    for frame, np, value in _FRAMES:  # before the hedges: "or newer" is a floor, no choice
        if m := frame.match(clause):
            found = {k: v or "" for k, v in m.groupdict().items()}
            if _CAPITAL_OPENS.match(found.get("s", "")):  # "Paid plans get ...": "paid plans"
                found["s"] = found["s"][0].lower() + found["s"][1:]
            said = _HYPHENED.sub(r"\1 ", value.format(**found))  # "a 30-second interval"
            clause = f"{np.format(**found)} is {said}"
            break
    if _HEDGE.search(clause):
        return None
    for shape, pattern in _SHAPES:
        if not (m := pattern.match(clause)):
            continue
        np, value = m["np"], m["value"].strip()
        if shape == "heading" and len(_TOKEN.findall(np)) > 5:
            continue  # "Flask decides on one template engine: Jinja2": a clause, not a heading's noun phrase
        if shape == "heading" and m["sub"]:
            np = f"{np} of {m['sub']}"
        extra = {"date"} | ({"next"} if m["next"] else set()) if shape == "date" else set()
        if shape == "place":
            extra = {"in"}  # "in", "at", "under" a place: one key
        if shape == "verb":
            extra = {m["verb"].split()[-1], m["prep"]}  # "hosted on" and "hosted with" are two keys
            if extra == {"written", "in"}:
                extra = set()  # "The front end is written in Vue 2" states what "The front end is Vue 3" does
        # "Tom Eriksen is Tamarack's tech lead", "PostgreSQL 16 is the primary database of Harbor": the value
        # first, the key after the copula, with "the" or a possessive (one value: not "a", "one of")
        if shape == "copula" and (held := _held(np, value + scope)):
            return held
        np += scope
        if shape != "heading" and re.search(r"[:()]", np):
            continue
        attribute = _head(np)
        if attribute in _VAGUE:  # "Harbor's problem is ...", "the idea of X is ..."
            continue
        read = _key(np, extra)
        head = "tool" if shape in ("verb", "place") else attribute  # what a thing is done with or goes to: a product
        if read is not None and (found := _value(value, read, head)):
            return found
    return None


def _held(np: str, rest: str) -> Statement | None:
    """"V is Y's X" / "V is the X of Y": ``np`` a value written whole (a name, a version), ``rest`` the key."""
    if not _HELD_KEY.match(rest):
        return None
    value = _typed(np)
    if value is None or value[0] not in ("name", "version") or value[2].strip():
        return None
    rest = _HELD_WHEN.sub("", rest)
    read = _key(rest, set())
    head = _head(rest)
    if read is None or head in _VAGUE:
        return None
    if value[0] == "name" and head not in ROLES | _TOOLS:
        return None  # a role with one holder ("tech lead", "release manager") or a tool ("bundler"), nothing else
    return Statement(read[0], value[1], value[0], _norm(value[0], value[1]), names=read[1], scoped=read[2])


def _head(np: str) -> str | None:
    """The attribute's head: the last lower-case word before "of/for" (or of the whole phrase)."""
    words = [w for w in _TOKEN.findall(np)]
    cut = next((i for i, w in enumerate(words) if w.lower() in ("of", "for", "at", "on", "in")), len(words))
    lower = [_singular(w.lower().removesuffix("'s")) for w in words[:cut] if not any(ch.isupper() for ch in w[1:])
             and w.lower() not in _DROP and not w.lower().endswith("'s")]
    return lower[-1] if lower else None


def _key(np: str, extra: set[str]) -> tuple[frozenset[str], frozenset[str], bool] | None:
    """The key's words, those of them written as names, whether it names its subject; or None when the noun
    phrase is no key (a pronoun, a list, too long or too short, no lower-case word of attribute)."""
    raw = _TOKEN.findall(np)
    if not raw or len(raw) > 12 or raw[0].lower() in _NOT_A_KEY or _LIST.search(np):
        return None
    if _PRONOUN.search(np):
        return None
    words: set[str] = set()
    names: set[str] = set()
    attribute = 0
    text = _END_OF_LIFE.sub("end-of-life", np)
    tokens = _TOKEN.findall(text)
    for i, token in enumerate(tokens):
        low = token.lower().removesuffix("'s")
        low = _SAME.get(low, low)
        if low in _DROP or not low:
            continue
        # a word written in lower case, or one capitalised only as the sentence's first before a lower-case word
        # ("Payments go through ...", "Docs are hosted on ..."; not "Tom Eriksen", "Harbor's ...")
        opening = i == 0 and token[1:].islower() and not token.endswith("'s") and (
            len(tokens) == 1 or re.fullmatch(r"[a-z][a-z-]*", tokens[1]) is not None)
        if (token.islower() or opening) and not any(ch.isdigit() for ch in token):
            low = _singular(low) if token.islower() else low  # "Kubernetes patch releases": no plural to undo
            attribute += 1
        else:
            names.add(low)
        words.add(low)
    words |= extra
    if "date" in words:
        words.discard("target")  # "the target date of X" / "X is targeted for"
    if "minimum" in words:
        words.discard("supported")  # "the minimum supported Python version": the minimum Python version
    if attribute == 0 or len(words) < 2:
        return None
    # a subject named: a possessive, or "of/for/at/in" before a name, a version or an identifier ("for
    # llvm-project"); "the head of engineering" names a role, not whose
    scoped = bool(_SCOPED.search(text))
    return frozenset(words), frozenset(names & words), scoped


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ics")):
        return word[:-1]
    return word


def _typed(text: str) -> tuple[str, str, str] | None:
    """(type, value, what follows) for the value ``text`` starts with, else None."""
    for kind, pattern in _VALUES:
        if m := pattern.match(text):
            if kind == "number" and len(text) > m.end() and text[m.end()] in ".-:":
                continue  # a version or a date written otherwise
            return kind, m.group(0).strip(), text[m.end():]
    return None


def _value(text: str, read: tuple[frozenset[str], frozenset[str], bool], head: str | None) -> Statement | None:
    """The value ``text`` states for ``key``, when it is one typed value and what follows it says nothing else."""
    text = _NOW.sub("", text.strip())
    typed = _typed(text)
    if typed is None:
        return None
    kind, value, rest = typed
    key, names, scoped = read
    if rest and not _AFTER.match(rest):
        if kind == "name" and re.match(r"\s+(?:and|or|&|/)\s", rest):
            return None  # "Laravel 8 and PHP 7.4": two values
        tail = " ".join(w.lower() for w in _TOKEN.findall(_AFTER_CUT.sub("", rest)))
        if not tail or len(tail.split()) > 6:
            return None
        return _checked(Statement(key, value, kind, _norm(kind, value), tail, names, scoped), head)
    return _checked(Statement(key, value, kind, _norm(kind, value), names=names, scoped=scoped), head)


_AFTER_CUT = re.compile(r"(?:,|\s+(?:since|after|following|as\s+of|from|starting|until)\b).*$", re.I | re.S)


def _checked(found: Statement, head: str | None) -> Statement | None:
    if found.kind == "word":
        if head not in _KINDS | _TOOLS or found.value in _DROP or found.value in _NOT_A_KEY:
            return None  # "The API is public" / "... is stable": two properties, both may hold
        if head in _TOOLS:  # "pnpm", "esbuild": a product written in lower case, comparable with "Vite"
            return Statement(found.key, found.value, "name", found.norm, found.tail, found.names, found.scoped)
    if found.kind == "name" and found.value.split()[0].lower() in _NOT_A_KEY | {"the", "a", "an"}:
        return None
    return found


def _norm(kind: str, value: str) -> str:
    low = value.lower()
    if kind == "version":
        return low.removeprefix("v")
    if kind == "path":  # "/tests", "./tests" and "tests/": one folder
        return low.removeprefix(".").strip("/")
    if kind == "number":  # "30 seconds" / "60 second": one unit
        return " ".join(_singular(w) for w in low.replace(",", ".").split())
    return re.sub(r"[\s-]+", " ", low)


def key_change(old_text: str, new_text: str, old_is_later: bool = False) -> str | None:
    """"old value -> new value" when the two texts give one key two values of one type, else None (module
    docstring). The earlier text (``new_text`` when ``old_is_later``) must make one statement, read whole; the
    later text's statements are read one by one."""
    earlier, later = (new_text, old_text) if old_is_later else (old_text, new_text)
    found = statements(earlier)
    if len(found) != 1 or found[0] is None:
        return None
    before = found[0]
    now = [s for s in statements(later) if s is not None and _same_key(before, s)]
    if not now or any(s.norm == before.norm for s in now) or len({s.norm for s in now}) > 1:
        return None
    after = now[0]
    if after.kind != before.kind or after.tail != before.tail or _refined(before, after):
        return None
    old, new = (after, before) if old_is_later else (before, after)
    return f"{old.value} -> {new.value}"


def _name_words(norm: str) -> list[str]:
    """A name's words, a word's closing digits left out where letters lead ("jinja2" as "jinja"; "vue 3" keeps
    its "3")."""
    return [w.rstrip("0123456789") if w[:1].isalpha() else w for w in norm.split()]


def _same_key(a: Statement, b: Statement) -> bool:
    """One key, or one with its subject left out ("The minimal supported Python version is 3.7" / "Osprey
    requires Python 3.8 or newer", "Grace Liu is the head of engineering" / "... of engineering at Sable"):
    the smaller key names no subject, and the words the other has more are names only, none with a digit
    ("Python 3.13's release manager" is not "the release manager": a version in the subject is the key; "the
    release manager for LLDB in llvm-project" is not the one "for llvm-project")."""
    if a.key == b.key:
        return True
    small, large = sorted((a, b), key=lambda s: len(s.key))
    more = large.key - small.key
    return (small.key < large.key and not small.scoped and more <= large.names
            and not any(ch.isdigit() for w in more for ch in w)
            and len(small.key - small.names) >= 2)


def _refined(a: Statement, b: Statement) -> bool:
    """A date made more exact ("2027-10" -> "2027-10-24"), a name said in full, or a number with another unit: no
    change read."""
    if a.kind == "date":
        return a.norm.startswith(b.norm) or b.norm.startswith(a.norm)
    if a.kind == "number":
        return a.norm.split(" ", 1)[1:] != b.norm.split(" ", 1)[1:]
    if a.kind == "name":  # "Grafana" / "Grafana Labs", "PostgreSQL" / "PostgreSQL 16", "Jinja2" / "Jinja": one name
        short, long = sorted((_name_words(a.norm), _name_words(b.norm)), key=len)
        return long[: len(short)] == short
    return False
