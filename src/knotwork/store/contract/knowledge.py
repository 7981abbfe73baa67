"""The knowledge graph: entities, aliases, mentions, facts in time, communities and entity vectors.

Part of the store contract (:class:`knotwork.store.protocol.Store`): every backend implements it,
and tests/store/test_store_contract.py fails when code outside ``store/`` calls a method no part declares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from knotwork.knowledge.models import Community, Entity, Fact


class KnowledgeGraph(Protocol):
    """The knowledge graph: entities, aliases, mentions, facts in time, communities and entity vectors."""

    def kg_add_alias(self, workspace: str | None, norm: str, alias: str, entity_id: str, index: bool = True) -> None:
        """A new alias; ``index``: its words join the entity's terms (False: the terms are already complete)."""
        ...

    def kg_add_fact_source(self, fact_id: str, memory_id: str) -> None: ...

    def kg_add_mentions(self, memory_id: str, entity_ids: Iterable[str]) -> None: ...

    def kg_clear(self, workspace: str | None) -> tuple[int, int]:
        """Delete the graph of one workspace (or everything with ``*``); returns (entities, facts) deleted."""
        ...

    def kg_clear_dirty(self, workspace: str | None, entity_ids: Sequence[str] | None = None) -> None: ...

    def kg_communities(self, workspace: str | None) -> list[tuple[Community, list[str]]]: ...

    def kg_community_of(self, entity_ids: Sequence[str]) -> dict[str, str]: ...

    def kg_community_times(self, community_ids: Sequence[str]) -> dict[str, datetime]:
        """When each community was computed."""
        ...

    def kg_degree(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Facts plus mentions per entity: how connected it is."""
        ...

    def kg_delete_fact(self, fact_id: str) -> bool: ...

    def kg_delete_orphans(self, entity_ids: Sequence[str]) -> int:
        """Delete those of these entities that no memory mentions and no fact joins; returns how many."""
        ...

    def kg_dirty(self, workspace: str | None) -> list[str]: ...

    def kg_dirty_workspaces(self) -> list[str]: ...

    def kg_edges(self, workspace: str | None, at: datetime) -> list[tuple[str, str]]:
        """(subject id, object id) of the facts true at ``at`` in exactly this workspace."""
        ...

    def kg_entities_by_norm(self, workspace: str | None, norm: str) -> list[str]:
        """Ids of entities in scope whose name or alias normalises to ``norm``."""
        ...

    def kg_entities_by_prefix(self, workspace: str | None, prefix: str, limit: int = 64) -> list[tuple[str, str, str | None]]:
        """(id, name, type) of the entities of exactly this workspace whose normalised name starts with ``prefix``
        (but is longer): the full names a given name may stand for."""
        ...

    def kg_entities_fts(self, terms: Sequence[str], workspace: str | None, limit: int) -> list[tuple[str, float]]: ...

    def kg_entity_aliases(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
        """(name, aliases) by entity id: the names a text may call each entity by, without the mention counts of
        :meth:`kg_get_entities` (counting an entity's mentions reads every one of them)."""
        ...

    def kg_entity_ids(self) -> list[str]:
        """Every entity id, in id order (time of creation)."""
        ...

    def kg_entity_names(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(name, summary) by entity id: what a search's ``about`` relations show, without the aliases and the
        mention counts of :meth:`kg_get_entities` (counting an entity's mentions reads every one of them)."""
        ...

    def kg_entity_notes(self, entity_ids: Sequence[str]) -> dict[str, tuple[str | None, str, str]]:
        """(type, caller's note, summary) by entity id: the cheap read ingest needs."""
        ...

    def kg_entity_rows(self, entity_ids: Sequence[str]) -> dict[str, tuple[Entity, str]]:
        """(entity, note) by id, with aliases and mention counts."""
        ...

    def kg_entity_terms(self, entity_ids: Sequence[str]) -> dict[str, str]:
        """The words full-text search knows each entity by (its name's and its aliases')."""
        ...

    def kg_entity_vectors(self, after_rowid: int = 0) -> list[tuple[int, str, str, bytes]]:
        """(rowid, entity id, workspace, vector) of entity vectors written after ``after_rowid``."""
        ...

    def kg_fact_counts(self, memory_ids: Sequence[str]) -> dict[str, int]: ...

    def kg_fact_ids(self) -> list[str]:
        """Every fact id, in id order (time of creation)."""
        ...

    def kg_facts_fts(self, terms: Sequence[str], workspace: str | None, at: datetime | None, include_invalid: bool, limit: int) -> list[tuple[str, float]]: ...

    def kg_facts_of(self, subject_id: str, predicate: str) -> list[Fact]:
        """Every fact (current or retired) with this subject and predicate, oldest first."""
        ...

    def kg_facts_only_from(self, memory_id: str, also: str | None = None) -> list[str]:
        """Facts whose only source is this memory (or this memory and ``also``)."""
        ...

    def kg_facts_touching(self, entity_ids: Sequence[str], workspace: str | None = '*', at: datetime | None = None, include_invalid: bool = True, limit: int = 10000) -> list[Fact]:
        """Facts whose subject or object is one of ``entity_ids``."""
        ...

    def kg_get_communities(self, community_ids: Sequence[str]) -> dict[str, Community]:
        """Communities by id (members not filled in)."""
        ...

    def kg_get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]: ...

    def kg_get_facts(self, fact_ids: Sequence[str]) -> dict[str, Fact]: ...

    def kg_gram_candidates(self, workspace: str | None, grams: Sequence[str], limit: int = 8, after: str | None = None) -> list[tuple[str, int]]:
        """(entity id, trigrams shared) for entities of exactly this workspace, most shared first.

        ``after``: only entities whose id sorts after it (created later)."""
        ...

    def kg_gram_counts(self, entity_ids: Sequence[str]) -> dict[str, set[str]]: ...

    def kg_graph_workspaces(self) -> list[str]:
        """Every workspace that has entities (``''`` is the global one)."""
        ...

    def kg_insert_entity(self, e: Entity, norm: str, grams: Iterable[str], note: str = '', terms: str | None = None) -> None:
        """A new entity; ``terms`` (its words for full-text search) default to its name's."""
        ...

    def kg_insert_fact(self, f: Fact) -> None: ...

    def kg_lookup_norms(self, workspace: str | None, norms: Sequence[str]) -> dict[str, str]:
        """Entity id for each normalised name (own name first, then aliases) in exactly this workspace."""
        ...

    def kg_mark_dirty(self, entity_ids: Iterable[str], workspace: str | None) -> None:
        """Note entities whose facts changed, so their communities are recomputed on the next refresh."""
        ...

    def kg_mentions(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity ids each memory mentions."""
        ...

    def kg_merge_entities(self, keep: str, drop: str) -> None:
        """Move everything of ``drop`` onto ``keep`` and delete ``drop`` (its own name becomes an alias)."""
        ...

    def kg_put_entity_vector(self, entity_id: str, blob: bytes) -> None: ...

    def kg_raise_confidence(self, fact_id: str, confidence: float) -> None:
        """The fact's confidence becomes ``confidence`` if that is higher (another source stated it too)."""
        ...

    def kg_replace_communities(self, workspace: str | None, groups: Sequence[tuple[Community, Sequence[str]]], at: datetime) -> None:
        """Every community of the workspace replaced by ``groups``."""
        ...

    def kg_resolve_entity_ref(self, ref: str, limit: int = 11) -> list[str]: ...

    def kg_resolve_fact_ref(self, ref: str, limit: int = 11) -> list[str]: ...

    def kg_restart_fact(self, fact_id: str, valid_at: datetime) -> None:
        """The fact holds from ``valid_at`` (an earlier start, stated by another memory)."""
        ...

    def kg_retire_fact(self, fact_id: str, invalid_at: datetime | None, expired_at: datetime | None, superseded_by: str | None) -> None: ...

    def kg_swap_communities(self, workspace: str | None, drop: Sequence[str], groups: Sequence[tuple[Community, Sequence[str]]], at: datetime) -> None:
        """Delete the communities ``drop`` and insert ``groups`` (the incremental half of a rebuild)."""
        ...

    def kg_update_entity(self, entity_id: str, at: datetime, **values: Any) -> None:
        """Set ``type``, ``summary`` or ``note`` of an entity."""
        ...

    def kg_vectors_of(self, entity_ids: Sequence[str]) -> dict[str, bytes]:
        """The name vector of each of these entities that has one."""
        ...
