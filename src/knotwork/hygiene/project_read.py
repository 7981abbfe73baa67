"""Project pages that change a value without repeating the older sentence: a proposal's status, a page moved, an
option removed, a build no longer shipped, a team that took a duty over, a tool's new major version.

Readers of two texts for consolidation (:mod:`~knotwork.hygiene.consolidate`, asked after every other rule),
each narrow, each needing the earlier text to state the very thing the later one changes:

- **a proposal's status** (:func:`status_change`): "AEP-0090 (matrix fan-out for pipeline tasks) is
  implementable." -> "AEP-0090 is implemented: matrix fan-out shipped in Pipelines v0.53."; one id written
  like "AEP-0090", "KEP-1287", "PEP 703", one word of status from a closed list on each side;
- **a page or file moved** (:func:`moved_file`): "The leadership directory is the people.md page at the root
  of the governance repository." -> "This page has been moved to docs/people.md; ..."; the earlier text names
  one file, the later one moves a file of that name to another path;
- **an option removed** (:func:`removed`): "Repeatable jobs are created with the repeat option on Queue#add."
  -> "Repeat option on Queue#add removed; recurring jobs are created with job schedulers instead."; the
  removed thing is written in the earlier text, in order, and holds a code name ("Queue#add", "--foo",
  "repeat()"), so "Python 3.8 support removed" against "supports Python 3.8 and 3.9" is not read;
- **a build no longer shipped** (:func:`not_shipped`): "The package ships both a CommonJS and an ES module
  build." -> "...; no CommonJS build is shipped."; the name and the noun in the earlier text with the verb;
- **a duty another team took** (:func:`team_swap`): "The LTS team manages the process and content of Sorrel's
  LTS releases." -> "The Release team manages the process and content of LTS releases."; one verb of holding
  ("manages", "owns", "leads", "runs") and the same object with "the", an owner aside;
- **a tool's new version said of what it serves** (:func:`updated_to`): "The documentation is built with
  Jupyter Book 1 and published to GitHub Pages." -> "Updated the docs to Jupyter Book 2; they are still
  published to GitHub Pages."; the tool written once in the earlier text with another version, the thing
  updated named there too, and every other name of the earlier text in the later one.

The earlier text is read whole and must make one statement (a sentence, no ";"); the later one clause by
clause. Pure functions over texts, as every reader of consolidation.
"""

from __future__ import annotations

import re
from functools import lru_cache

from knotwork.hygiene.seats import clauses, first_read
from knotwork.hygiene.spans import names_kept

_HEDGE = re.compile(r"\?|\b(?:may|might|maybe|perhaps|probably|could|would|should|if|unless|whether|plans?|"
                    r"planned|proposed|expected|will)\b", re.I)


@lru_cache(maxsize=4096)
def _one(earlier: str) -> str | None:
    """The earlier text as its one clause, or None when it says more or hedges."""
    found = clauses(earlier)
    return found[0] if len(found) == 1 and not _HEDGE.search(found[0]) else None


# -- a proposal's status ----------------------------------------------------------------------------------------
_STATUSES = frozenset("draft provisional implementable implemented accepted approved rejected declined withdrawn "
                      "deferred postponed final active superseded replaced obsolete dormant abandoned".split())
_RECORD = r"(?P<id>[A-Z]{2,6}[- ]?\d{1,5})"
_STATUS = re.compile(rf"^{_RECORD}(?:\s+\([^()]*\))?\s+(?:is|was|has\s+been|became)\s+(?:now\s+)?(?P<s>[a-z]+)"
                     r"(?:\s*:.*|\s*,.*|\s+\(.*\))?$")


def _status(clause: str) -> tuple[str, str] | None:
    m = _STATUS.match(clause)
    if m and m["s"] in _STATUSES:
        return re.sub(r"[- ]", "", m["id"]).lower(), m["s"]
    return None


def status_change(earlier: str, later: str) -> str | None:
    """"old -> new" status of one proposal named by its id, else None."""
    if (one := _one(earlier)) is None or (was := _status(one)) is None:
        return None
    for clause in clauses(later):
        if (now := _status(clause)) and now[0] == was[0]:
            return None if now[1] == was[1] else f"{was[1]} -> {now[1]}"
    return None


