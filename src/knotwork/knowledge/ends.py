"""What may stand at the end of a fact: kind checks on the parse, before a name is proposed.

A fact is only as good as its two ends. The dependency parse finds a noun at
each end; many nouns name nothing in particular, and a fact about them is
wrong or empty ("worked at Amazon for three years" -> ``works_at years``,
"logs are shipped to Loki" -> ``logs runs_on Loki``, "lives in an S3
bucket"). The labelling guide of the benchmark sets says the same of
entities: generic nouns are not entities; "our X"/"the X" names X.

- :func:`never_named`: nouns that are never a name (time spans, plural
  acronyms such as "PRs" or "ORMs").
- :func:`generic`: nouns that name a kind, not a thing: a common noun after
  "a"/"an"/"some"/"any"… ("an S3 bucket"), or a bare lower-case plural
  subject with no determiner and no proper-noun modifier ("logs", "errors"). Such a noun
  may still be what a person likes or is ("I love dogs", "she is a nurse"),
  so it is recorded, and :func:`allowed` refuses it only where the predicate
  needs a named thing.
- :func:`modifier_span`: a regular-expression name that the parse reads as
  the modifier of a longer name after "the" ("the GraphQL gateway"): the
  longer phrase is the name, the modifier is not an entity on its own (after
  "a"/"an" or "my" it is: "a separate Stripe account", "my Instagram
  account" mention Stripe and Instagram).

Pure functions over spaCy tokens, used by :mod:`knotwork.knowledge.parse`.
"""

from __future__ import annotations

import re
from typing import Any

from knotwork.knowledge.vocabulary import GROUP_WORDS

#: Nouns of time and quantity: never the end of a fact ("for three years", "every week").
TIME_NOUNS = frozenset(
    "second minute hour day night week weekend fortnight month quarter year decade century morning afternoon "
    "evening sprint release time times while majority minority".split()
)
#: Determiners that make a common noun a kind rather than a particular thing.
_INDEFINITE = frozenset("a an another any some every each no several many few".split())
#: Determiners and possessives that make a common noun a particular thing ("the X", "our X" name X).
_DEFINITE = frozenset("the this that these those our my your his her their its".split())
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
#: Predicates whose object may be a kind of thing: tastes, what someone is, does or has.
KIND_OBJECTS = frozenset(
    "likes dislikes prefers allergic_to is_a works_as learning speaks plays reading training_for".split()
)
#: Heads that say what a thing is to someone, not what kind of thing it is: "Painting is a fun way for Melanie to
#: ...", "J.K. Rowling is a significant inspiration for Tim's writing" (the guide's is_a: X is an instance of the head).
_RELATIONAL = frozenset("way inspiration source reason example part result matter thing lot bit".split())


def never_named(tok: Any) -> bool:
    """True for a noun that never names a thing: a time span, a plural acronym ("PRs", "ORMs")."""
    if tok.pos_ in ("NOUN", "NUM") and tok.lemma_.lower() in TIME_NOUNS:
        return True
    return bool(_PLURAL_ACRONYM.fullmatch(tok.text))


def generic(tok: Any, span_covers: bool) -> bool:
    """True when ``tok`` heads a noun phrase that names a kind, not a particular thing.

    ``span_covers``: a regular-expression name (a known technology, a code identifier) covers the
    head; such a name is particular whatever its determiner ("uses a Postgres database" still names
    Postgres through its own span)."""
    if tok.pos_ != "NOUN" or span_covers:
        return False
    dets = [c.lower_ for c in tok.children if c.dep_ in ("det", "poss")]
    if any(d in _INDEFINITE for d in dets):
        return True
    lower = tok.text.islower() or (tok.i == tok.sent.start and tok.text[1:].islower())
    if dets or tok.tag_ != "NNS" or not lower or tok.dep_ not in ("nsubj", "nsubjpass"):
        return False
    # a bare plural subject ("Logs are shipped to Loki"): generic unless a capitalised modifier names it
    # ("Grafana dashboards read from Prometheus"). Not as an object: a lower-case library name looks
    # like a plural to the tagger ("uses libvips").
    return not any(c.dep_ in ("compound", "amod", "nmod") and c.text[:1].isupper() for c in tok.children)


def allowed(predicate: str, subject: str, obj: str, kinds: set[str]) -> bool:
    """Whether a fact may join these ends, ``kinds`` being the names the sentence read as kinds."""
    if subject in kinds:
        return False
    if predicate == "is_a" and obj.split() and obj.split()[-1].lower() in _RELATIONAL:
        return False
    if predicate == "member_of" and obj.split()[-1].lower() in GROUP_WORDS and len(obj.split()) >= 2:
        return True  # "joined a chess club": the club of the chess players, one group though its article is "a"
    return obj not in kinds or predicate in KIND_OBJECTS


