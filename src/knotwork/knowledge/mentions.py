"""Is a mention a named thing? A calibrated logistic model over what found it and how it looks.

The entity rules (:func:`~knotwork.knowledge.extract.entity_spans`, the parse's proper nouns) find
names by shape: capitalised runs, backticked code, dotted and slashed words, known technologies. In
outside text shape misleads: a heading's words ("Core Framework"), a capitalised adjective ("Rust-based"),
a backticked command (`just fmt`, `cargo test -p codex-tui`), a flag, a bare word in backticks (`main`),
a status word. The labelling guide (bench/data/extraction_corpus/GUIDE.md, section 3) says what a named
thing is; this model learns it from the labelled dev halves.

Each mention (an :class:`~knotwork.knowledge.models.EntityDraft` of the offline extraction, its name
tidied to the guide's extent by :func:`tidy`, and the lower-case hyphenated words and Rust paths the rules
never propose, :func:`proposals`) gets named binary features: the rule that found it and its type, its
shape (case, digits, dots, slashes, underscores, a file's extension, spaces, a flag's dash, a version, a
"-based" suffix, length), whether it is a known technology, a given name, a common or generic word, a word
of the parser's lemma index (WordNet's English words), whether the text backticks or quotes it, what
stands before and after it (an article, a glossary line's colon, a kind word such as "library"), where it
stands (a line's first word, a short line such as a heading), the part of speech and dependency of its
head in the parse, and whether it ends a candidate fact and how sure that fact is. A logistic regression
over them, calibrated by Platt scaling on out-of-fold scores, says the probability that the mention is a
named thing; a mention under the file's ``keep`` is left out. The ends of stored facts are entities
whatever this says (the graph needs them): the model reads only the mentions. Without a parse (the
regular-expression fallback) every mention the rules find stays.

The weights are ``data/entity_mentions.json``, fitted by ``bench/train_entity_model.py`` on the dev
halves of the labelled sets (the script rebuilds the file byte for byte). Reading them needs NumPy and
the standard library; no second parse (the features read the parse the facts were read from).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from knotwork.domain.calibrated import CalibratedLogistic, bucket
from knotwork.knowledge.lexicon import COMMON, GENERIC_ACRONYMS, MULTIWORD_TECH, ORDER_WORDS, TECH
from knotwork.knowledge.models import EntityDraft, Extraction
from knotwork.knowledge.people import given_names

WEIGHTS = Path(__file__).parent / "data" / "entity_mentions.json"
USER, TEAM = "User", "Team"

_TECH_NAMES = frozenset(TECH) | frozenset(MULTIWORD_TECH) | frozenset(v.lower() for v in TECH.values())
_ARTICLE = frozenset("the a an our my your their this that these those its his her some any".split())
_KIND_AFTER = frozenset(
    "library package crate module class function method type file folder directory command flag option variable "
    "key field service tool framework plugin extension api endpoint repo repository project app server client "
    "team company language format protocol model version feature branch script test tests job workflow".split()
)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_LEMMA_POS = ("noun", "verb", "adj", "adv")
_FILE = re.compile(r"\w\.(?:py|pyi|js|mjs|ts|tsx|jsx|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|md|json|ya?ml|toml|ini|cfg"
                   r"|conf|sql|sh|txt|csv|html|css|scss|lock|env|proto|ipynb|xml|gradle|snap)$")
# Compiled once: every mention of every memory is read with these.
_URL = re.compile(r"https?://")
_VERSIONED = re.compile(r"\s[vV]?\d+(?:\.\d+)*$")
_SUFFIXED = re.compile(r"-(?:based|style|like|powered|compatible|specific|driven|native|friendly)$", re.I)
_TOKEN = re.compile(r"[\w'’]+|[^\s\w]")
_BULLET = re.compile(r"(?:[-*•>]|\d+[.)]|#+)")
_NEXT = re.compile(r"[`'\"”)]*\s*([\w'’]+|[^\s\w])?")
_PARTS = re.compile(r"[-_:./\s]+")


@lru_cache(maxsize=4)
def _lowered(text: str) -> str:
    """``text`` in lower case, once a text rather than once a mention."""
    return text.lower()



def _find(text: str, name: str) -> int:
    at = text.find(name)
    if at < 0:
        at = _lowered(text).find(name.lower())
    return at


_WORDS: dict[str, dict[str, frozenset[str]] | None] = {}


def _dictionary() -> dict[str, frozenset[str]] | None:
    """The parser's lemma index (WordNet's words by part of speech), read once; None without one."""
    if "index" not in _WORDS:
        from knotwork.knowledge.nlp import pipeline

        nlp = pipeline()
        lookups = nlp.get_pipe("lemmatizer").lookups if nlp is not None and "lemmatizer" in nlp.pipe_names else None
        if lookups is None or "lemma_index" not in lookups.tables:
            _WORDS["index"] = None
        else:
            index = lookups.get_table("lemma_index")
            _WORDS["index"] = {pos: frozenset(index.get(pos, ())) for pos in _LEMMA_POS}
    return _WORDS["index"]


def _shape(name: str) -> list[str]:
    out = []
    first = name[:1]
    if first.isupper():
        out.append("case:upper" if name.isupper() and len(name) > 1 else "case:cap")
    elif first.islower():
        out.append("case:lower")
    else:
        out.append("case:other")
    if _CAMEL.search(name):
        out.append("shape:camel")
    for ch, tag in (("_", "underscore"), (".", "dot"), ("/", "slash"), ("-", "hyphen"), ("@", "at"), ("#", "hash"),
                    (":", "colon"), ("=", "equals"), ("(", "paren"), ("<", "angle"), ("*", "star")):
        if ch in name:
            out.append(f"shape:{tag}")
    if any(c.isdigit() for c in name):
        out.append("shape:digit" if any(c.isalpha() for c in name) else "shape:number")
    words = name.split()
    out.append(f"words:{bucket(len(words), (1, 2, 3, 4))}")
    out.append(f"chars:{bucket(len(name), (2, 4, 8, 16, 30))}")
    if _FILE.search(name):
        out.append("shape:file")
    elif "/" in name and " " not in name and (name.endswith("/") or name.startswith(("/", "~/", "./", "../"))):
        out.append("shape:directory")
    if _URL.match(name):
        out.append("shape:url")
    if _VERSIONED.search(name):
        out.append("shape:versioned")
    if _SUFFIXED.search(name):
        out.append("shape:adjective-suffix")
    if any(w.startswith("-") for w in words):
        out.append("shape:flag")
    if len(words) > 1 and all(w[:1].isupper() for w in words):
        out.append("shape:title-run")
    if len(words) > 1 and any(w[:1].islower() for w in words):
        out.append("shape:lower-word-inside")
    return out


def features(name: str, type_: str | None, rule: str, text: str, doc: Any = None,
             ends: dict[str, float] | None = None) -> list[str]:
    """The named binary features of one mention ``name`` of ``text`` (``doc``: its parse, or None);
    ``ends``: the best confidence of a candidate fact each name (casefolded) ends."""
    parts = (rule or "?").split(":")
    family = ":".join(parts[:2])
    out = [f"mode:{'parse' if doc is not None else 'rules'}", f"rule:{rule or '?'}", f"family:{family}",
           f"type:{type_ or 'none'}", f"family*type:{family}*{type_ or 'none'}"]
    out += _shape(name)
    low = name.lower()
    if name in (USER, TEAM):
        out.append("self")
    if low in _TECH_NAMES:
        out.append("tech")
    words = name.split()
    if words and words[0].lower() in given_names() and words[0][:1].isupper():
        out.append("given" if len(words) == 1 else "given-first")
    if low in COMMON or low in ORDER_WORDS:
        out.append("common")
    if name.upper() in GENERIC_ACRONYMS:
        out.append("generic-acronym")
    if words and words[-1].lower() in _KIND_AFTER:
        out.append("ends-kind-word")
    conf = (ends or {}).get(name.casefold())
    out.append("fact:none" if conf is None else f"fact:{'>=0.6' if conf >= 0.6 else '<0.6'}")
    if conf is not None and conf >= 0.8:
        out.append("fact:>=0.8")
    at = _find(text, name)
    if at < 0:
        out.append("where:absent")
    else:
        before, after = text[:at], text[at + len(name):]
        if before.endswith("`") and after.startswith("`"):
            out.append("ticked")
        elif before.endswith(("`", "``")) or after.startswith("`"):
            out.append("ticked-part")
        elif before.endswith(('"', "“", "'")) and after.startswith(('"', "”", "'")):
            out.append("quoted")
        prev = _TOKEN.findall(before[-40:])
        if prev:
            p = prev[-1].lower().strip("`")
            out.append("prev:article" if p in _ARTICLE else "prev:punct" if not p[:1].isalnum() else
                       "prev:of" if p in ("of", "for", "with", "in", "on", "to", "from", "by") else "prev:word")
        line_start = before.rfind("\n") + 1
        lead = before[line_start:].strip(" \t`*\"'(")
        if not lead or _BULLET.fullmatch(lead):
            out.append("first-in-line")
        nxt = _NEXT.match(after)
        word = (nxt.group(1) or "").lower() if nxt else ""
        if word == ":":
            out.append("next:colon")
        elif word in _KIND_AFTER:
            out.append("next:kind-word")
        elif word in ("(", "-", "—", "–"):
            out.append("next:gloss")
        if text.count(name) > 1 or low != name and _lowered(text).count(low) > 1:
            out.append("repeated")
        line = text[line_start: text.find("\n", at) if "\n" in text[at:] else len(text)]
        if line.lstrip().startswith("#") or (len(line.split()) <= 6 and not line.rstrip().endswith((".", "!", "?"))):
            out.append("line:short")
    if "`" in text:
        out.append("text:code")
    if doc is not None and at >= 0:
        out += _parsed(doc, at, len(name), low)
    return out


def _parsed(doc: Any, at: int, length: int, low: str) -> list[str]:
    span = doc.char_span(at, at + length, alignment_mode="expand")
    toks = list(span) if span is not None else []
    if not toks:
        return ["tok:none"]
    inside = {t.i for t in toks}
    heads = [t for t in toks if t.head.i not in inside or t.head.i == t.i]
    head = heads[0] if heads else toks[-1]
    out = [f"pos:{head.pos_}", f"tag:{head.tag_}", f"dep:{head.dep_}", f"first-pos:{toks[0].pos_}"]
    if any(t.pos_ == "PROPN" for t in toks):
        out.append("has-propn")
    if toks[0].i == toks[0].sent.start:
        out.append("sentence-start")
    if head.dep_ == "ROOT":
        out.append("root")
    prev = doc[toks[0].i - 1] if toks[0].i > toks[0].sent.start else None
    if prev is not None and prev.dep_ in ("det", "poss"):
        out.append("det-before")
    words = _dictionary()
    if words is not None:
        lemma = head.lemma_.lower()
        if len(toks) == 1 or len(low.split()) == 1:
            hits = [pos for pos in _LEMMA_POS if lemma in words[pos] or low in words[pos]]
            out += [f"dict:{pos}" for pos in hits] or ["dict:none"]
        elif lemma in words["noun"] and head.text[:1].islower():
            out.append("dict:noun-head")
        parts = [w for w in _PARTS.split(low) if w]
        if len(parts) > 1:
            known = sum(any(w in words[pos] for pos in _LEMMA_POS) for w in parts)
            out.append("dict-parts:all" if known == len(parts) else "dict-parts:none" if not known else "dict-parts:some")
    return out


#: Words the entity rules never propose that may still name a thing: a lower-case word with a hyphen
#: ("swift-llvm", "pre-commit", "flake8-bugbear") and a Rust-style path ("std::fs", "textwrap::wrap"). A
#: lower-case word no English dictionary knows ("ratatui", "zstd") was tried too: out of fold it added as many
#: wrong entities as right ones ("login", "admin", "cron" are not labelled names), so it is not proposed; nor is
#: a generic abbreviation the rules skip, each with its own feature (JSON, HTML, HTTP are labelled names; API, PR
#: are not): out of fold it gained no set and cost the held-out set's precision.
_HYPHENED = re.compile(r"(?<![\w/.@:`-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w/@`-]|\.\w)")
_RUST_PATH = re.compile(r"(?<![\w:])[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+(?![\w(])")


def proposals(doc: Any, taken: set[str]) -> list[EntityDraft]:
    """Mentions the entity rules did not propose (``taken``: the casefolded names they did), for the model to
    judge: two regular expressions over the parsed text, no second parse."""
    out: dict[str, EntityDraft] = {}

    def add(name: str, rule: str) -> None:
        key = name.casefold()
        if key not in taken and key not in out and not any(key in t.split() for t in taken):
            out[key] = EntityDraft(name, None, rule=rule)

    text = doc.text
    for m in _RUST_PATH.finditer(text):
        add(m.group(), "mention:path")
    for m in _HYPHENED.finditer(text):
        add(m.group(), "mention:hyphen")
    return list(out.values())


class MentionModel(CalibratedLogistic):
    """A fitted model: feature weights, a bias, the Platt map, and the probability a mention needs to stay."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.keep = float(data["keep"])
        super().__init__(data, WEIGHTS.name)