# -- a file moved -----------------------------------------------------------------------------------------------
_FILE = r"[\w.-]+\.(?:md|rst|txt|html|ya?ml|json|toml|py|js|ts)"
_MOVED = re.compile(rf"\b(?:has\s+been\s+|was\s+|is\s+now\s+)?moved\s+to\s+(?P<path>(?:[\w.-]+/)*(?P<file>{_FILE}))(?![\w/])")
_FILES = re.compile(rf"(?<![\w/.-])(?P<path>(?:[\w.-]+/)*(?P<file>{_FILE}))(?![\w/])")


def moved_file(earlier: str, later: str) -> str | None:
    """"old path -> new path" when the earlier text names one file and the later moves a file of that name
    elsewhere."""
    if (one := _one(earlier)) is None:
        return None
    files = _FILES.findall(one)
    if len(files) != 1:
        return None
    path, name = files[0]
    for clause in clauses(later):
        if (m := _MOVED.search(clause)) and m["file"].lower() == name.lower() and m["path"] != path:
            return f"{path} -> {m['path']}"
    return None


# -- an option removed ------------------------------------------------------------------------------------------
_REMOVED = re.compile(r"^(?:the\s+)?(?P<what>[^,;:]{3,60}?)\s+(?:(?:was|were|has\s+been|have\s+been|is|are)\s+)?"
                      r"(?:removed|dropped)$", re.I)
_CODE = re.compile(r"[#()]|--?\w|\w[._]\w*[A-Za-z]|[a-z][A-Z]")


def removed(earlier: str, later: str) -> str | None:
    """"<thing> -> removed" when the later text says a code-named thing was removed that the earlier one states
    it works with."""
    if (one := _one(earlier)) is None or re.search(r"\b(?:not|no|never)\b", one, re.I):
        return None
    for clause in clauses(later):
        m = _REMOVED.match(clause)
        if m is None or not _CODE.search(m["what"]):
            continue
        what = re.escape(m["what"].strip()).replace(r"\ ", r"\s+")
        if len(re.findall(rf"(?<![\w#])(?:the\s+)?{what}(?![\w#])", one, re.I)) == 1:
            return f"{m['what']} -> removed"
    # a tool removed, said aside ("Asset bundling: Vite (Laravel Mix removed in the January cleanup)"): the earlier
    # text's one name, the value of what it is done with ("Front-end assets are compiled with Laravel Mix")
    names = re.findall(r"(?<!^)(?<![\w.-])[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)*", one)
    lead = re.match(r"^.+?\s+(?:with|using|via|by|on)\s+(?P<name>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})$", one)
    if len(names) == 1 and lead and lead["name"] == names[0]:
        gone = re.search(rf"(?<![\w.-]){re.escape(names[0])}\s+(?:was\s+|has\s+been\s+)?(?:removed|dropped)\b", later)
        if gone and not re.search(r"\b(?:not|no|never)\b", later[max(0, gone.start() - 20):gone.end()], re.I):
            return f"{names[0]} -> removed"
    return None


# -- a build no longer shipped ----------------------------------------------------------------------------------
_NOT_SHIPPED = re.compile(r"^(?:and\s+)?no\s+(?P<name>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?)\s+(?P<noun>[a-z]+)\s+"
                          r"(?:is|are)\s+(?:shipped|published|built|provided|released)(?:\s+any\s*more)?$")
_SHIP_VERBS = r"(?:ships|ship|shipped|publishes|publish|published|builds|provides|releases)"


def not_shipped(earlier: str, later: str) -> str | None:
    """"<name> <noun> -> none" when the later text says no such build is shipped and the earlier one ships it."""
    if (one := _one(earlier)) is None or re.search(r"\b(?:not|no|never)\b", one, re.I):
        return None
    for clause in clauses(later):
        if (m := _NOT_SHIPPED.match(clause)) and re.search(rf"\b{_SHIP_VERBS}\b", one) and re.search(
                rf"\b{re.escape(m['name'])}\b.*\b{m['noun']}s?\b", one):
            return f"{m['name']} {m['noun']} -> none"
    return None


