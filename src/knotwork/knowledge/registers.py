"""Readings of the ways documentation, issue threads and chat state facts that a verb clause does not.

The clause readings of :mod:`knotwork.knowledge.parse` find "X uses Y"; the corpus' dev half
(``bench/extraction_misses.py``) showed facts stated without such a clause, frequent in these registers:

- a glossary line, "`clai/`: CLI tool", "`httpcore` - The underlying transport implementation for
  `httpx`", "uv (fast Python package manager)": X is_a the head noun with its noun modifiers ("CLI
  tool"), only when that head is a kind of software part (``KINDS``); "`h11` - HTTP/1.1 support": X
  supports HTTP/1.1;
- "X has support for A and B": X supports A, B (named things only; "no support for" is over);
- an environment line of a bug report, "Python Version: 3.10.12", "MacOS: 11.3": a version in use;
- "I am a student at X": where the person studies; "Rock is my favorite genre": favorite_genre; "`make install` (requires uv and deno)": depends_on;
- "I like the songs of X", "I love the album X", "I'm an X fan": the person likes X;
- "Bump temporalio to 1.17.0", "Upgrade embedded setuptools to `61.0.0` from `60.10.0` and pip to `22.3`" (a
  changelog line, read before the check for orders; one fact per name), "Master is on V8
  6.5", "V8 6.6 landed on master": a version in use;
- a dependency line of a package manifest, '"express": "^5.1.0"': a version in use;
- "I've been using the latest version of yarn": uses yarn (not "version");
- changelog wording about code: "the deprecated `X`" (status deprecated; over when the sentence removes
  it: "removed", or a changelog's "Remove deprecated `X`"), "`X` is now `Y`" (renamed_to), "`X` no
  longer exists" (status removed);
- "I'm from Lexington Software": works_at, when the name ends in a word for an organisation.

Each is a candidate like any other: the fact scorer (:mod:`knotwork.knowledge.scorer`) decides what is
stored, by the rule name each carries (``parse:glossary``, ``parse:support-for``, ``parse:env-version``,
``parse:student-at``, ``parse:likes-whose``, ``parse:bump``, ``parse:manifest``, ``parse:on-release``,
``parse:name-from-org``). Cheap: a regular expression and a walk over the sentence's tokens.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from knotwork.knowledge import described as _described
from knotwork.knowledge import ends as _ends
from knotwork.knowledge import observed as _observed
from knotwork.knowledge import shapes as _shapes
from knotwork.knowledge.lexicon import COMMON, TECH
from knotwork.knowledge.models import Extraction, FactDraft
from knotwork.knowledge.people import given_names

USER = "User"
TEAM = "Team"

#: Heads of a glossary line's noun phrase that say what kind of software part X is. Count nouns only: a crate is not
#: "an infrastructure" ("`uv-cache`: Global cache infrastructure" states nothing).
KINDS = frozenset(
    """tool framework library engine system service package manager client server layer module interface class
    decorator implementation database runtime compiler parser formatter linter monorepo workspace
    protocol plugin extension wrapper driver toolkit crate component app application utility helper backend
    frontend cli sdk editor language platform orchestrator generator checker bundler""".split()
)
#: "`X`: ...", "X - ...", "X — ...": a name, then a colon or a spaced dash, then the description.
_GLOSSARY = re.compile(r"^\s*(?:[-*+]\s+)?(?P<x>`[^`]{1,80}`|[\w@./:-]{2,60})\s*(?P<sep>:\s|\s[-–—]\s)\s*(?P<rest>\S.*)$")
#: "X (fast Python package manager)" after a colon, "Ruff (a Python linter)" anywhere: the parenthesis describes X.
_PAREN = re.compile(r"(?P<x>`[^`]{1,80}`|[\w@./-]{2,60})\s+\((?P<a>an?\s+)?(?P<rest>[^()]{3,80})\)")
#: "The deprecated `proxies` argument": a status said in passing (over when the sentence removes it).
_DEPRECATED = re.compile(r"\bdeprecated\s+(?P<x>`[^`]{1,80}`)")
#: A sentence that removes what it names, in any tense or the imperative of a changelog line ("has been removed",
#: "Removed ...", "Remove deprecated `--find-links` option", "Drop the deprecated `X`"): the deprecation it
#: names in passing is over, never current ("drop-in" is no removal).
_REMOVAL = re.compile(r"\b(?:remov(?:e|es|ed|ing|al)|drop(?:s|ped|ping)?|delet(?:e|es|ed|ing|ion))\b(?!-)",
                      re.IGNORECASE)
#: "The `allow_redirects` flag is now `follow_redirects`", "`httpx.ResponseClosed` is now named `httpx.StreamClosed`".
_RENAMED = re.compile(r"(?P<x>`[^`]{1,80}`)(?:\s+[a-z]+)?\s+(?:is|are)\s+now\s+(?:named\s+|called\s+)?(?P<y>`[^`]{1,80}`)")
#: "The `URLLib3Transport` class no longer exists."
_GONE = re.compile(r"(?P<x>`[^`]{1,80}`)(?:\s+[a-z]+)?\s+no\s+longer\s+exists\b")
_ENV = re.compile(r"(?:^|[-,;|)]\s*|\s)(?P<name>[A-Z][\w.+]*(?:\s[A-Z][\w.+]*)?)(?:\s[Vv]ersion)?\s*:\s*v?"
                  r"(?P<v>\d+(?:\.\d+)+)(?!\w|\.\d)")
#: A changelog or commit line that records a version change: "Bump temporalio to 1.17.0 (#2811)".
#: "Upgrade embedded setuptools to `60.9.3` from `60.6.0`", "Upgrade embedded wheel pip to `25.2`": a copy of X
#: shipped inside the project (embedded, vendored, bundled; "wheel" there is the package's form, unless it is X).
_VERSION_TO = r"\s+to\s+(?:version\s+)?`?(?P<v>(?:[<>=~^]=?)?v?\d+(?:\.\d+)*)`?(?!\w|\.\d)(?!`?\s*,\s*`?\d)"
_BUMP = re.compile(r"^\s*(?:[-*]\s+)?(?:Bump(?:ed)?|Pin(?:ned)?|Upgrade[d]?|Update[d]?|Downgrade[d]?)\s+(?:the\s+)?"
                   r"(?:(?:embedded|vendored|bundled)\s+(?:wheels?:?\s+)?)?`?"
                   r"(?P<name>[A-Za-z@][\w.@/+-]*)`?(?:\s+(?:dependency|package|crate|version))?"
                   # "Upgrade pip for Python `2.7` and `3.5+` from …": whose copy, not another name's version
                   r"(?:\s+for\s+[A-Z][\w.]*(?:\s+`?[\w.+]+`?(?:\s+and\s+`?[\w.+]+`?)?)?(?=\s+from\s))?"
                   r"(?:\s+from\s+(?:version\s+)?\S+)?" + _VERSION_TO)
#: After a bump, "… and setuptools to `63.2.0` from `62.6.0`": another name's new version on the same line
#: (a list of versions, "to `82.0.0`, `75.3.4`", one per Python, names none).
_FROM_OLD = re.compile(r"\s+from\s+(?:version\s+)?`?[\w.+-]+`?")
_AND_BUMP = re.compile(r"\s+and\s+`?(?P<name>[A-Za-z@][\w.@/+-]*)`?(?:\s+from\s+(?:version\s+)?\S+)?" + _VERSION_TO)
#: "Master is on V8 6.5", "now on v8 6.9", "V8 6.6 landed today on master", "1.1.1 now in master", "finally landed
#: V8 10.7": a release in use.
_ON_RELEASE = re.compile(r"\b(?:on|landed)\s+(?P<name>[A-Za-z][\w+-]*)\s+v?(?P<v>\d+(?:\.\d+)+)(?!\w|\.\d)"
                         r"|(?P<name2>[A-Za-z][\w+-]*)\s+v?(?P<v2>\d+(?:\.\d+)+)\s+(?:\w+\s+)?(?:landed|(?:is\s+)?in\s+master)\b")
#: Last words of an organisation's name: "I'm from Lexington Software" is where the person works, not comes from.
_ORG_WORDS = frozenset("software company co corp corporation inc ltd llc bank group labs technologies systems "
                       "solutions consulting agency studio studios".split())
#: Words before "X: 1.2" that head a line, not name a thing at that version ("Toolchain: 1.90 (minimum: 1.88)",
#: "Versions: 3.8-3.14", "Edition: 2024"), beside the words of a report's template ("OS", "App", "Device").
_HEADINGS = frozenset("""version versions app application os system device note toolchain edition release releases
    minimum maximum min max build channel target targets tag stable latest current range""".split())
_STUDENT = frozenset("student pupil undergraduate postgraduate freshman sophomore".split())


#: Subjects that hold nothing: "This PR migrates from Webpack to Vite" records a change with no holder (GUIDE.md).
_HOLDERLESS = frozenset("pr prs pull request pull requests commit commits patch change changes diff".split(" ")) | {
    "pull request", "pull requests"}


def holderless(subject: str) -> bool:
    """Whether a fact's subject is a change request or a commit rather than what holds the value."""
    return subject.casefold().removeprefix("this ").removeprefix("the ") in _HOLDERLESS


