"""A change "from A to B" retires A under every relation its subject holds A by.

"The orders service runs on Heroku." then "We moved the orders service from Heroku to Render.": the
change is read as ``orders service uses Render`` (replacing Heroku), and the value plan of
:mod:`knotwork.knowledge.facts` retires ``uses Heroku``; ``runs_on Heroku``, stated with another
predicate, stayed current. The subject no longer has Heroku in any way the change could mean, so each
of its current facts with Heroku as object ends where the new value starts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


def retire_elsewhere(store: Any, workspace: str | None, new: tuple[str, str, str], old_id: str | None,
                     starts: datetime | None, new_id: str, at: datetime) -> set[str]:
    """Retire the subject's current facts about ``old_id`` (the value the new fact ``new``, (subject id,
    predicate, object id), replaces) under predicates other than the new one's, ended at ``starts`` (the new
    value's start) and superseded by ``new_id``; returns the entities touched (none without an old value).

    Trigger: a stored change with a ``replaces`` value. Why: "moved X from A to B" says X is done with A,
    whichever relation held it. Outcome: a fact that began after the new value (a memory arriving late
    about a later time) is kept: the change cannot end what started after it."""
    subject_id, predicate, object_id = new
    touched: set[str] = set()
    if old_id is None or old_id in (subject_id, object_id):
        return touched
    for f in store.kg_facts_touching([subject_id], workspace=workspace, at=None, include_invalid=False):
        if f.subject_id != subject_id or f.object_id != old_id or f.predicate == predicate:
            continue
        if f.invalid_at is not None or f.expired_at is not None:
            continue
        if starts is not None and f.valid_at is not None and f.valid_at >= starts:
            continue
        store.kg_retire_fact(f.id, starts, at, new_id)
        touched |= {f.subject_id, f.object_id}
    return touched


def start(store: Any, memory: Any, f: Any, entity_of: dict[str, str], said: datetime | None) -> datetime | None:
    """The start of a change's new value: ``said`` ("dropped MySQL for Postgres last month": a month before
    the memory), unless a memory of the scope stated the old value in use after that start and before this
    one ("We use MySQL" today): then the memory's own time (None).

    Trigger: the relative start of a change falls before a stored statement of the value it replaces.
    Why: the statements disagree, and the one said later is the newer word; taken literally, the old value
    would start after the change and retire the new one. Outcome: the old value holds until this memory's
    time, the new one from then."""
    if said is None or not f.replaces:
        return said
    from knotwork.knowledge.resolve import normalize

    subject_id, old_id = entity_of[normalize(f.subject)], entity_of.get(normalize(f.replaces))
    if old_id is None:
        return said
    for g in store.kg_facts_touching([subject_id], workspace=memory.workspace, at=None, include_invalid=False):
        if g.subject_id == subject_id and g.object_id == old_id and g.invalid_at is None and g.valid_at is not None \
                and said < g.valid_at <= memory.valid_at:
            return None
    return said