# -- a duty another team took -----------------------------------------------------------------------------------
_TEAM = re.compile(r"^the\s+(?P<x>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?)\s+(?P<kind>team|group|committee|sig|wg)\s+"
                   r"(?P<verb>manages|owns|leads|runs|maintains|handles)\s+(?P<rest>the\s+.+)$", re.I)


def _object(rest: str) -> str:
    return re.sub(r"\b[A-Z][\w.-]*'s\s+", "", rest).lower()  # "... of Sorrel's LTS releases": an owner aside


def team_swap(earlier: str, later: str) -> str | None:
    """"old team -> new team" when one duty ("manages the process and content of LTS releases") passed from one
    named team to another."""
    if (one := _one(earlier)) is None or (a := _TEAM.match(one)) is None:
        return None
    for clause in clauses(later):
        if (b := _TEAM.match(clause)) and (a["kind"].lower(), a["verb"]) == (b["kind"].lower(), b["verb"]) \
                and _object(a["rest"]) == _object(b["rest"]) and a["x"].lower() != b["x"].lower():
            return f"{a['x']} {a['kind']} -> {b['x']} {b['kind']}"
    return None


# -- a tool's new version, said of what it serves -----------------------------------------------------------------
_UPDATED_TO = re.compile(r"^(?:we\s+)?(?:updated|upgraded|moved|migrated|bumped|switched)\s+(?P<what>(?:the|our)\s+"
                         r"[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+to\s+(?P<name>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+"
                         r"v?(?P<v>\d+(?:\.\d+)*)$", re.I)


def updated_to(earlier: str, later: str) -> str | None:
    """"<tool> <old> -> <new>" when the later text updates a thing to a tool's new version and the earlier one
    says that thing is served by the tool at another version."""
    if (one := _one(earlier)) is None:
        return None
    for clause in clauses(later):
        if (m := _UPDATED_TO.match(clause)) is None:
            continue
        what = [w for w in m["what"].lower().split()[1:]]
        if not all(re.search(rf"\b{re.escape(w[:3])}", one, re.I) for w in what):
            return None  # what was updated must be what the earlier text is about ("the docs" / "documentation")
        found = list(re.finditer(rf"(?<![\w.]){re.escape(m['name'])}\s+v?(?P<v>\d+(?:\.\d+)*)(?![\w.])", one))
        if len(found) != 1 or found[0]["v"] == m["v"] or not names_kept(one[found[0].end():], later):
            return None
        return f"{m['name']} {found[0]['v']} -> {m['name']} {m['v']}"
    return None


# -- one of several versions moved --------------------------------------------------------------------------------
_NAMED_VERSION = re.compile(r"(?<![\w.])(?P<name>[A-Z][\w+-]*)\s+v?(?P<v>\d+(?:\.\d+)+)(?!\w|\.\w)")
_LOWER = re.compile(r"\b[a-z][a-z-]{2,}\b")


def one_version_moved(earlier: str, later: str) -> str | None:
    """"<name> <old> -> <new>" when the earlier text pins several named things to versions ("The backend runs
    Django 4.2 on Python 3.11") and the later one gives each of them a version again, one of them another
    ("The backend runs Python 3.12 since the spring upgrade; Django stays on 4.2"), about the same thing (every
    lower-case word of the earlier text is in the later one)."""
    if (one := _one(earlier)) is None or re.search(r"\b(?:not|no|never|or)\b", one, re.I):
        return None
    pinned = {m["name"]: m["v"] for m in _NAMED_VERSION.finditer(one)}
    if len(pinned) < 2 or len(pinned) != len(_NAMED_VERSION.findall(one)):
        return None
    said = set(_LOWER.findall(one)) - {"the", "and", "our", "since", "now"}  # "backend", "runs"
    moved = []
    for name, version in pinned.items():
        found = {m["v"] for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s+(?:(?:stays|remains|is|stay|remain)\s+"
                                            r"(?:on\s+|at\s+)?)?v?(?P<v>\d+(?:\.\d+)+)(?!\w|\.\w)", later)}
        if len(found) != 1:
            return None
        if (now := found.pop()) != version:
            # the clause that moves it says what the earlier one said of it ("The backend runs Python 3.12 ...")
            if not any(re.search(rf"(?<![\w.]){re.escape(name)}\s+v?{re.escape(now)}", c)
                       and said <= set(_LOWER.findall(c)) for c in clauses(later)):
                return None
            moved.append(f"{name} {version} -> {name} {now}")
    return moved[0] if len(moved) == 1 else None