def _draft(subj: tuple[str, str | None], predicate: str, obj: tuple[str, str | None], how: str,
           past: bool = False) -> FactDraft | None:
    if predicate != "uses_version":
        subj, obj = _ends.unversioned(subj), _ends.unversioned(obj)
    if not obj[0] or not subj[0] or subj[0].casefold() == obj[0].casefold():
        return None
    return FactDraft(subj[0], predicate, obj[0], subject_type=subj[1], object_type=obj[1], past=past,
                     rule=f"parse:{how}")


def _span_named(names: Any, start: int, end: int) -> tuple[str, str | None] | None:
    """The regex name span covering sentence characters [start, end) whole (give or take a quote)."""
    inside = [s for s in names.spans if s.start <= start + 1 and s.end >= end - 1 and s.end - s.start <= end - start]
    if not inside:
        return None
    span = max(inside, key=lambda s: s.end - s.start)
    return span.name, span.type


def _kind_phrase(toks: list[Any]) -> tuple[Any, str] | None:
    """The first noun phrase of a description: its head and "noun modifiers + head" ("CLI tool")."""
    for tok in toks:
        if tok.pos_ in ("NOUN", "PROPN") and tok.dep_ not in ("compound", "nmod", "amod", "poss"):
            mods = [c for c in tok.subtree if c.i < tok.i and c.dep_ in ("compound", "nmod") and c.pos_ in ("NOUN", "PROPN")]
            lo = max(min([c.i for c in mods], default=tok.i), toks[0].i)
            words = [t.text for t in tok.doc[lo : tok.i + 1] if t.i == tok.i or (
                t.dep_ in ("compound", "nmod") and t.pos_ in ("NOUN", "PROPN") and t.doc[t.i - 1].text != "-")]
            return tok, " ".join(words)
        if tok.pos_ in ("VERB", "AUX", "ADP") and tok.i > toks[0].i:
            return None  # "`run()`: starts the agent": a verb phrase, not a kind
        if tok.i == toks[0].i and tok.tag_ == "VB" and tok.text.islower():
            return None  # "util: add parseArgs module": a commit line's verb, not a kind
    return None


