"""Offline extraction: entities and facts from text by deterministic rules.

No model, no network: regular expressions over each sentence. Precision
comes first — a rule fires only on shapes that are nearly always names
(code identifiers, paths, URLs, handles, tags, quoted terms, well-known
technology names, capitalised names away from the start of a sentence) and
a fact needs a relational phrase between two such names (or "I"/"we").

1. Entity spans, strongest rule first; a span never overlaps a stronger one.
2. Each span is replaced by a placeholder, so the fact patterns read
   ``<E1> uses <E2>`` whatever the names looked like.
3. Relational patterns turn placeholders, "I" (the ``User`` entity), "we"
   (the ``Team`` entity) and a few noun phrases into facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from knotwork.knowledge import mentions, outside, scorer
from knotwork.knowledge.sentences import sentences
from knotwork.knowledge.carry import resolve_relatives
from knotwork.knowledge.ends import hosted
from knotwork.knowledge.lists import distribute
from knotwork.knowledge.shapes import kin_names
from knotwork.knowledge.lexicon import (COMMON, GENERIC_ACRONYMS, MULTIWORD_TECH, ORDER_WORDS, PLACES, RELATIVES,
                                        STOP_AFTER, TECH)
from knotwork.knowledge.models import EntityDraft, Extraction, FactDraft
from knotwork.knowledge.nlp import pipeline
from knotwork.knowledge.parse import NOT_NAMES, read
from knotwork.knowledge.vocabulary import fit

USER = "User"
TEAM = "Team"
BATCH = 64  # texts per parser batch
#: Confidence of a fact whose ends both fit its predicate, by what found it: a reading of the dependency
#: parse, or a regular-expression pattern (which sees neither negation scope nor clause structure).
PARSER_CONFIDENCE = 0.9
RULES_CONFIDENCE = 0.75

_CODE_NOUNS = (
    "module service api app backend frontend project repo repository server client worker pipeline job database "
    "cache library package component function class script tool cli bot website site dashboard team endpoint panel"
    " exporter importer scheduler monorepo office view page engine generator controller handler gateway layer store"
    " queue cluster bucket database db client worker consumer producer parser"
).split()


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    name: str
    type: str | None
    rank: int  # lower wins an overlap


def _tech(word: str) -> str | None:
    return TECH.get(word.lower().rstrip("."))


# -- entity rules, strongest first ------------------------------------------------

_URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]]+")
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b")
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_PATH = re.compile(
    r"(?<![\w/.@:-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*[A-Za-z][\w-]*\.[A-Za-z]\w{0,5}\b"
    r"|(?<![\w/.@:-])(?:~|\.{1,2})/[\w.-]+(?:/[\w.-]+)*/?"
    r"|(?<![\w/.@:-])(?!(?:and/or|read/write|either/or|on/off|yes/no|input/output|client/server)\b)[a-z][\w.-]+(?:/[\w.-]+)+/?"
    r"|(?<![\w/.@:-])[\w-]+\.(?:py|pyi|js|mjs|ts|tsx|jsx|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|md|json|ya?ml|toml|ini"
    r"|cfg|conf|sql|sh|txt|csv|html|css|scss|lock|env|proto|ipynb|xml|gradle)\b"
)
_FUNC = re.compile(r"(?<![\w.])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\(\)")
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w(])")
_MULTI_TECH = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(MULTIWORD_TECH, key=len, reverse=True)) + r")\b",
                         re.IGNORECASE)
_MENTION = re.compile(r"(?<![\w.@])@([A-Za-z][\w-]{1,38})")
_HASHTAG = re.compile(r"(?<![\w&#])#([A-Za-z][\w-]{1,49})")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,40})[\"”]|(?<![\w])'([^'\n]{2,40})'(?!\w)")
_CAMEL = re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+)\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,5}\b")
_WORD = re.compile(r"[A-Za-z][\w.+#-]*[\w+#]|[A-Za-z]")
# Upper- and lower-case letters beyond ASCII ("Zoë", "Łukasz", "Škoda"): Python's re has no \p{Lu}.
_UP = "A-Z" + "".join(chr(c) for c in range(0xC0, 0x2000) if chr(c).isupper())
_LO = "a-z" + "".join(chr(c) for c in range(0xC0, 0x2000) if chr(c).islower())
_NAME_WORD = rf"[{_UP}][{_UP}{_LO}0-9'’&-]*(?:\.[{_UP}{_LO}]+)*\+*"
_CAPS = re.compile(
    rf"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s+)?(?<![\w'’]){_NAME_WORD}"
    rf"(?:\s+(?:(?:of|de|van|von|der|da|la|du|del|dos|das|le)\s+)?{_NAME_WORD})*(?:\s+\d{{1,3}}\b(?![.,]\d))?"
)


def _strip_possessive(text: str) -> str:
    return re.sub(r"['’]s$", "", text)


def _is_sentence_start(sentence: str, pos: int) -> bool:
    return not sentence[:pos].strip(" \"'“(`[*-")


def entity_spans(sentence: str) -> list[Span]:
    found: list[Span] = []

    def add(start: int, end: int, name: str, type_: str | None, rank: int) -> None:
        name = name.strip()
        if name:
            found.append(Span(start, end, name, type_, rank))

    for m in _URL.finditer(sentence):
        url = m.group().rstrip(".,;:!?")
        add(m.start(), m.start() + len(url), url, "url", 0)
    for m in _TICKET.finditer(sentence):
        add(m.start(), m.end(), m.group(), "reference", 1)
    for m in _BACKTICK.finditer(sentence):
        inner = m.group(1).strip().removesuffix("()")
        if inner and len(inner.split()) <= 4:
            add(m.start(), m.end(), inner, "identifier", 1)
    for m in _PROVIDER_MODEL.finditer(sentence):  # "openai:gpt-4o": a provider's model, one name
        add(m.start(), m.end(), m.group(), "identifier", 2)
    for m in _PATH.finditer(sentence):
        text = m.group().rstrip(".")
        if text.count("/") or "." in text:
            add(m.start(), m.start() + len(text), text, "file", 2)
    for m in _FUNC.finditer(sentence):
        add(m.start(), m.end(), m.group(1), "function", 3)
    for m in _DOTTED.finditer(sentence):
        parts = m.group().split(".")
        if all(len(p) >= 2 for p in parts) and max(len(p) for p in parts) >= 3:
            tech = _tech(m.group())
            add(m.start(), m.end(), tech or m.group(), "technology" if tech else "identifier", 4)
    for m in _MULTI_TECH.finditer(sentence):
        add(m.start(), m.end(), MULTIWORD_TECH[m.group().lower()], "technology", 4)
    for m in _MENTION.finditer(sentence):
        add(m.start(), m.end(), "@" + m.group(1), "person", 4)
    for m in _HASHTAG.finditer(sentence):
        add(m.start(), m.end(), "#" + m.group(1), "tag", 4)
    for m in _QUOTED.finditer(sentence):
        inner = (m.group(1) or m.group(2) or "").strip()
        words = inner.split()
        if 1 <= len(words) <= 4 and not inner.endswith((".", "?", "!", ",")) and any(c.isalpha() for c in inner):
            add(m.start(), m.end(), inner, "concept", 5)
    for m in _CAMEL.finditer(sentence):
        tech = _tech(m.group())
        add(m.start(), m.end(), tech or m.group(), "technology" if tech else "identifier", 6)
    for m in _SNAKE.finditer(sentence):
        add(m.start(), m.end(), m.group(), "identifier", 6)
    for m in _WORD.finditer(sentence):
        word = m.group().rstrip(".")
        tech = _tech(word)
        if tech:
            add(m.start(), m.start() + len(word), tech, "technology", 7)
    for m in _ACRONYM.finditer(sentence):
        if m.group() not in GENERIC_ACRONYMS and not sentence.isupper():
            add(m.start(), m.end(), m.group(), "organization" if len(m.group()) > 2 else None, 8)
    for m in _CAPS.finditer(sentence):
        _caps_run(sentence, m.start(), m.group(), add)
    for m in _LOWER_PLACE.finditer(sentence):  # "i live in utah": a known place after a preposition of place
        words = m.group("p").split()
        place = next((" ".join(words[:n]) for n in (3, 2, 1) if " ".join(words[:n]) in PLACES), None)
        if place:
            add(m.start("p"), m.start("p") + len(place), place, None, 9)

    chosen: list[Span] = []
    for span in sorted(found, key=lambda s: (s.rank, -(s.end - s.start), s.start)):
        if all(span.end <= c.start or span.start >= c.end for c in chosen):
            chosen.append(span)
    out = []
    for span in sorted(chosen, key=lambda s: s.start):
        number = _MODEL_NUMBER.match(sentence, span.end) if span.rank >= 6 else None
        if number and not any(c.start < number.end() and c.end > span.end for c in chosen):
            span = Span(span.start, number.end(), span.name + number.group(), span.type, span.rank)
        out.append(span)
    return out


#: "provider:model" ("openai:gpt-4o", "google:gemini-1.5-pro"): letters, a colon, then a name with a letter and a
#: digit ("proxy:8080", "node:test", "user:pass" are not such names).
_PROVIDER_MODEL = re.compile(r"(?<![\w/:.@-])[a-z][a-z0-9]{2,}:(?=[\w.-]*[a-z])(?=[\w.-]*\d)[a-z0-9][\w.-]*[a-z0-9]")
#: A lower-case word or three after a preposition of place; kept when they are a known place (lexicon.PLACES).
_LOWER_PLACE = re.compile(r"\b(?:in|to|from|near|around|outside|of)\s+(?=[a-z])(?P<p>[a-z]+(?: [a-z]+){0,2})")
_MODEL_NUMBER = re.compile(r"\s\d{1,3}\b(?![.,]\d)")


def _caps_run(sentence: str, start: int, run: str, add: object) -> None:
    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", run)]
    # Leading and trailing words that are capitalised for another reason go.
    def common(word: str) -> bool:
        w = word.lower().strip("'’")
        return w in COMMON or (w.endswith("s") and w[:-1] in COMMON) or w in ("i'm", "i've", "i'd", "i'll")

    while words and common(words[0][1]):
        words.pop(0)
    if len(words) > 1 and _is_sentence_start(sentence, start + words[0][0]) and re.search(r"(?:ed|ing)$", words[0][1]):
        words.pop(0)
    while words and common(words[-1][1]):
        words.pop()
    if not words:
        return
    first_at = start + words[0][0]
    last_off, last_word = words[-1]
    end = start + last_off + len(last_word)
    name = sentence[first_at:end]
    if re.match(r"\s+\w", sentence[end:]):
        name = _strip_possessive(name)
    if len(words) == 1:
        word = name
        if word.isupper() or len(word) < 2:
            return  # acronyms have their own rule
        if re.fullmatch(r"[A-Z]{2,}s", word):
            return  # "PRs", "ORMs", "CRDTs": the plural of an abbreviation names a kind, not a thing
        if _is_sentence_start(sentence, first_at):
            return  # "Deploys go out on Fridays": capitalised because it starts the sentence
    kind = "technology" if len(words) == 1 and _tech(name) else None
    # A run of several capitalised words ("React Native", "Apple Music") outranks the known name inside it.
    add(first_at, first_at + len(name), _tech(name) or name, kind, 9 if len(words) == 1 else 6)  # type: ignore[operator]


# -- fact rules -------------------------------------------------------------------

_P = "\ue000"
_Q = "\ue001"
_ENT = rf"{_P}\d+{_Q}"
_ADV = (
    r"(?:\s+(?:also|now|still|currently|mostly|really|always|usually|only|just|officially|finally|actually|recently"
    r"|primarily|mainly|already|definitely|generally|typically|personally|heavily|exclusively))*"
)
_DET = r"(?:(?:the|a|an|our|my|their|his|her|its|some)\s+)?"
_CAP = r"^[A-Z][a-z]{2,}(?=\s)"
_SUBJ = rf"(?P<s>{_ENT}|{_CAP}|\bI\b|\b[Ww]e\b|\b(?:[Oo]ur|[Tt]he|[Mm]y) team\b|\b[Mm]y (?P<rel>{'|'.join(sorted(RELATIVES))})(?:\s+(?P<relname>{_ENT}))?)"
_SUBJ_NP = rf"(?P<snp>^(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:[A-Za-z][\w-]*\s+){{0,2}}(?:{'|'.join(_CODE_NOUNS)}))\b"
_NEG = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\bstopped|\bquit|\bwon't)\s*(?:\w+\s+){0,1}$", re.IGNORECASE)
_LIST_TAIL = re.compile(rf"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+){_DET}({_ENT})")


@dataclass(frozen=True, slots=True)
class Pattern:
    predicate: str
    verb: str
    obj: str = "entity"     # entity | np (a short noun phrase) | value (the matched group)
    person: bool = False     # only for people (I, my sister, a person's name)
    past: bool = False
    code_object: bool = False  # a bare lower-case module name may be the object ("imports pdfkit")


PATTERNS: tuple[Pattern, ...] = (
    Pattern("uses", r"(?:uses|use|using|relies on|rely on|built (?:with|on))", code_object=True),
    Pattern("uses", r"(?:used to use|previously used|formerly used)", past=True),
    Pattern("prefers", r"(?:prefers to use|prefer to use|prefer using|prefers using|would rather use|prefers|prefer)", obj="np"),
    Pattern("likes", r"(?:likes|like|love|loves|enjoy|enjoys|a (?:big |huge )?fan of)", obj="np", person=True),
    Pattern("dislikes", r"(?:hates|hate|dislike|dislikes|can't stand|cannot stand)", obj="np", person=True),
    Pattern("depends_on", r"(?:depends on|depend on|requires|require)", code_object=True),
    Pattern("imports", r"(?:imports|import)", code_object=True),
    Pattern("calls", r"(?:calls)"),
    Pattern("extends", r"(?:extends|inherits from|subclasses)"),
    Pattern("is_a", r"(?:is a|is an)", obj="np"),
    Pattern("written_in", r"(?:written in)"),
    Pattern("runs_on", r"(?:runs on|run on|deployed (?:on|to)|hosted on)"),
    Pattern("lives_in", r"(?:lives in|live in|living in|based in|moved to|relocated to)", person=True),
    Pattern("lives_in", r"(?:used to live in|lived in|previously lived in)", person=True, past=True),
    Pattern("works_at", r"(?:works at|work at|working at|works for|work for|working for|joined|employed at|got a job at|started (?:a new job|working) at|accepted a job at)", person=True),
    Pattern("works_at", r"(?:used to work at|used to work for|worked at|previously worked at)", person=True, past=True),
    Pattern("allergic_to", r"(?:allergic to)", obj="np", person=True),
    Pattern("reports_to", r"(?:reports to|report to)"),
    Pattern("owns", r"(?:owns|own|maintains|maintain)", obj="np"),
    Pattern("located_in", r"(?:located in|headquartered in)"),
    Pattern("renamed_to", r"(?:was renamed to|is renamed to|got renamed to)"),
    Pattern(
        "status",
        r"(?:is|are|was)(?:\s+now)?\s+(?P<value>done|blocked|deprecated|complete|completed|finished|in progress|on hold"
        r"|cancelled|canceled|shipped|merged|broken|fixed|released|live|paused|archived)\b",
        obj="value",
    ),
)

_COMPILED = [
    (
        p,
        re.compile(
            rf"(?:{_SUBJ}|{_SUBJ_NP})(?:\s+(?:am|is|are))?{_ADV}\s+(?P<verb>{p.verb})\b(?:{_ADV}\s+{_DET}(?P<o>{_ENT}|[A-Za-z0-9]))?"
        ),
        # the verb alone: a cheap test that lets most sentences skip the full pattern
        re.compile(rf"\b(?:{p.verb})\b"),
    )
    for p in PATTERNS
]
_SWITCH = re.compile(
    rf"{_SUBJ}{_ADV}\s+(?:have\s+|has\s+)?(?:moved|switched|migrated|changed|went|transitioned|upgraded)\s+(?:\w+\s+)?from\s+{_DET}(?P<old>{_ENT})\s+to\s+{_DET}(?P<new>{_ENT})"
)
_REPLACE = re.compile(
    rf"{_SUBJ}{_ADV}\s+(?:have\s+|has\s+)?(?:replaced|swapped|substituted)\s+{_DET}(?P<old>{_ENT})\s+(?:with|for)\s+{_DET}(?P<new>{_ENT})"
)
_SWITCH_TO = re.compile(rf"{_SUBJ}{_ADV}\s+(?:have\s+|has\s+)?(?:switched|migrated|moved)\s+to\s+{_DET}(?P<new>{_ENT})")
_VERSION = re.compile(
    rf"(?i:upgraded|bumped|pinned|updated|downgraded)\s+{_DET}(?P<s>{_ENT}|[a-z][\w.]*-[\w.-]+)\s+to\s+(?:version\s+|v)?(?P<value>\d+(?:\.\d+){{0,3}})\b"
    rf"|(?P<s2>{_ENT})\s+is\s+(?:now\s+)?(?:on|at)\s+(?:version\s+|v)?(?P<value2>\d+(?:\.\d+){{0,3}})\b"
)
_RELATIVE_IS = re.compile(rf"(?P<name>{_ENT}|{_CAP})\s+is\s+my\s+(?P<rel>{'|'.join(sorted(RELATIVES))})\b|\b[Mm]y\s+(?P<rel2>{'|'.join(sorted(RELATIVES))})\s+(?:is\s+)?(?P<name2>{_ENT})")
_FAVORITE = re.compile(rf"\b[Mm]y\s+(?:favou?rite|preferred)\s+(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+is\s+{_DET}(?P<o>{_ENT}|[a-z][\w'-]*(?:\s+[a-z][\w'-]*){{0,2}})")


_CONTRACTION = re.compile(r"\b(I|[Ww]e|[Yy]ou|[Tt]hey|[Ss]he|[Hh]e)['’](m|re|ve|d|ll)\b")
_EXPANDED = {"m": "am", "re": "are", "ve": "have", "d": "would", "ll": "will"}


class _Sentence:
    """A sentence with its entity spans replaced by placeholders."""

    def __init__(self, text: str) -> None:
        text = _CONTRACTION.sub(lambda m: f"{m.group(1)} {_EXPANDED[m.group(2)]}", text)
        self.text = text
        self.spans = entity_spans(text)
        parts, at = [], 0
        for i, s in enumerate(self.spans):
            parts.append(text[at : s.start])
            parts.append(f"{_P}{i}{_Q}")
            at = s.end
        parts.append(text[at:])
        self.masked = "".join(parts)

    def demask(self, text: str) -> str:
        return re.sub(rf"{_P}(\d+){_Q}", lambda m: self.spans[int(m.group(1))].name, text)

    def span(self, token: str) -> Span | None:
        m = re.fullmatch(rf"{_P}(\d+){_Q}", token.strip())
        return self.spans[int(m.group(1))] if m else None


def _person_ok(token: str, span: Span | None) -> bool:
    if span is None:
        return True  # I, my sister
    return span.type in (None, "person")


def _np(text: str) -> str | None:
    """The short noun phrase at the start of ``text`` (1-4 words), or None."""
    words = []
    for word in re.findall(r"[A-Za-z0-9][\w'+#-]*|[,.;:!?]", text):
        if not re.match(r"\w", word) or word.lower() in STOP_AFTER:
            break
        words.append(word)
        if len(words) > 4:
            return None
    if not words or words[0].lower() in COMMON or words[0].lower() in ("to", "it", "them", "this", "that"):
        return None
    return " ".join(words)


def _subject(sent: _Sentence, m: re.Match[str], out: Extraction) -> tuple[str, str | None] | None:
    token = m.group("s")
    said = sent.demask(token) if token else ""
    first = said.split(maxsplit=1)[0].lower() if said.strip() else ""
    if first in ORDER_WORDS and not sent.masked[: m.start("s")].strip(" \t-*+>"):
        return None  # "NEVER use `std::fs`", "Install HTTPX using pip:": an order's first word is not who uses
    span = sent.span(token)
    if span:
        return span.name, span.type
    word = token.strip()
    if re.fullmatch(r"[A-Z][a-z]{2,}", word) and word.lower() not in COMMON:
        return word, None
    if word == "I":
        return USER, "person"
    if word.lower() in ("we", "our team", "the team", "my team"):
        return TEAM, "team"
    rel = m.groupdict().get("rel")
    if rel:
        named = m.groupdict().get("relname")
        person = sent.span(named) if named else None
        if person:
            out.facts.append(FactDraft(person.name, f"{rel}_of", USER, subject_type="person", object_type="person",
                                       rule="rules:my-relative"))
            return person.name, "person"
        return f"{USER}'s {rel}", "person"
    return None


def _objects(sent: _Sentence, rest: str, first: str) -> list[Span]:
    spans = [sent.span(first)]
    for tail in _LIST_TAIL.finditer(rest):
        if tail.start() != 0:
            break
        spans.append(sent.span(tail.group(1)))
        rest = rest[tail.end() :]
    return [s for s in spans if s]


def _sentence_facts(sent: _Sentence, out: Extraction) -> None:
    masked = sent.masked
    consumed: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in consumed)

    for rx in (_SWITCH, _REPLACE):
        for m in rx.finditer(masked):
            subj = _subject(sent, m, out)
            old, new = sent.span(m.group("old")), sent.span(m.group("new"))
            if not subj or not old or not new or _NEG.search(masked[: m.start()]):
                continue
            places = subj[0] == USER and all(s.type is None for s in (old, new))
            predicate = "lives_in" if places else "uses"
            if predicate == "uses" and hosted(old.name) and hosted(new.name):
                predicate = "runs_on"  # "we went from Heroku to Render": where it runs (as the parse reads it)
            out.facts.append(FactDraft(subj[0], predicate, new.name, replaces=old.name, subject_type=subj[1],
                                       object_type=new.type, rule=f"rules:{'switch' if rx is _SWITCH else 'replace'}"))
            consumed.append((m.start(), m.end()))
    for m in _SWITCH_TO.finditer(masked):
        subj, new = _subject(sent, m, out), sent.span(m.group("new"))
        if subj and new and free(m.start(), m.end()) and not _NEG.search(masked[: m.start()]):
            predicate = "lives_in" if subj[0] == USER and new.type is None else "uses"
            out.facts.append(FactDraft(subj[0], predicate, new.name, subject_type=subj[1], object_type=new.type,
                                       rule="rules:switch-to",
                                       turn=predicate == "uses"))  # "switched to X": the value before is over
            consumed.append((m.start(), m.end()))
    for m in _VERSION.finditer(masked):
        token = m.group("s") or m.group("s2")
        span = sent.span(token) or (Span(0, 0, token, "identifier", 6) if token and _P not in token else None)
        value = m.group("value") or m.group("value2")
        if span and value:
            out.facts.append(FactDraft(span.name, "uses_version", value, subject_type=span.type, object_type="version",
                                       rule="rules:version"))
            consumed.append((m.start(), m.end()))
    for m in _RELATIVE_IS.finditer(masked):
        token = m.group("name") or m.group("name2")
        span = sent.span(token) or (Span(0, 0, token, None, 9) if token.lower() not in COMMON else None)
        rel = m.group("rel") or m.group("rel2")
        if span and span.type in (None, "person"):
            out.entities.append(EntityDraft(span.name, "person", rule="rules:relative"))
            out.facts.append(FactDraft(span.name, f"{rel}_of", USER, subject_type="person", object_type="person",
                                       rule="rules:relative-is"))
    for m in _FAVORITE.finditer(masked):
        obj = sent.span(m.group("o"))
        name = obj.name if obj else _np(m.group("o"))
        if name and free(m.start(), m.end()):
            what = re.sub(r"\s+", "_", m.group("what").lower())
            out.facts.append(FactDraft(USER, f"favorite_{what}", name, subject_type="person",
                                       object_type=obj.type if obj else None, rule="rules:favorite"))
            consumed.append((m.start(), m.end()))

    for pattern, rx, verb in _COMPILED:
        if not verb.search(masked):
            continue
        for m in rx.finditer(masked):
            if not free(m.start(), m.end()) or _NEG.search(masked[: m.start("verb")]):
                continue
            if m.group("snp"):
                subj = (m.group("snp").split(None, 1)[1], None)
            else:
                subj = _subject(sent, m, out)
            if not subj:
                continue
            subject_span = sent.span(m.group("s") or "")
            if pattern.person and not _person_ok(m.group("s") or "", subject_span):
                continue
            if pattern.person and m.group("snp"):
                continue
            objects: list[tuple[str, str | None]] = []
            if pattern.obj == "value":
                objects = [(m.group("value"), "status")]
            elif (
                pattern.obj == "np" and m.group("o") and m.group("o").startswith(_P)
                and re.match(rf"{_ENT}\s+[a-z]", masked[m.start("o") :])
            ):
                phrase = _np(sent.demask(masked[m.start("o") :]))
                objects = [(phrase, None)] if phrase else []
            elif m.group("o") and m.group("o").startswith(_P):
                objects = [(s.name, s.type) for s in _objects(sent, masked[m.end("o") :], m.group("o"))]
            elif pattern.obj == "np":
                phrase = _np(sent.demask(masked[m.start("o") :])) if m.group("o") else None
                if phrase:
                    objects = [(phrase, None)]
            elif pattern.code_object and m.group("o"):
                token = re.match(r"[a-z][\w.]*(?:-[\w.]+)+|[a-z][a-z0-9_]+(?=\s*[.,;]?\s*$)", masked[m.start("o") :])
                if token and (pattern.predicate == "imports" or "-" in token.group()):
                    objects = [(token.group().rstrip("."), "identifier")]
            if pattern.predicate == "is_a" and subj[0] in (USER, TEAM):
                continue
            for name, type_ in objects:
                if name.casefold() == subj[0].casefold():
                    continue
                if pattern.predicate == "lives_in" and type_ not in (None, "organization"):
                    continue
                out.facts.append(
                    FactDraft(subj[0], pattern.predicate, name, subject_type=subj[1], object_type=type_, past=pattern.past,
                              rule=f"rules:pattern:{pattern.predicate}")
                )
            if objects:
                consumed.append((m.start(), m.end()))


def _rule_sentences(text: str) -> Extraction:
    out = Extraction()
    for sentence in sentences(text):
        sent = _Sentence(sentence)
        out.entities += [EntityDraft(span.name, span.type, rule=f"rules:span:{span.type}:{span.rank}") for span in sent.spans]
        if not _HEDGED.search(sentence):
            _sentence_facts(sent, out)
    return out


#: A question, a plan or a guess states no fact (the parse reads these from the clause; the patterns
#: see only words, so a sentence with one of them gives no pattern fact at all).
_HEDGED = re.compile(
    r"\?\s*$|\b(?:might|may|could|should|would|maybe|perhaps|probably|thinking|considering|planning|wondering"
    r"|evaluating|hoping|hope|want to|going to|if)\b",
    re.IGNORECASE,
)


def _tidy(out: Extraction) -> Extraction:
    """One entity per name (a typed mention wins) and one fact per (subject, predicate, object)."""
    entities: dict[str, EntityDraft] = {}
    for e in out.entities:
        key = e.name.casefold()
        if key not in entities or (entities[key].type is None and e.type):
            entities[key] = e
    out.entities = list(entities.values())
    unique: dict[tuple[str, str, str], FactDraft] = {}
    for f in out.facts:
        unique.setdefault((f.subject.casefold(), f.predicate, f.object.casefold()), f)
    out.facts = list(unique.values())
    return out


def _based(out: Extraction, confidence: float) -> Extraction:
    out.facts = [replace(f, confidence=confidence) for f in out.facts]
    return out


def _checked(out: Extraction) -> Extraction:
    """Only the facts whose ends fit their predicate's kinds, each with its confidence (found by × fit).

    Trigger: a candidate whose subject or object (or the value it replaces) is of a kind the predicate
    refuses ("Team lives_in Valkey" after "moved from Redis to Valkey"). Why: a wrong fact costs more
    than a missing one. Outcome: the fact is not stored; its names stay entities."""
    kept = []
    for f in out.facts:
        score = fit(f.predicate, f.subject, f.subject_type, f.object, f.object_type, f.replaces)
        if score > 0:
            kept.append(replace(f, confidence=round(f.confidence * score, 3)))
    out.facts = kept
    return out


def rules_candidates(text: str) -> Extraction:
    """Entities and candidate facts by the regular-expression rules alone, before the scorer."""
    return _tidy(_checked(_based(_rule_sentences(text), RULES_CONFIDENCE)))


def extract_rules(text: str) -> Extraction:
    """Entities and facts by the regular-expression rules alone (the fallback; deterministic, no I/O), each
    fact's confidence the scorer's probability."""
    return outside.lower_confidence(scorer.score(rules_candidates(text), text), text)


def _spans(sentence: str) -> list[Span]:
    return entity_spans(_CONTRACTION.sub(lambda m: m.group(0), sentence))


#: "I’m a nurse": the small English pipeline splits a contraction only with a straight apostrophe.
_CURLY = re.compile(r"(?i)\b(I|you|we|they|he|she|it|that|there|what|who|ca|do|does|did|is|are|was|were|wo|have|has"
                    r"|had|could|would|should)’(m|re|ve|d|ll|s|t)\b|(?<=n)’(?=t\b)")


def _straight(text: str) -> str:
    """``text`` with a contraction's curly apostrophe made straight (same length: spans keep their offsets)."""
    return _CURLY.sub(lambda m: m.group(0).replace("’", "'"), text) if "’" in text else text