# -- a maximum in two shapes --------------------------------------------------------------------------------------
_MAXIMUMS = (
    re.compile(r"^(?:the\s+)?(?:maximum|max|largest)\s+(?P<x>[a-z]+)\s+(?:size|count|number)\s+is\s+(?:now\s+)?"
               r"(?P<n>\d+)\s+(?P<u>[a-z]+)$", re.I),
    re.compile(r"^(?:an?\s+|each\s+)?(?P<x>[a-z]+)\s+(?:can|may)\s+(?:now\s+)?(?:have|hold|take|include)\s+"
               r"(?:up\s+to|at\s+most)\s+(?P<n>\d+)\s+(?P<u>[a-z]+)$", re.I),
)


def _maximum(clause: str) -> tuple[str, str, str] | None:
    for shape in _MAXIMUMS:
        if m := shape.match(clause):
            return m["x"].lower()[:4], m["n"], m["u"].lower().rstrip("s")
    return None


def maximum(earlier: str, later: str) -> str | None:
    """"<old> -> <new>" when both texts give one thing's maximum ("The maximum party size is 4 players." ->
    "Parties can now have up to 6 players.") in one unit."""
    if (one := _one(earlier)) is None or (was := _maximum(one)) is None:
        return None
    for clause in clauses(later):
        if (now := _maximum(clause)) and (now[0], now[2]) == (was[0], was[2]):
            return None if now[1] == was[1] else f"{was[1]} -> {now[1]}"
    return None


# -- a port ------------------------------------------------------------------------------------------------------
_PORTS = (
    re.compile(r"^(?:the\s+)?(?P<s>[\w' -]{2,50}?)\s+(?:now\s+)?listens\s+on\s+port\s+(?P<n>\d{2,5})"
               r"(?:\s+by\s+default)?$", re.I),
    re.compile(r"^(?:the\s+)?(?:default\s+)?port\s+(?:of|for)\s+(?:the\s+)?(?P<s>[\w' -]{2,40}?)\s*(?::|\s+is)\s+"
               r"(?:now\s+)?(?P<n>\d{2,5})(?:,\s+and\s+.*)?$", re.I),
    re.compile(r"^(?:the\s+)?(?P<s>[\w' -]{2,40}?)(?:'s)?\s+(?:default\s+)?port\s*(?::|\s+is)\s+(?:now\s+)?(?P<n>\d{2,5})$",
               re.I),
)
_SERVER_WORDS = frozenset({"dev", "server", "default"})  # "the dashboard" / "the dashboard's dev server": one port


def _port(clause: str) -> tuple[frozenset[str], frozenset[str], str] | None:
    """(the words of what listens, those written with a capital, the port) for one clause."""
    for shape in _PORTS:
        if m := shape.match(clause):
            raw = re.findall(r"[A-Za-z][\w-]*", m["s"].replace("'s", ""))
            every = frozenset(w.lower() for w in raw) - {"the", "a", "its"}
            return every, frozenset(w.lower() for w in raw[1:] if w[0].isupper()), m["n"]
    return None