#: A package name as a glossary line writes it, lower case ("tokio", "csv-parse", "music-metadata").
_PACKAGE = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")
#: Words that may head a kind in a glossary line besides ``KINDS``, mass nouns a count-noun test would miss.
_RUN_KINDS = KINDS | frozenset("middleware environment store checker".split())
#: Words that praise rather than classify: left out of the kind ("Fast JavaScript bundler": JavaScript bundler).
_PRAISE = frozenset("fast modern simple lightweight small powerful popular minimal robust new blazing tiny".split())
#: Where a glossary line's leading noun run ends ("Async runtime for handling ...").
_RUN_END = frozenset("for with used to that which of in on from and or by via , . ; ( : -".split())


def _kind_run(toks: list[Any]) -> tuple[Any, str] | None:
    """The kind a glossary line's description starts with when the parse misreads it ("tokio: Async runtime for
    ...", "Async" read as a subject; "clippy: Linting tool for ...", "Linting" as a verb): the leading run of words
    up to a preposition or a clause, whose last word is a kind of software part; praise before it is left out.
    None when the description starts with a determiner, a pronoun or a finite verb ("The entire application is
    written in Rust"), or the run is longer than a noun phrase."""
    run: list[Any] = []
    for tok in toks:
        if tok.lower_ in _RUN_END:
            break
        run.append(tok)
    if not run or len(run) > 4 or run[0].pos_ in ("DET", "PRON", "AUX", "ADP") or any(
            t.tag_ in ("VBZ", "VBD", "VBP", "MD") for t in run) or any(t.tag_ == "POS" for t in run):
        return None
    head = run[-1]
    if head.lower_ not in _RUN_KINDS:
        return None
    while len(run) > 1 and run[0].lower_ in _PRAISE:
        run = run[1:]
    return head, " ".join(t.text for t in run)