def candidates(texts: Sequence[str], contexts: Sequence[dict[str, str] | None] | None = None
               ) -> list[tuple[Extraction, Any]]:
    """Entities and candidate facts of each text with its parse (None by the regular-expression rules),
    before the scorer gives each fact its confidence: read through the dependency parse when the English
    pipeline is installed (one batched run for all texts), else by the regular-expression rules.
    ``contexts`` (one per text, or None): what earlier memories of the same scope named (knowledge.carry);
    texts of one scope share one dict, read in order and updated."""
    ctx = list(contexts) if contexts is not None else [None] * len(texts)
    nlp = pipeline()
    if nlp is None:
        return [(resolve_relatives(kin_names(rules_candidates(t)), c), None) for t, c in zip(texts, ctx)]
    docs = nlp.pipe([_straight(t) for t in texts], batch_size=BATCH)
    out = []
    for text, doc, context in zip(texts, docs, ctx):
        dropped: set[str] = set()
        parsed = _based(read(doc, _spans, dropped, context), PARSER_CONFIDENCE)
        merged = distribute(_merge(parsed, _based(_rule_sentences(text), RULES_CONFIDENCE), dropped), text, _spans)
        out.append((_tidy(_checked(resolve_relatives(kin_names(merged), context))), doc))
    return out


