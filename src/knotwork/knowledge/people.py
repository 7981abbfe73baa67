"""People by name: when a lone given name ("Bob") and a full name ("Bob Martinez") are one person.

In one workspace, a lone given name and the one full name that starts with it
are taken to be the same person unless something says otherwise. The shapes
are narrow on purpose, because a wrong merge puts one thing's facts on another:

- a *given name* is one capitalised word found in :data:`given_names` (the
  1990 US Census lists of first names, public domain, in ``given_names.txt``),
  less names that are also common lower-case English words unless they are
  among the 400 most frequent (``Hope``, ``Star``, ``Page`` go; ``Bob``,
  ``Mark``, ``Carol`` stay) and names mostly said of places, peoples or feasts
  (``Georgia``, ``Sydney``, ``German``, ``Easter``): ``Harbor`` / ``Harbor
  Labs``, ``Star`` / ``Star Trader`` never pair;
- a *full name* is that given name followed by a surname (``Bob Martinez``),
  maybe with a middle initial, given name or surname between (``Mary J. Watson``):
  the surname is a capitalised word of :data:`surnames` (the 15,000 most
  frequent of the 1990 US Census list of last names, public domain, in
  ``surnames.txt``, less those past the first 1,000 that are common lower-case
  English words: ``Square``, ``Bench``, ``Coffee``) and not a word that names a
  team, a product or a place (:data:`NOT_SURNAMES`). Real text is full of
  capitalised phrases that open with a word that is also a given name
  ("Denver Mint", "King Ghidorah", "Bell Peppers", "Coral Pink"): see
  ``bench/people.py`` and ``bench/RESULTS.md`` for what each cut changed;
- both sides are untyped or typed ``person``: a person ``Jordan Lee`` and a
  place ``Jordan`` stay apart.

The services decide the rest (``services.people``): only when exactly one
full name of the workspace starts with the given name; two (``Alice Chen``,
``Alice Wong``) leave ``Alice`` on its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from knotwork.knowledge.resolve import normalize

PERSON = "person"
_WORD = re.compile(r"^[A-Z][a-z]*[a-z](?:['’-][A-Z]?[a-zA-Z]*[a-z])*$|^(?:Mc|Mac|De|Di|Van|Le|La)[A-Z][a-z]+$|^O['’][A-Z][a-z]+$")
_INITIAL = re.compile(r"^[A-Z]\.?$")
#: Last words that make a capitalised phrase a team, a product, an organisation or a place, not a person.
NOT_SURNAMES = frozenset(
    """
    team teams squad crew group guild labs lab inc corp corporation co ltd llc gmbh plc company partners
    foundation institute university college school academy hospital clinic bank capital ventures fund
    systems technologies tech software solutions services service network networks cloud app apps api
    platform project projects program studio studios media music video tv pay wallet store shop market
    drive docs sheets maps mail chat search ads analytics console cli sdk server servers client engine
    street avenue road river lake mountain mountains island islands county city town state province
    valley bay beach airport station center centre office offices hq building tower plaza hall
    hotel cafe restaurant airlines airways motors records press times news post journal review
    day week month year night morning weekend sprint release version edition
    """.split()
)


def _words(file: str) -> frozenset[str]:
    lines = Path(__file__).with_name(file).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    """The given names, lower case (read once from ``given_names.txt`` beside this module)."""
    return _words("given_names.txt")


@lru_cache(maxsize=1)
def surnames() -> frozenset[str]:
    """The surnames, lower case (read once from ``surnames.txt`` beside this module)."""
    return _words("surnames.txt")


def personal(type_: str | None) -> bool:
    """May an entity of this type be a person (untyped or ``person``)?"""
    return type_ is None or type_ == PERSON


def _is_given(word: str) -> bool:
    return bool(_WORD.match(word)) and word.casefold() in given_names()


def _is_surname(word: str) -> bool:
    key = word.casefold()
    return bool(_WORD.match(word)) and key not in NOT_SURNAMES and key.replace("'", "").replace("’", "") in surnames()


def lone_given(name: str, type_: str | None) -> str | None:
    """The normalised name if ``name`` is a lone given name that may be a person ("Bob"), else None."""
    words = name.split()
    if len(words) != 1 or not personal(type_) or not _is_given(words[0]):
        return None
    return normalize(words[0])


def full_given(name: str, type_: str | None) -> str | None:
    """The normalised given name a person's full name starts with ("Bob Martinez" -> "bob"), else None."""
    words = name.split()
    if not 2 <= len(words) <= 3 or not personal(type_) or not _is_given(words[0]):
        return None
    if not _is_surname(words[-1]):
        return None
    if len(words) == 3 and not (_INITIAL.match(words[1]) or _is_given(words[1]) or _is_surname(words[1])):
        return None
    return normalize(words[0])
