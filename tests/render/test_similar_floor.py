"""A relation block names a similar memory only above the measured floor (render/relations.py): one at 0.21 is
as close as an unrelated memory gets, and is left out; the store's ``relations`` keeps it, with its score."""

from __future__ import annotations

from knotwork.render import relations
from knotwork.services.links import MetaRelation

NEAR = MetaRelation("similar", "memory", "01NEAR", 0.912, "Redis TTL for report keys is 600 s")
UNRELATED = MetaRelation("similar", "memory", "01FAR", 0.21, "Ben's birthday is in May")


def test_only_similar_memories_above_the_floor_are_named() -> None:
    block = relations.compact([NEAR, UNRELATED], "standard")
    assert [s["id"] for s in block["similar"]] == ["01NEAR"]
    assert relations.compact([NEAR, UNRELATED], "minimal")["similar"] == ["01NEAR"]
    assert "similar" not in relations.compact([UNRELATED], "standard")
    assert relations.targets([NEAR, UNRELATED]) == ["01NEAR"]
    assert len(relations.shaped([NEAR, UNRELATED], "full")) == 2  # full: every relation the store holds, scored

