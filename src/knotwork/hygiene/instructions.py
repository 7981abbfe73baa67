"""Store/ignore instructions: what is worth keeping, applied by offline rules on every add.

The built-in rules keep decisions and their rationale, explicit preferences,
project learnings, solutions and workflows that worked, and ignore
speculation ("might", "maybe", "possibly" hedging the main clause), transient
debugging chatter and search queries (what is already stored is
consolidation's job). A word that opens chatter only proposes: a text that
states something ("Running tests requires Docker") is kept
(:mod:`~knotwork.hygiene.chatter`). A file
``$KNOTWORK_HOME/instructions.txt`` overrides them, one rule a line::

    # comments and blank lines are skipped
    defaults: off                       # drop the built-in patterns (the built-in prose stays unless replaced)
    store: architecture notes           # prose: what to keep, handed to an LLM extractor
    ignore: weather small talk          # prose: what to drop, handed to an LLM extractor
    store-pattern: \\bADR-\\d+           # a regular expression (case-insensitive): matching text is kept
    ignore-pattern: ^build \\d+ (passed|failed)$   # matching text is ignored, unless a store pattern matches
    store-category: runbook             # memories of this category are always kept

A store pattern or category wins over an ignore pattern. ``force=True`` on
``add`` keeps anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from knotwork.errors import InvalidInput
from knotwork.hygiene import chatter

STORE_TEXT = (
    "decisions and their rationale",
    "explicit preferences",
    "project learnings",
    "solutions to problems",
    "workflows that worked",
)
IGNORE_TEXT = (
    "speculation (might, maybe, possibly)",
    "transient debugging chatter",
    "search queries and questions",
    "what is already stored",
)
# Categories a caller chose on purpose: kept whatever the words.
STORE_CATEGORIES = frozenset(
    {"decision", "preference", "lesson", "learning", "solution", "workflow", "directive", "rule", "convention",
     "instruction", "snapshot", "fact"}
)
STORE_PATTERNS = (
    r"\b(decided|decision|chose|agreed|prefers?|preferred|always|never|must|rule|learned|lesson|turns? out|"
    r"fixed|fix(es)? (it|the)|solution|solved|workaround|worked|works)\b",
)
# (pattern, reason, longest text it judges[, judge]) — the reason is what `add` returns for an ignored add. A
# hedge word inside a longer note ("... cost $200. I might go back") does not make the note speculation: those
# rules judge one short sentence only. A judge, when given, decides on a text the pattern matched: it returns
# the words that make the text ignorable, or None to keep it.
SHORT = 240
_SENTENCE_BREAK = re.compile(r"[.!?]\s+\S")
Judge = Callable[[str], str | None]
_HEDGE = re.compile(r"\b(might|maybe|possibly|perhaps|probably)\b", re.IGNORECASE)
# Where the first clause ends: punctuation that sets a part apart, or a word that opens another clause.
_FIRST_CLAUSE_END = re.compile(
    r"[,;:(\u2014\u2013]|\s-\s|\s(?:because|since|although|though|while|whereas|but|how|what|whether|if|which|"
    r"that|when|where|until|unless)\b", re.IGNORECASE,
)


_LEAD_IN = re.compile(r"^(?:(?:hmm+|well|ok(?:ay)?|so|yeah|yes|uh|um|oh|and|but|actually)\b[,.]*\s*)+", re.IGNORECASE)
# A text that opens with a condition or a time clause says its main clause after the first comma.
_LEADING_CLAUSE = re.compile(
    r"^(?:if|when|whenever|once|unless|although|though|while|because|since|after|before|in (?:that )?case)\b[^,]*,\s*",
    re.IGNORECASE,
)


def _hedged(text: str) -> str | None:
    """The hedge word when it hedges the text's main clause ("Maybe the cache is stale", "The flaky test might
    be a race", "If the disk fills up, we might lose the queue"), else None: a hedge set apart or in a later
    clause leaves the statement standing ("Added a serializer parameter for other (possibly faster) JSON
    encoders", "I'm thinking of going to Europe, probably Paris or Rome", "I look forward to seeing how those
    talks might develop"). A lead-in ("Hmm, …", "Well, …") is not a clause."""
    rest = _LEAD_IN.sub("", text, count=1)
    m = _HEDGE.search(rest)
    if not m:
        return None
    if _LEADING_CLAUSE.match(rest):
        rest = _LEADING_CLAUSE.sub("", rest, count=1)
        m = _HEDGE.search(rest)
        if not m:
            return None
    elif re.match(r"(?:if|when|whenever|once|unless|although|though|while|because|since|after|before)\b", rest,
                  re.IGNORECASE):
        return m.group(0)  # a condition with no comma: no telling where the main clause starts
    end = _FIRST_CLAUSE_END.search(rest)
    return m.group(0) if end is None or m.start() < end.start() else None


IGNORE_PATTERNS: tuple[tuple[str, str, int | None] | tuple[str, str, int | None, Judge], ...] = (
    (_HEDGE.pattern, "speculation", SHORT, _hedged),
    # An opening such as "running", "checking", "let me", "hmm" only proposes; the chatter reader keeps a text
    # that states something ("Running tests requires Docker", "Running in production since March 2026") or
    # whose "running"/"trying"/"checking" is no work under way ("Trying to lose five kilos"); see
    # :mod:`~knotwork.hygiene.chatter`. On main's words alone, 21 of 22 such statements of the dev chatter set
    # were ignored (bench/ignore_rules.py).
    (chatter.OPENING.pattern, "transient debugging chatter", SHORT, chatter.is_chatter),
    (r"traceback \(most recent call last\)", "transient debugging chatter", None),
    (r"^(search|query|searching|looking up|find|google)\s*[:(]", "a search query", SHORT),
    # A question that tells something of the one asking ("... on my scalp?", "... since I've moved?") states
    # a fact in passing and is kept; "how do I rotate the keys?" tells nothing and is a query. So does a
    # clause that opens with "I"/"we" and a verb before the question ("I live in LA, so could you search
    # there?", "Yeah, I live in Oregon, what about you?"); not an auxiliary or a verb of thinking ("I wonder,
    # …", "ok, I see, …", "I also need …"), and not "can I …" or "how do I …" (the pronoun does not open a
    # clause there). On LongMemEval's user turns this keeps no question the rule ignored before. Chat turns
    # often drop the stop before the question ("Yeah, I helped a friend install Linux the other day Have you?",
    # "True I like jazz, and you?"): a capitalised word after the clause ends it too, and one lead word that is
    # no auxiliary or question word may stand before "I". A question that passes on news ("Did I tell you Rosa
    # got the job at the BBC?") states it and is kept.
    (r"^(?!.*\b(my|mine|our|ours|i'm|i am|i've|i have|i had|i was|i'd|we're|we are|we've|we have|we had)\b"
     r"|(?:did|have) (?:i|we) (?:ever )?(?:tell|told|mention|mentioned) you\b"
     r"|(?:.*[,;]\s*|(?:(?!(?:can|could|do|does|did|should|would|will|shall|may|might|must|am|is|are|how|what|where|"
     r"why|when|which|who)\b)\w+,?\s+)?)(?:i|we)\s+(?:(?:also|just|really|still|actually)\s+)?"
     r"(?!(?:also|just|really|still|actually|do|does|did|can|could|should|would|will|shall|may|might|must|need|want|"
     r"wonder|see|guess|mean|think|know|hope|is)\b)[a-z]+\b[^?]*(?:[,;]|\s(?-i:[A-Z])))"
     r"[^.!\n]{0,160}\?$", "a question or search query, not a statement", None),
)


@dataclass(frozen=True)
class Instructions:
    """Compiled store/ignore rules; :meth:`ignore_reason` applies them to one add."""

    store_text: tuple[str, ...] = STORE_TEXT
    ignore_text: tuple[str, ...] = IGNORE_TEXT
    store_patterns: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    ignore_patterns: tuple[tuple[re.Pattern[str], str, int | None, Judge | None], ...] = field(default_factory=tuple)
    store_categories: frozenset[str] = STORE_CATEGORIES
    source: str = "built-in"

    def ignore_reason(self, content: str, category: str | None) -> str | None:
        """Why this add is not worth keeping, or None to keep it."""
        if category and category in self.store_categories:
            return None
        text = " ".join(content.split())
        if any(p.search(text) for p in self.store_patterns):
            return None
        one_sentence = not _SENTENCE_BREAK.search(text)
        for pattern, reason, longest, judge in self.ignore_patterns:
            if longest is not None and (len(text) > longest or not one_sentence):
                continue
            if m := pattern.search(text):
                word = judge(text) if judge else m.group(0).strip()
                if word is None:
                    continue
                return f"{reason} ({word!r})" if len(word) <= 24 else reason
        return None

    def prose(self) -> str:
        """The rules in words, for an LLM extractor's prompt."""
        return "Store: " + "; ".join(self.store_text) + ". Ignore: " + "; ".join(self.ignore_text) + "."


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise InvalidInput(where, f"bad regular expression {pattern!r}: {exc}") from None


def builtin() -> Instructions:
    return Instructions(
        store_patterns=tuple(_compile(p, "instructions") for p in STORE_PATTERNS),
        ignore_patterns=tuple((_compile(p, "instructions"), r, n, (rest or [None])[0])
                              for p, r, n, *rest in IGNORE_PATTERNS),
    )


def parse(text: str, source: str = "instructions.txt") -> Instructions:
    """Rules from the text of an instructions file (see the module docstring); a bad line is an error naming it."""
    base = builtin()
    defaults = True
    store_text: list[str] = []
    ignore_text: list[str] = []
    store_p: list[re.Pattern[str]] = []
    ignore_p: list[tuple[re.Pattern[str], str, int | None, Judge | None]] = []
    categories: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        where = f"{source} line {number}"
        if not sep or not value:
            raise InvalidInput(where, f"expected 'rule: value', got {raw.strip()!r}")
        if key == "defaults":
            if value.lower() not in ("on", "off"):
                raise InvalidInput(where, f"defaults must be on or off, got {value!r}")
            defaults = value.lower() == "on"
        elif key == "store":
            store_text.append(value)
        elif key == "ignore":
            ignore_text.append(value)
        elif key == "store-pattern":
            store_p.append(_compile(value, where))
        elif key == "ignore-pattern":
            ignore_p.append((_compile(value, where), f"matches ignore rule of line {number}", None, None))
        elif key == "store-category":
            categories.add(value.lower())
        else:
            raise InvalidInput(
                where, f"unknown rule {key!r}; rules: defaults, store, ignore, store-pattern, ignore-pattern, store-category"
            )
    return Instructions(
        store_text=tuple(store_text) or base.store_text,
        ignore_text=tuple(ignore_text) or base.ignore_text,
        store_patterns=tuple(store_p) + (base.store_patterns if defaults else ()),
        ignore_patterns=tuple(ignore_p) + (base.ignore_patterns if defaults else ()),
        store_categories=frozenset(categories) | (base.store_categories if defaults else frozenset({"snapshot"})),
        source=source,
    )


def load(home: Path) -> Instructions:
    """The rules of ``home/instructions.txt`` when it exists, else the built-in ones."""
    path = Path(home).expanduser() / "instructions.txt"
    if not path.is_file():
        return builtin()
    return parse(path.read_text("utf-8"), str(path))