def extract_many(texts: Sequence[str], contexts: Sequence[dict[str, str] | None] | None = None,
                 propose: Callable[[Extraction, Any], Extraction] | None = None) -> list[Extraction]:
    """Entities and facts of each text (:func:`candidates`), each fact's confidence the probability the
    fact scorer gives it (:mod:`knotwork.knowledge.scorer`), each entity one the mention model says is a
    named thing (:mod:`knotwork.knowledge.mentions`), each confidence then lowered where the text is unlike the
    scorer's training memories (:mod:`knotwork.knowledge.outside`). ``propose`` (None: off): also the learned
    proposer's facts, ``propose(scored, doc)`` (:func:`knotwork.knowledge.proposer.propose` at the store floor,
    setting ``kg_proposer``; passed in, since the proposer reads this module's spans), read before the mention
    model so that its facts' ends are judged like the rules'."""
    found = candidates(texts, contexts)
    out = [scorer.score(ex, text, doc) for text, (ex, doc) in zip(texts, found)]
    if propose is not None:
        out = [propose(ex, doc) for ex, (_, doc) in zip(out, found)]
    return [outside.lower_confidence(mentions.judge(ex, text, doc), text, doc)
            for ex, text, (_, doc) in zip(out, texts, found)]


def _merge(parsed: Extraction, ruled: Extraction, dropped: frozenset[str] | set[str] = frozenset()) -> Extraction:
    """The parse's facts, plus the rules' facts about pairs of names the parse related in no way.

    Trigger: the regular-expression rules know shapes the parse rules do not read ("pinned X to 3.2",
    "my favourite colour is …"). Why: they are precise on those shapes. Outcome: a rules fact is kept
    only where the parse said nothing about the same two names, nor gave the same object the same
    predicate for another subject (the parse's reading wins: it sees negation, tense, passives and
    whose the object is)."""
    pairs = {(f.subject.casefold(), f.object.casefold()) for f in parsed.facts}
    pairs |= {(o, s) for s, o in pairs}
    objects = {(f.subject.casefold(), f.predicate) for f in parsed.facts}
    holders = {(f.predicate, f.object.casefold()) for f in parsed.facts}
    for f in ruled.facts:
        if f.subject.casefold() in NOT_NAMES or f.predicate in ("is_a", "status"):
            continue  # "Nobody uses X"; what a thing is or its state, the parse reads better ("shipped to X")
        if (f.subject.casefold(), f.object.casefold()) in pairs or (f.subject.casefold(), f.predicate) in objects:
            continue
        if (f.predicate, f.object.casefold()) in holders:
            continue  # the parse found who holds it ("replaced A with B across the dashboard")
        parsed.facts.append(f)
    parsed.entities += [e for e in ruled.entities if e.name.casefold() not in dropped]
    return parsed


def extract(text: str) -> Extraction:
    """Entities and facts in ``text`` (deterministic; no I/O once the pipeline is loaded)."""
    return extract_many([text])[0]