@lru_cache(maxsize=1)
def load(path: str | None = None) -> MentionModel | None:
    """The shipped model (None when the file is absent: every mention the rules find stays)."""
    return MentionModel.read(Path(path) if path else WEIGHTS)


def fact_ends(out: Extraction) -> dict[str, float]:
    """The best confidence of a candidate fact each name ends (casefolded), replaced values included."""
    ends: dict[str, float] = {}
    for f in out.facts:
        for name in (f.subject, f.object, f.replaces):
            if name:
                key = name.casefold()
                ends[key] = max(ends.get(key, 0.0), f.confidence)
    return ends


_ADJECTIVE_SUFFIX = re.compile(r"^(.*?\w)-(?:based|style|like|powered|compatible|driven|flavou?red)\b.*$", re.IGNORECASE)
_SETTING = re.compile(r"([A-Za-z_][\w.-]*)(?:==|>=|<=|~=|!=|=)[^=\s]\S*")


def tidy(draft: EntityDraft) -> EntityDraft:
    """The name a mention's words name: "Rust" of "a Rust-based CLI" and "Cargo-style", the setting or the
    package of `verify=False`, `CODEX_SANDBOX=seatbelt` and `httpx==0.21.*` (the labelling guide's extent).
    Only the mention changes; a fact the words end keeps its own reading."""
    for rx in (_ADJECTIVE_SUFFIX, _SETTING):
        m = rx.fullmatch(draft.name)
        if m:
            return replace(draft, name=m.group(1))
    return draft


def drafts(out: Extraction, doc: Any) -> list[EntityDraft]:
    """Every mention the model judges: the extraction's (tidied) and the :func:`proposals`. (The name without
    its version beside a versioned one, "Python" beside "Python 3.12", was tried as one more: out of fold it
    cost the held-out set's precision and gained nothing pooled.)"""
    return [tidy(e) for e in out.entities] + proposals(doc, {e.name.casefold() for e in out.entities})


def judge(out: Extraction, text: str, doc: Any = None) -> Extraction:
    """``out`` without the mentions the model says are not named things, and with the words of
    :func:`proposals` it says are (the facts are untouched). Without a parse (the regular-expression
    fallback) every mention stays: the model was fitted on parsed text."""
    model = load()
    if model is None or doc is None:
        return out
    ends = fact_ends(out)
    kept = [e for e in drafts(out, doc) if model.probability(features(e.name, e.type, e.rule, text, doc, ends)) >= model.keep]
    return replace(out, entities=kept)
