"""What a renderer needs besides the result: :class:`View`, shared by the dispatch (core) and every renderer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from knotwork.domain.temporal import now as utc_now
from knotwork.errors import WORKSPACE_ARG
from knotwork.render.relations import DEFAULT_DETAIL


@dataclass(frozen=True, slots=True)
class View:
    """What a renderer needs besides the result.

    ``short``: full id -> shown id; ``relations``: memory id -> meta-relations
    (search only); ``detail``: the ``relation_detail`` asked for; ``now``: the
    time relative times count from; ``workspace_arg``: how this surface passes a workspace (a miss names it).
    """

    short: Mapping[str, str] = field(default_factory=dict)
    relations: Mapping[str, list] = field(default_factory=dict)
    detail: str = DEFAULT_DETAIL
    now: datetime = field(default_factory=utc_now)
    workspace_arg: str = WORKSPACE_ARG

    def sid(self, memory_id: str) -> str:
        return self.short.get(memory_id, memory_id)
