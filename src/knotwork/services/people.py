"""One person under a short and a full name: "Bob" resolves to "Bob Martinez" in one workspace.

Which names may pair is :mod:`knotwork.knowledge.people`'s (a lone given name,
a full name starting with it, both untyped or ``person``); here is when:

- a lone given name that no entity bears resolves to the *one* full name of
  the workspace that starts with it, and becomes its alias;
- a full name that arrives after the lone one absorbs it: the short entity
  becomes an alias of the full one, its facts and mentions move over;
- with two or more such full names ("Alice Chen", "Alice Wong") the given name
  is ambiguous: it is not resolved to either, it stays (or becomes) an entity
  of its own, and an alias that pointed it at one of them before the second
  arrived is no longer followed for new mentions (what was read while only one
  existed stays where it was put). A wrong merge hides a person behind
  another; a missed one only leaves two nodes.

Workspaces never mix: every look-up is in exactly the memory's workspace.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from knotwork.knowledge.people import PERSON, full_given, lone_given, personal

#: Full names read per given name (``Alice...``): more than enough to tell one from several.
PREFIX_ROWS = 64


class PersonNames:
    def __init__(self, store: Any) -> None:
        self.store = store

    def full_names(self, workspace: str | None, given: str) -> list[str]:
        """Ids of the entities of ``workspace`` that are full names of a person starting with ``given``."""
        rows = self.store.kg_entities_by_prefix(workspace, given, PREFIX_ROWS)
        return [eid for eid, name, type_ in rows if personal(type_) and full_given(name, type_) == given]

    def resolve(self, workspace: str | None, name: str, type_: str | None, found: str | None) -> tuple[str | None, bool]:
        """What a lone given name means, given what its spelling found (``found``).

        Returns (entity id or None, settled): settled with no id means "ambiguous: a new entity
        of its own, no fuzzy guess"; not settled leaves the usual matching to go on.
        """
        given = lone_given(name, type_)
        if given is None:
            return found, found is not None
        fulls = self.full_names(workspace, given)
        if found is not None:
            if found in fulls and len(fulls) > 1:  # an alias from when one full name had it
                return None, True
            return found, True
        if len(fulls) == 1:
            self.store.kg_add_alias(workspace, given, name, fulls[0])
            return fulls[0], True
        return None, len(fulls) > 1

    def absorb(self, workspace: str | None, entity_id: str, name: str, type_: str | None, at: datetime) -> str | None:
        """After a new entity ``name``: if it is the one full name of a lone given name's entity, merge that into
        it (the short name becomes an alias). Returns the absorbed entity's id, or None."""
        given = full_given(name, type_)
        if given is None or self.full_names(workspace, given) != [entity_id]:
            return None
        short = self.store.kg_lookup_norms(workspace, [given]).get(given)
        if short is None or short == entity_id:
            return None
        named = self.store.kg_entity_aliases([short]).get(short)
        notes = self.store.kg_entity_notes([short]).get(short)
        if named is None or notes is None or lone_given(named[0], notes[0]) != given:
            return None  # an alias of something else, or not a person's given name
        self.store.kg_merge_entities(entity_id, short)
        if notes[0] == PERSON and type_ is None:
            self.store.kg_update_entity(entity_id, at, type=PERSON)
        return short