def _glossary(sent: Any, names: Any, out: Extraction) -> None:
    text = sent.text
    m = _GLOSSARY.match(text)
    found = []
    if m:
        found.append((m.start("x"), m.end("x"), m.start("rest"), len(text)))
    for p in _PAREN.finditer(text):
        if p.group("a") or p.start() == 0 or text[: p.start()].rstrip().endswith(":"):
            found.append((p.start("x"), p.end("x"), p.start("rest"), p.end("rest")))
    base = sent.start_char
    for p in _PAREN.finditer(text):  # "`make install` (requires uv, pre-commit, and deno)"
        need = re.match(r"(?:requires|needs)\s", p.group("rest"))
        x = _span_named(names, p.start("x"), p.end("x")) if need else None
        for span in [s for s in names.spans if x and p.start("rest") + need.end() <= s.start and s.end <= p.end("rest")]:
            f = _draft(x, "depends_on", (span.name, span.type), "paren-requires")
            if f:
                out.facts.append(f)
    for xs, xe, rs, re_ in found:
        if re.search(r"[\[\](){},<>]", text[xs:xe]):
            continue  # "`Agent[AgentDepsT, OutputDataT]`: Main orchestrator class": a code expression names no one thing
        x = _span_named(names, xs, xe)
        one = [t for t in sent if xs <= t.idx - base < xe]
        if x is None and len(one) == 1 and one[0].pos_ == "PROPN":  # "ty (a Python type checker)"
            x = (one[0].text, None)
        lead = m is not None and xs == m.start("x")
        if x is None and lead and _PACKAGE.fullmatch(text[xs:xe].strip("`")) and text[xs:xe].strip("`") not in COMMON:
            x = (text[xs:xe].strip("`"), None)  # "clippy: Linting tool for ...": a package name heads the line
        if x is None:
            continue
        toks = [t for t in sent if rs <= t.idx - base < re_]
        kind = _kind_phrase(toks)
        # a line that opens with its kind: the leading words, as written ("Linting tool", not the parse's "tool")
        ran = _kind_run(toks) if lead and toks and (kind is None or kind[0].lemma_.lower() != "support") else None
        kind = ran or kind
        if kind is None:
            continue
        head, phrase = kind
        if head.lemma_.lower() == "support":  # "`h11` - HTTP/1.1 support."
            for c in head.subtree:
                if c.i < head.i and c.dep_ in ("compound", "nmod", "amod"):
                    n = _span_named(names, c.idx - base, c.idx - base + len(c))
                    if n and c.i == toks[0].i and re.fullmatch(r"[A-Z][a-z]+", c.text) and c.i + 1 < head.i:
                        break  # "Internationalized domain name support": a word capitalised as the line's first,
                        # the first of a longer object; the whole object or nothing, never "supports Internationalized"
                    if n:
                        f = _draft(x, "supports", n, "glossary-support")
                        if f:
                            out.facts.append(f)
                        break
            continue
        if ran is not None or head.lemma_.lower() in KINDS and head.tag_ != "NNS":
            f = _draft(x, "is_a", (phrase, None), "glossary")
            if f:
                out.facts.append(f)