def port(earlier: str, later: str) -> str | None:
    """"<old> -> <new>" port of one server ("The dashboard's dev server listens on port 3000 by default" ->
    "Default PORT of the dashboard: 8080, ..."): the same words, or one side's more words names or the words of a
    server ("dev server"), the other side keeping a word of its own ("dashboard")."""
    if (one := _one(earlier)) is None or (a := _port(one)) is None:
        return None
    for clause in clauses(later):
        if (b := _port(clause)) is None:
            continue
        small, large = sorted((a, b), key=lambda r: len(r[0]))
        more = large[0] - small[0]
        same = small[0] == large[0] or (small[0] < large[0] and more <= large[1] | _SERVER_WORDS
                                        and bool(small[0] - _SERVER_WORDS))
        if same:
            return None if a[2] == b[2] else f"{a[2]} -> {b[2]}"
    return None


# -- a price ------------------------------------------------------------------------------------------------------
_MONEY = r"(?P<m>[$\u20ac\u00a3]\d+(?:[.,]\d{2})?)"
_PRICES = (
    re.compile(rf"^(?:the\s+)?(?P<x>[a-z][\w-]*)(?:\s+(?:subscription|plan|tier|membership))?\s+(?:now\s+)?costs\s+"
               rf"{_MONEY}\s*(?:per|a|/)\s*(?P<per>month|year|week)$", re.I),
    re.compile(rf"^(?P<x>[A-Za-z][\w-]*)(?:\s+(?:subscription|plan|tier|membership))?:\s+{_MONEY}\s*(?:per|a|/)\s*"
               r"(?P<per>month|year|week)(?:\s+(?:starting|from|since|as\s+of)\s+\w+(?:\s+\d{4})?)?$", re.I),
)


def _price(clause: str) -> tuple[str, str, str] | None:
    for shape in _PRICES:
        if m := shape.match(clause):
            return m["x"].lower(), m["m"], m["per"].lower()
    return None


def price(earlier: str, later: str) -> str | None:
    """"<old> -> <new>" price of one plan per one period ("The premium subscription costs $4.99 per month." ->
    "Premium: $5.99/month starting January; ...")."""
    if (one := _one(earlier)) is None or (a := _price(one)) is None:
        return None
    for clause in clauses(later):
        if (b := _price(clause)) and (a[0], a[2]) == (b[0], b[2]):
            return None if a[1] == b[1] else f"{a[1]} -> {b[1]}"
    return None


# -- the versions a check runs on ---------------------------------------------------------------------------------
_TESTED_ON = re.compile(r"^(?P<s>[A-Z][\w-]*)\s+(?:now\s+)?(?:runs\s+(?:the\s+)?(?:test\s+suite|tests)\s+(?:on|against)|"
                        r"tests\s+(?:on|against)|verifies|checks|tests)\s+(?P<name>[A-Z][\w.+-]*)\s+"
                        r"(?P<vs>v?\d+(?:\.\d+)*(?:(?:,\s*|,?\s+and\s+)v?\d+(?:\.\d+)*)*)$")


def _tested(clause: str) -> tuple[str, str, frozenset[str]] | None:
    if m := _TESTED_ON.match(clause):
        return m["s"].lower(), m["name"].lower(), frozenset(v.lstrip("v") for v in re.findall(r"v?\d+(?:\.\d+)*", m["vs"]))
    return None


def tested_on(earlier: str, later: str) -> str | None:
    """"<old versions> -> <new versions>" when both texts give the versions of one named thing a check runs on
    ("CI runs the test suite on Node.js 18, 20 and 22." -> "CI verifies Node.js 22 and 24."): one list for
    another."""
    if (one := _one(earlier)) is None or (a := _tested(one)) is None:
        return None
    for clause in clauses(later):
        if (b := _tested(clause)) and a[:2] == b[:2]:
            return None if a[2] == b[2] else f"{', '.join(sorted(a[2]))} -> {', '.join(sorted(b[2]))}"
    return None


def change(old_text: str, new_text: str, old_is_later: bool = False) -> str | None:
    """The change told from ``old_text`` to ``new_text`` when a reader above reads one, else None; the later text
    is ``new_text`` unless ``old_is_later``."""
    return first_read((status_change, moved_file, removed, not_shipped, team_swap, updated_to, one_version_moved,
                       maximum, port, price, tested_on), old_text, new_text, old_is_later)
