"""A memory's relations, in the shape ``relation_detail`` asks for.

``mem.relations(ids)`` gives the verbose list of meta-relations (the ``full``
detail). The compact block keeps what an agent acts on::

    {artifact | artifacts, similar: [{id, score, preview}], entities, tags: {k: v}, evidence}

- ``none``: no block at all;
- ``minimal``: the artifact(s) and the ids of similar memories;
- ``standard`` (default): + similar scores and previews, entities, tags, evidence;
- ``full``: every meta-relation as ``{type, target_label, target_value, score, preview}``.

Keys with nothing to say are left out, so an empty block is ``{}`` (never
null). Category, scope, client app (``written_via``) and artifact types are
noise here: they never enter the compact block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from knotwork.domain.models import MetaRelation

DETAILS = ("none", "minimal", "standard", "full")
DEFAULT_DETAIL = "standard"

# Meta-relation types as ``services.links`` names them.
ARTIFACT, SIMILAR, ENTITY, TAG, EVIDENCE = "references_artifact", "similar", "about", "tagged", "has_evidence"


def check_detail(value: str) -> str:
    from knotwork.errors import InvalidInput

    if value not in DETAILS:
        raise InvalidInput("relation_detail", f"must be one of {', '.join(DETAILS)}, got {value!r}")
    return value


#: The cosine a similar memory needs to be named in a relation block. Trigger: a search's answer named
#: memories about something else (0.21) as similar. Measured (bench/RESULTS.md, "Knowing when nothing
#: matches"): a memory's nearest memory of an unrelated store (codemem against the convo and convo2 chats)
#: has a cosine of 0.21-0.24 at the median and at most 0.40 at the 99th percentile on the dev halves (test
#: halves: 0.33-0.38). Outcome: the store keeps every neighbour (``relations`` returns them all, with their
#: scores); the blocks of answers name those at or above the floor (0.6-3.4% of stored slots are below it).
SIMILAR_FLOOR = 0.40


def _of(rels: Sequence[MetaRelation], kind: str) -> list[MetaRelation]:
    if kind == SIMILAR:
        return [r for r in rels if r.type == kind and (r.score is None or r.score >= SIMILAR_FLOOR)]
    return [r for r in rels if r.type == kind]


def compact(rels: Sequence[MetaRelation], detail: str, short: Callable[[str], str] = str) -> dict[str, Any]:
    """The compact block of one memory (``detail`` minimal or standard); ``short`` shortens memory ids."""
    out: dict[str, Any] = {}
    artifacts = [r.target_value for r in _of(rels, ARTIFACT)]
    if len(artifacts) == 1:
        out["artifact"] = artifacts[0]
    elif artifacts:
        out["artifacts"] = artifacts
    similar = _of(rels, SIMILAR)
    if similar and detail == "minimal":
        out["similar"] = [short(r.target_value) for r in similar]
    elif similar:
        out["similar"] = [_similar(r, short) for r in similar]
    if detail == "minimal":
        return out
    entities = list(dict.fromkeys(r.target_value for r in _of(rels, ENTITY)))
    if entities:
        out["entities"] = entities
    tags = {r.target_label: r.target_value for r in _of(rels, TAG)}
    if tags:
        out["tags"] = tags
    evidence = [r.target_value for r in _of(rels, EVIDENCE)]
    if evidence:
        out["evidence"] = evidence
    return out


def _similar(r: MetaRelation, short: Callable[[str], str]) -> dict[str, Any]:
    item: dict[str, Any] = {"id": short(r.target_value)}
    if r.score is not None:
        item["score"] = round(r.score, 2)
    if r.preview:
        item["preview"] = r.preview
    return item


def shaped(rels: Sequence[MetaRelation], detail: str, short: Callable[[str], str] = str) -> Any:
    """The block for ``detail``: None for none, a list of dicts for full, else the compact dict."""
    if detail == "none":
        return None
    if detail == "full":
        return [r.to_dict() for r in rels]
    return compact(rels, detail, short)


def targets(rels: Sequence[MetaRelation]) -> list[str]:
    """Memory ids a block refers to (similar memories), for short-id lookup."""
    return [r.target_value for r in _of(rels, SIMILAR)]