def _support_for(sent: Any, names: Any, out: Extraction) -> None:
    """"X has support for A and B", "X added support for A"."""
    for tok in sent:
        if tok.lemma_.lower() != "support" or tok.dep_ != "dobj" or tok.head.lemma_ not in ("have", "add", "include"):
            continue
        verb = tok.head
        subjects = [c for c in verb.children if c.dep_ == "nsubj"]
        if not subjects:
            continue
        subj = names.name(subjects[0])
        if not subj:
            continue
        past = any(c.dep_ == "neg" for c in verb.children) or any(c.lower_ == "no" for c in tok.children)
        for prep in tok.children:
            if prep.dep_ != "prep" or prep.lower_ != "for":
                continue
            stack = [c for c in prep.children if c.dep_ == "pobj"]
            while stack:
                o = stack.pop()
                stack += [c for c in o.children if c.dep_ == "conj"]
                n = names.name(o) if (o.pos_ == "PROPN" or names.span_at(o.idx - sent.start_char,
                                                                          o.idx - sent.start_char + len(o))) else None
                f = _draft(subj, "supports", n, "support-for", past) if n else None
                if f:
                    out.facts.append(f)


def _environment(sent: Any, names: Any, out: Extraction) -> None:
    """"OS: Ubuntu 22.04 - Python Version: 3.10.12": the versions of a report's environment."""
    if sent.text.count(":") < 1:
        return
    for m in _ENV.finditer(sent.text):
        name = re.sub(r"\s[Vv]ersion$", "", m.group("name"))
        if name.lower() in _HEADINGS:
            continue
        span = names.span_at(m.start("name"), m.end("name"))
        if span is None and not name[:1].isupper():
            continue
        if (span is not None and span.type == "person") or (
                name.casefold() in given_names() and name.casefold() not in TECH):
            continue  # "Marco: 20.18.1 just released": a speaker's name before the colon, not what is at 20.18.1
        f = _draft((name, "technology"), "uses_version", (m.group("v"), "version"), "env-version")
        if f:
            out.facts.append(f)


def _favorite_is(sent: Any, names: Any, out: Extraction) -> None:
    """"Rock is my favorite genre", "Berlin, which is my favorite city": favorite_<noun>."""
    for tok in sent:
        if tok.dep_ != "attr" or tok.head.lemma_ != "be" or tok.pos_ != "NOUN":
            continue
        mods = {c.lower_ for c in tok.children}
        if not ({"favorite", "favourite"} & mods and "my" in mods):
            continue
        verb = tok.head
        subj_tok = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj_tok is not None and subj_tok.lower_ == "which" and verb.dep_ == "relcl":
            subj_tok = verb.head  # "Berlin which is my favorite city"
        if subj_tok is None or subj_tok.pos_ != "PROPN" or any(c.dep_ == "neg" for c in verb.children):
            continue
        n = names.name(subj_tok)
        f = _draft((USER, "person"), f"favorite_{tok.lemma_.lower()}", n, "favorite-is") if n else None
        if f:
            out.facts.append(f)


def _student_at(sent: Any, names: Any, out: Extraction) -> None:
    """"I am a student at/in Cambridge University": studies_at."""
    for tok in sent:
        if tok.lemma_.lower() not in _STUDENT or tok.dep_ != "attr" or tok.head.lemma_ != "be":
            continue
        subj = next((names.name(c) for c in tok.head.children if c.dep_ == "nsubj"), None)
        if not subj or subj[0] == TEAM:
            continue
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ in ("at", "in", "of"):
                for o in prep.children:
                    if o.dep_ == "pobj" and o.pos_ == "PROPN":
                        n = names.name(o)
                        f = _draft(subj, "studies_at", n, "student-at") if n else None
                        if f:
                            out.facts.append(f)


_WORKS = frozenset("song songs music movie movies film films book books album albums show shows work works".split())
_LIKE = frozenset("like love enjoy adore".split())