def modifier_span(sent: Any, start: int, end: int) -> bool:
    """True when the characters [start, end) of ``sent`` are a name that the parse hangs, as a modifier,
    on a common noun after it ("the GraphQL gateway", "our Kafka cluster", "the VPN change")."""
    base = sent.start_char
    toks = [t for t in sent if t.idx - base < end and start < t.idx - base + len(t)]
    if not toks:
        return False
    last = toks[-1]
    head = last.head
    if last.dep_ not in ("compound", "amod", "nmod") or head.i <= last.i or head in toks:
        return False
    if head.pos_ != "NOUN" or not head.text.islower() or any(c.dep_ == "case" for c in last.children):
        return False
    # "the GraphQL gateway" names the gateway; "a separate Stripe account" names only Stripe, and "my
    # Instagram account" still mentions Instagram (what recall by entity needs): only "the" takes it
    return any(c.dep_ == "det" and c.lower_ == "the" for c in head.children)


#: Last words of a noun phrase that name a system which holds tools ("switched the web app from A to
#: B": the web app uses B). Data ("the analytics events", "the logs") and the CI, which the labels
#: read as the team's, are not holders.
SYSTEM_HEADS = frozenset(
    "app application service backend frontend api site website server pipeline database db worker bot cli "
    "client library package module repo repository monorepo project gateway engine cluster job dashboard "
    "portal console suite scheduler consumer producer store cache queue docs documentation".split()
)
#: Platforms a system is hosted on: a change between two of them is a change of ``runs_on``.
HOSTS = frozenset(
    "heroku render fly fly.io vercel netlify railway aws gcp azure digitalocean linode hetzner ovh lambda ec2 ecs eks "
    "gke aks fargate kubernetes k8s openshift nomad".split()
) | {"cloud run", "app engine", "cloudflare pages", "cloudflare workers", "github pages", "google cloud"}
_VERSIONED = re.compile(r"(?P<base>.*\S)\s+v?(?P<v>\d+(?:\.\d+)*)")
_VERSION_TAIL = re.compile(r"\s+(?:v\d+(?:\.\d+)*|\d+(?:\.\d+)+)$")


def system_noun(tok: Any) -> bool:
    """True when ``tok`` heads a noun phrase naming a system that can hold a tool ("the mobile app")."""
    return tok.pos_ in ("NOUN", "PROPN") and (tok.lemma_.lower() in SYSTEM_HEADS or tok.lower_ in SYSTEM_HEADS)


def hyphen_before(c: Any, head: Any) -> bool:
    """Is ``c`` (a modifier before ``head``) joined to the next word by a hyphen with no space ("react-table",
    "dbt-core"), so that the parse's split leaves one name in two? Then it belongs to the name's extent."""
    nxt = c.i + 1
    return c.i < head.i and nxt < len(c.doc) and c.doc[nxt].tag_ == "HYPH" and not c.whitespace_ \
        and not c.doc[nxt].whitespace_ and c.dep_ in ("amod", "det", "compound", "nmod")


def place_preps(tok: Any) -> list[Any]:
    """The prepositions of a place noun ("a flat in Bristol"), with the one the parse hung on the verb when it
    follows the noun at once ("I moved to a flat in Bristol": "in Bristol" under "moved")."""
    out = list(tok.children)
    nxt = tok.i + 1
    if nxt < len(tok.doc) and tok.doc[nxt].dep_ == "prep" and tok.doc[nxt].head.i == tok.head.head.i \
            and tok.dep_ == "pobj" and tok.doc[nxt].head.pos_ in ("VERB", "AUX"):
        out.append(tok.doc[nxt])
    return out


def new_marks(verb: Any) -> tuple[str, ...]:
    """The prepositions that bring the new value of a replacement: "replaced A with B", "A was replaced by B";
    "swapped A for B" too ("substitute A for B" says the opposite, and keeps "with" only)."""
    return ("with", "by", "for") if verb.lemma_ == "swap" else ("with", "by")


def hosted(name: str) -> bool:
    return name.casefold() in HOSTS


def version_change(olds: tuple[str, ...], news: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(name, old version, new version) when a change is between two versions of one name ("from MySQL
    5.7 to MySQL 8"), else None; ``olds`` and ``news`` are spellings of each side (the parse's words and
    the name found for them)."""
    for old in olds:
        for new in news:
            a, b = _VERSIONED.fullmatch(old.strip()), _VERSIONED.fullmatch(new.strip())
            if a and b and a.group("base").casefold() == b.group("base").casefold() and a.group("v") != b.group("v"):
                return b.group("base"), a.group("v"), b.group("v")
    return None


def same_thing(old: str, new: str) -> bool:
    """True when two names differ at most by a version: a change between them is no change of tool."""
    def base(name: str) -> str:
        m = _VERSIONED.fullmatch(name.strip())
        return (m.group("base") if m else name).casefold()
    return base(old) == base(new)


def without_version(text: str) -> str:
    """"pydantic v2" -> "pydantic", "Python 3.12" -> "Python": a dotted or v-prefixed version is not part
    of a name (a bare number may be: "Pixel 8")."""
    return _VERSION_TAIL.sub("", text).strip() or text


#: Verbs of setting a tool up for something: who does it is not who uses it.
SETUP_VERBS = frozenset({"set up", "configure", "install", "roll out", "add", "wire up", "hook up"})


def setup_holders(key: str, subjects: list[tuple[str, str | None]], for_prep: Any,
                  name_of: Any) -> list[tuple[str, str | None]]:
    """Who uses what a clause of ``key`` names: "Björn set up Sentry for the checkout flow" -> the
    checkout flow; "Björn set up Sentry" -> nobody said (a named person who sets a tool up is not the
    one using it); "we set up Sentry" -> the team. Other verbs: their subjects."""
    if key not in SETUP_VERBS:
        return subjects
    if for_prep is not None:
        for q in for_prep.children:
            if q.dep_ == "pobj" and any(c.dep_ in ("det", "poss") and c.lower_ in _DEFINITE for c in q.children):
                holder = name_of(q)
                if holder:
                    return [holder]
    return [s for s in subjects if s[0] in ("User", "Team")]


def words(tok: Any) -> str:
    """The words of the noun phrase ``tok`` heads, without its determiners ("the MySQL 5.7" -> "MySQL 5.7")."""
    return " ".join(t.text for t in tok.subtree if t.dep_ not in ("det", "poss", "punct", "cc", "conj", "prep")
                    and t.i <= tok.i + 1)


def unversioned(name: tuple[str, str | None]) -> tuple[str, str | None]:
    """A fact's end without a version tail or code quotes: ("`pydantic` v2", None) -> ("pydantic", None)."""
    text = without_version(name[0]).strip("`")
    return (text, name[1]) if text else name



#: Generic words after a code identifier that say what kind of code it is ("the `thumbor` API").
CODE_KINDS = frozenset("api class interface protocol trait struct enum type function method module package "
                       "library crate gem script command endpoint table column field hook component "
                       "argument parameter option flag setting shortcut attribute property".split())


def misread(tok: Any, span: Any, base: int) -> bool:
    """A known technology's name the tagger read as an adverb ("dropped MySQL in favour of …": MySQL/RB)
    where the parse still makes it an object: its regex ``span`` covers exactly that token."""
    if tok.pos_ != "ADV" or tok.dep_ not in ("dobj", "pobj", "conj") or span is None:
        return False
    start = tok.idx - base
    return span.type == "technology" and span.start == start and span.end == start + len(tok)


def been_at(verb: Any, dated: bool) -> list[Any]:
    """The proper names of "has been at X since/for …" ("Priya has been at Meta since January", "Jeff has been
    at Initech for six years"): only the perfect with a start or a length says a place of work rather than a
    visit ("I was at Google for a talk"), and only a proper name is an employer."""
    if verb.lower_ != "been" or not any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children):
        return []
    preps = {p.lower_: p for p in verb.children if p.dep_ == "prep"}
    if "at" not in preps or not ({"since", "for"} & set(preps) or dated):
        return []
    return [o for o in preps["at"].children if o.dep_ == "pobj" and o.pos_ == "PROPN"]


#: Relative pronouns that stand for the noun their clause describes ("Tomás, who uses Neovim").
_RELATIVE_PRONOUNS = frozenset("who which that".split())


def relative_who(tok: Any) -> bool:
    """True when ``tok`` is the subject of a relative clause ("who" in "Tomás, who uses Neovim", "which" in "Astral,
    which maintains Ruff") whose antecedent is a name (a proper noun) or a part of a system ("the worker, which …"):
    the subject is that antecedent. A relative ("my sister, who …") or a common noun of anything else is left to
    the readings that know it (a wrong subject costs more than a missing fact)."""
    if tok.lower_ not in _RELATIVE_PRONOUNS or tok.dep_ not in ("nsubj", "nsubjpass") or tok.head.dep_ != "relcl":
        return False
    antecedent = tok.head.head
    governor = antecedent.head  # "it will find X, which requires Y": the clause around X is a plan or a guess
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in governor.children) or governor.sent.text.rstrip().endswith("?"):
        return False
    return antecedent.pos_ == "PROPN" or system_noun(antecedent)


def favoured(verb: Any) -> tuple[Any | None, Any | None]:
    """The token after "in favour of" on a change verb, and the purpose it hangs under when the parse put it
    there, else None: "dropped MkDocs for the docs in favour of B" hangs "in favour of B" on "docs", the noun
    of the "for" phrase before it; that phrase says what B is for (the holder of the change), and is no new
    value. Only a particular noun is such a purpose ("for the docs", not "for a while")."""
    for p, purpose in [(p, None) for p in verb.children if p.dep_ == "prep"] + [
            (p, q) for f in verb.children if f.dep_ == "prep" and f.lower_ == "for"
            for q in f.children if q.dep_ == "pobj" and not never_named(q) and not generic(q, False)
            for p in q.children if p.dep_ == "prep"]:
        if p.lower_ == "in":
            for fav in p.children:
                if fav.dep_ == "pobj" and fav.lower_ in ("favour", "favor"):
                    for o in (o for of in fav.children if of.dep_ == "prep" for o in of.children if o.dep_ == "pobj"):
                        return o, purpose
    return None, None