def _likes_whose(sent: Any, names: Any, out: Extraction) -> None:
    """"I like the songs of Justin Bieber", "I love the album Sex Rock", "I'm a Shawn Mendes fan": the named
    artist or work is what the person likes (not "songs")."""
    for tok in sent:
        subj_tok = next((c for c in tok.head.children if c.dep_ == "nsubj"), None)
        if subj_tok is None or any(c.dep_ == "neg" for c in tok.head.children):
            continue
        named: list[Any] = []
        if tok.dep_ == "dobj" and tok.head.lemma_ in _LIKE and tok.lower_ in _WORKS:
            named = [c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
            named += [q for p in tok.children if p.dep_ == "prep" and p.lower_ in ("of", "by", "from")
                      for q in p.children if q.dep_ == "pobj" and q.pos_ == "PROPN"]
            named += [a for p in tok.children if p.dep_ == "prep" and p.lower_ == "from" for q in p.children
                      if q.dep_ == "pobj" and q.lower_ in _WORKS for a in q.children if a.dep_ == "appos"]
        elif tok.dep_ == "attr" and tok.head.lemma_ == "be" and tok.lower_ == "fan":
            named = [c for c in tok.children if c.dep_ == "compound" and c.pos_ == "PROPN"][-1:]
        subj = names.name(subj_tok) if named else None
        if not subj or subj[0] != USER:
            continue
        for n in named:
            name = names.name(n)
            if name and name[0].split(" ", 1)[0].lower() in _WORKS and " " in name[0]:
                name = (name[0].split(" ", 1)[1], name[1])  # "the album Loud": Loud
            f = _draft(subj, "likes", name, "likes-whose") if name else None
            if f:
                out.facts.append(f)


def _version_of(sent: Any, names: Any, out: Extraction) -> None:
    """"I've been using the latest version of yarn and node v21": the person uses yarn and node."""
    for tok in sent:
        if tok.lemma_.lower() != "version" or tok.dep_ != "dobj" or tok.head.lemma_ != "use":
            continue
        verb = tok.head
        subj_tok = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        subj = names.name(subj_tok) if subj_tok is not None else None
        if not subj or any(c.dep_ == "neg" for c in verb.children):
            continue
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ == "of":
                stack = [c for c in prep.children if c.dep_ == "pobj"]
                while stack:
                    o = stack.pop()
                    stack += [c for c in o.children if c.dep_ == "conj"]
                    n = names.name(o)
                    f = _draft(subj, "uses", n, "version-of") if n else None
                    if f:
                        out.facts.append(f)


def _release(sent: Any, names: Any, out: Extraction) -> None:
    """"Master is on V8 6.5", "V8 6.6 landed on master": the named thing is at that version."""
    for m in _ON_RELEASE.finditer(sent.text):
        name, v = (m.group("name"), m.group("v")) if m.group("name") else (m.group("name2"), m.group("v2"))
        named = names.span_at(m.start("name" if m.group("name") else "name2"), m.end("name" if m.group("name") else "name2"))
        if named is None and not re.search(r"[A-Z]|\d", name):
            continue
        f = _draft((name, "technology"), "uses_version", (v, "version"), "on-release")
        if f:
            out.facts.append(f)


def _from_org(out: Extraction, before: int) -> None:
    """"I'm from Lexington Software": works_at when the place's last word names an organisation."""
    for i in range(before, len(out.facts)):
        f = out.facts[i]
        if f.predicate == "from" and f.object.split()[-1].lower().strip(".") in _ORG_WORDS and len(f.object.split()) > 1:
            out.facts[i] = FactDraft(f.subject, "works_at", f.object, subject_type=f.subject_type,
                                     object_type=f.object_type, past=f.past, rule=f.rule + "/org")


def _name_from_org(sent: Any, names: Any, out: Extraction) -> None:
    """"I am James Pond from FAM Company": the parse hangs "from" on the name, not on "am" (where the be-prep
    reading finds "I'm Sara from Acme Corp"); the place named after it works as that reading's does: an
    organisation's name (its last word in ``_ORG_WORDS``) is where the writer works."""
    for verb in sent:
        if verb.lemma_ != "be" or verb.dep_ != "ROOT" or verb.tag_ not in ("VBP", "VBZ") or not any(
                c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children) or any(c.dep_ == "neg" for c in verb.children):
            continue
        for attr in (c for c in verb.children if c.dep_ == "attr" and c.pos_ == "PROPN"):
            for org in (o for p in attr.children if p.dep_ == "prep" and p.lower_ == "from"
                        for o in p.children if o.dep_ == "pobj"):
                n = names.name(org)
                if n and len(n[0].split()) > 1 and n[0].split()[-1].lower().strip(".") in _ORG_WORDS:
                    f = _draft((USER, "person"), "works_at", n, "name-from-org")
                    if f:
                        out.facts.append(f)


def _code_words(sent: Any, names: Any, out: Extraction) -> None:
    """Changelog wording about a piece of code: "the deprecated `X`", "`X` is now `Y`", "`X` no longer exists"."""
    text = sent.text
    removed = _REMOVAL.search(text) is not None
    for m in _DEPRECATED.finditer(text):
        x = _span_named(names, m.start("x"), m.end("x"))
        f = _draft(x, "status", ("deprecated", "status"), "deprecated-x", removed) if x else None
        if f:
            out.facts.append(f)
    for m in _RENAMED.finditer(text):
        x, y = _span_named(names, m.start("x"), m.end("x")), _span_named(names, m.start("y"), m.end("y"))
        f = _draft(x, "renamed_to", y, "now-named") if x and y else None
        if f:
            out.facts.append(f)
    for m in _GONE.finditer(text):
        x = _span_named(names, m.start("x"), m.end("x"))
        f = _draft(x, "status", ("removed", "status"), "no-longer-exists") if x else None
        if f:
            out.facts.append(f)


def _removed_ends_deprecated(out: Extraction, before: int) -> None:
    """"`X` was deprecated and has been removed": a sentence that states X removed states its deprecation as over
    (the guide's "F removed, R deprecated"), whichever reading found the deprecation."""
    gone = {f.subject for f in out.facts[before:] if f.predicate == "status" and f.object.casefold() == "removed"
            and not f.past}
    for i in range(before, len(out.facts)):
        f = out.facts[i]
        if f.subject in gone and f.predicate == "status" and f.object.casefold() == "deprecated" and not f.past:
            out.facts[i] = replace(f, past=True)


#: A dependency line of a package manifest ("express": "^5.1.0"): the package at that version (the range's
#: floor: "^5.1.0" allows later minors, but 5.1.0 is the one the notes name).
_MANIFEST = re.compile(r'^\s*"(?P<name>@?[A-Za-z][\w.-]*(?:/[\w.-]+)?)"\s*:\s*'
                       r'"[\^~]?v?(?P<v>\d+(?:\.\d+){1,3})"\s*,?\s*$')

#: A manifest's own fields, whose value is the project's, not a dependency's ("version": "1.0.0").
_MANIFEST_FIELDS = frozenset("version name description main license type private module types".split())


def read_line(sent: Any, out: Extraction) -> None:
    """Before the check for orders: a changelog line in the imperative records a change that was made; a
    manifest's dependency line, the version in use."""
    dep = _MANIFEST.match(sent.text)
    dep = dep if dep and dep.group("name").lower() not in _MANIFEST_FIELDS else None
    f = _draft((dep.group("name"), "technology"), "uses_version", (dep.group("v"), "version"), "manifest") \
        if dep else None
    if f:
        out.facts.append(f)
    m = _BUMP.match(sent.text)
    found = [m] if m else []
    while found:  # "… to `22.2` from `22.1.2` and setuptools to `63.2.0` from `62.6.0`"
        at = found[-1].end()
        old = _FROM_OLD.match(sent.text, at)
        more = _AND_BUMP.match(sent.text, old.end() if old else at)
        if not more:
            break
        found.append(more)
    for m in found:
        f = _draft((m.group("name"), "technology"), "uses_version", (m.group("v"), "version"), "bump")
        if f:
            out.facts.append(f)


def read(sent: Any, names: Any, out: Extraction, before: int = 0) -> None:
    """The facts of one parsed sentence that these readings find (appended to ``out``)."""
    _glossary(sent, names, out)
    _support_for(sent, names, out)
    _environment(sent, names, out)
    _student_at(sent, names, out)
    _likes_whose(sent, names, out)
    _favorite_is(sent, names, out)
    _release(sent, names, out)
    _version_of(sent, names, out)
    _code_words(sent, names, out)
    _name_from_org(sent, names, out)
    _observed.read(sent, names, out)  # "Melanie has a dog named Luna", "Tim's favorite book is Harry Potter"
    _described.read(sent, names, out)  # "Biome is a Rust-based monorepo", "X, a small Rust binary,"
    _shapes.read(sent, names, out, before)  # "our cat Biscuit", "X is a Python script", "the redesign shipped"
    _removed_ends_deprecated(out, before)
    _from_org(out, before)
    # "The `Headers.getlist()` method had been deprecated … It is now fully removed.": "it" in the next
    # sentence is the one piece of code this one stated a fact about
    code = {f.subject for f in out.facts[before:] if f.subject_type in ("identifier", "function", "file")}
    if len(code) == 1:
        names.state["thing"] = code.pop()
